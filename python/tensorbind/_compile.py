"""`tensorbind.compile`: an ONNX model to a loaded shared library, compiled in this process
by the native module (`tensorbind._native`, the compiler itself)."""

import os
import shutil
import tempfile
from pathlib import Path

from . import _native
from ._library import Module, TensorBindError, load

# Targets `compile` knows, and what each means.
TARGETS = {"cpu": "this machine's CPU, or the one `mcpu` names"}


def find_tool(name):
    """The path of TensorBind tool `name` (`tb-run`): $TB_BIN_DIR/name, else the
    repository's target/release/name next to this package, else `name` on PATH."""
    candidates = []
    if os.environ.get("TB_BIN_DIR"):
        candidates.append(Path(os.environ["TB_BIN_DIR"]) / name)
    candidates.append(Path(__file__).resolve().parents[2] / "target" / "release" / name)
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise TensorBindError(
            f"{name} not found: build it (cargo build --release -p tb-tools), "
            "set TB_BIN_DIR to its directory, or put it on PATH"
        )
    return found


def compile(model, target="cpu", threads=None, mcpu=None, opt_level=3, input_shapes=None):
    """Compiles the ONNX `model` (a path, or the model's bytes) for `target` and loads it.

    threads: run parallel loops on this many threads (0: one per core; None: in order).
    mcpu: the CPU to generate code for (default: this machine's).
    opt_level: LLVM's optimization level, 0 to 3.
    input_shapes: {input name: shape} for inputs with dynamic dimensions.
    """
    if target not in TARGETS:
        known = ", ".join(f"{k} ({v})" for k, v in TARGETS.items())
        raise ValueError(f"unknown target {target!r}; known targets: {known}")
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0, 1, 2 or 3, not {opt_level!r}")
    if isinstance(model, (bytearray, memoryview)):
        model = bytes(model)
    elif not isinstance(model, bytes):
        model = os.fspath(model)
    shapes = {name: [int(d) for d in shape] for name, shape in (input_shapes or {}).items()}
    workdir = Path(tempfile.mkdtemp(prefix="tensorbind-"))
    try:
        _native.compile_onnx(
            model,
            str(workdir),
            "libmodel",
            threads=None if threads is None else int(threads),
            mcpu=mcpu,
            opt_level=opt_level,
            input_shapes=shapes,
        )
    except Exception:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    return load(workdir)
