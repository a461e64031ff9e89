"""Set-up of the Python API's tests: the package from this checkout, and what the tests
need (numpy, onnx, onnxruntime, the native module scripts/setup.sh builds). Where something is missing a test is
skipped with the reason, except under CI=true, where scripts/setup.sh installs everything
and a missing piece is a broken set-up: the test fails."""

import importlib
import os
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
REPO = PYTHON_DIR.parent
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))


def _missing():
    missing = []
    for module in ("numpy", "onnx", "onnxruntime"):
        try:
            importlib.import_module(module)
        except ImportError as error:
            missing.append(f"the Python package {module} ({error}; run scripts/setup.sh)")
    try:
        importlib.import_module("tensorbind._native")
    except ImportError as error:
        missing.append(f"the native module tensorbind._native ({error}; scripts/setup.sh builds it)")
    return missing


MISSING = _missing()


@pytest.fixture(autouse=True)
def environment():
    """Fails (under CI=true) or skips a test whose environment is incomplete."""
    if MISSING:
        why = "; ".join(MISSING)
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the test environment is incomplete: {why}")
        pytest.skip(why)


@pytest.fixture
def repo():
    return REPO
