"""The OCR example (examples/ocr/ocr.py) end to end: PaddleOCR's detector, orientation
classifier and recognizer, compiled by TensorBind, read back the lines it renders, as
onnxruntime does."""

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
    # The default lines; --compare also runs onnxruntime, and the example fails unless both
    # engines read the same text and it is exactly the rendered text.
    status = ocr.main(["--threads", "2", "--compare"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    for line in ocr.DEFAULT_TEXT:
        assert f"'{line}'" in printed, printed
    assert f"read back all {len(ocr.DEFAULT_TEXT)} rendered lines exactly" in printed
