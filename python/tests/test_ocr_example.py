"""The OCR example (examples/ocr/ocr.py) end to end: PaddleOCR's detector, orientation
classifier and recognizer, compiled by TensorBind, read back the lines it renders."""

import importlib.util
import os
import sys

import pytest

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "ocr")


def _load_example():
    sys.path.insert(0, os.path.abspath(EXAMPLE))
    try:
        import ocr
    finally:
        sys.path.pop(0)
    return ocr


def test_ocr_pipeline_reads_rendered_lines(capsys):
    if importlib.util.find_spec("rapidocr_onnxruntime") is None or importlib.util.find_spec("PIL") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("rapidocr-onnxruntime or pillow is missing: scripts/setup.sh installs them")
        pytest.skip("rapidocr-onnxruntime or pillow is missing; run scripts/setup.sh")
    ocr = _load_example()
    status = ocr.main(["--text", "Hello World 42", "--text", "tensor compiler", "--threads", "2"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert "'Hello World 42'" in printed and "'tensor compiler'" in printed
