"""`tensorbind.compile`: an ONNX model to a loaded shared library, through tb-translate."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ._library import Module, load

# Targets `compile` knows, and what each means.
TARGETS = {"cpu": "this machine's CPU, or the one --mcpu names"}


class TensorBindError(RuntimeError):
    """A TensorBind tool failed; the message is the tool's own error."""


def find_tool(name):
    """The path of TensorBind tool `name` (`tb-translate`): $TB_BIN_DIR/name, else the
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
    workdir = Path(tempfile.mkdtemp(prefix="tensorbind-"))
    library = workdir / "libmodel.so"
    command = [find_tool("tb-translate"), "--import-onnx", "--emit=shared-lib", "-o", str(library)]
    command.append(f"-O{opt_level}")
    if threads is not None:
        command.append(f"--threads={int(threads)}")
    if mcpu is not None:
        command.append(f"--mcpu={mcpu}")
    for name, shape in (input_shapes or {}).items():
        command.append(f"--input-shape={name}=" + "x".join(str(int(d)) for d in shape))
    if isinstance(model, (bytes, bytearray, memoryview)):
        command.append("-")
        stdin = bytes(model)
    else:
        command.append(os.fspath(model))
        stdin = None
    done = subprocess.run(command, input=stdin, capture_output=True)
    if done.returncode != 0:
        shutil.rmtree(workdir, ignore_errors=True)
        raise TensorBindError(done.stderr.decode(errors="replace").strip())
    return load(workdir)
