"""Runs onnx.checker.check_model(m, full_check=True) on every .onnx file in a directory and
prints one line per file: `NAME: ok` or `NAME: <exception type>: <first line>`.

Usage: check_models.py DIR      (for tests/hostile_models.rs)
"""

import os
import sys

import onnx


def verdict(path):
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return "ok"
    except Exception as e:  # the checker raises several types; any of them is a rejection
        first = (str(e).strip().splitlines() or [""])[0]
        return f"{type(e).__name__}: {first}"


for name in sorted(os.listdir(sys.argv[1])):
    if name.endswith(".onnx"):
        print(f"{name[:-5]}: {verdict(os.path.join(sys.argv[1], name))}")
