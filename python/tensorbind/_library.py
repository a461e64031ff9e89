"""A compiled module: the shared library tb-translate emits, called through ctypes as its
manifest (`<library>.json`) describes it."""

import ctypes
import json
import shutil
from pathlib import Path

import numpy as np

# The manifest layout this package reads (tb-translate --emit=shared-lib writes it).
MANIFEST_VERSION = 2

# numpy element types the manifest names, and the ctypes type a scalar input passes as.
_SCALARS = {
    "bool": ctypes.c_bool,
    "int8": ctypes.c_int8,
    "int16": ctypes.c_int16,
    "int32": ctypes.c_int32,
    "int64": ctypes.c_int64,
    "uint8": ctypes.c_uint8,
    "uint16": ctypes.c_uint16,
    "uint32": ctypes.c_uint32,
    "uint64": ctypes.c_uint64,
    "float32": ctypes.c_float,
    "float64": ctypes.c_double,
}


def _dtype(name):
    if name == "bfloat16":
        import ml_dtypes  # noqa: PLC0415  (only bfloat16 models need it)

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


class Tensor:
    """One input or output of a compiled function: its name, numpy dtype and shape (None
    for a scalar input)."""

    def __init__(self, spec):
        self.name = spec["name"]
        self.dtype = _dtype(spec["dtype"])
        self.shape = None if spec["shape"] is None else tuple(spec["shape"])
        self.ir_type = spec["ir_type"]

    def __repr__(self):
        return f"Tensor({self.name!r}, {self.dtype}, {self.shape})"

from ._native import TensorBindError


class Module:
    """A loaded library: `run` calls its function on numpy arrays."""

    def __init__(self, directory, manifest, function=None):
        self.directory = Path(directory)
        self.manifest = manifest
        functions = manifest["functions"]
        if function is None:
            if len(functions) != 1:
                names = ", ".join(f["name"] for f in functions)
                raise ValueError(f"the library has several functions ({names}); name one")
            chosen = functions[0]
        else:
            matches = [f for f in functions if f["name"] == function]
            if not matches:
                raise ValueError(f"the library has no function {function!r}")
            chosen = matches[0]
        self.function = chosen["name"]
        self.inputs = [Tensor(s) for s in chosen["inputs"]]
        self.outputs = [Tensor(s) for s in chosen["outputs"]]
        self._library = ctypes.CDLL(str(self.directory / manifest["library"]))
        self._entry = getattr(self._library, chosen["symbol"])
        self._entry.restype = ctypes.c_int32
        # The message of each non-zero status code the function returns (code k at k - 1).
        self._statuses = [s["message"] for s in chosen["statuses"]]

    def __repr__(self):
        return f"Module({self.function!r}, inputs={self.inputs}, outputs={self.outputs})"

    def run(self, *arrays):
        """Runs the function on `arrays` (one per input, in order; converted to each
        input's dtype) and returns its outputs as new numpy arrays."""
        if len(arrays) != len(self.inputs):
            expected = ", ".join(f"{t.name}: {t.dtype}{list(t.shape or [])}" for t in self.inputs)
            raise ValueError(f"{self.function} takes {len(self.inputs)} inputs ({expected}), got {len(arrays)}")
        keep = []
        args = []
        for spec, value in zip(self.inputs, arrays):
            if spec.shape is None:
                scalar = _SCALARS.get(spec.dtype.name)
                if scalar is None:
                    raise TypeError(f"input {spec.name!r}: {spec.dtype} scalars are not supported")
                args.append(scalar(np.asarray(value, dtype=spec.dtype).item()))
                continue
            array = np.ascontiguousarray(value, dtype=spec.dtype)
            if array.shape != spec.shape:
                raise ValueError(f"input {spec.name!r} has shape {array.shape}, the model takes {spec.shape}")
            keep.append(array)
            args.append(ctypes.c_void_p(array.ctypes.data))
        results = [np.empty(spec.shape, dtype=spec.dtype) for spec in self.outputs]
        args.extend(ctypes.c_void_p(r.ctypes.data) for r in results)
        code = self._entry(*args)
        if code != 0:
            message = (
                self._statuses[code - 1]
                if 0 < code <= len(self._statuses)
                else "a status code the manifest does not list"
            )
            raise TensorBindError(f"{self.function}: {message} (status {code})")
        return results

    def save(self, directory):
        """Copies the library, its header and its manifest into `directory` (created if
        needed), where `tensorbind.load` finds them again."""
        target = Path(directory)
        target.mkdir(parents=True, exist_ok=True)
        for name in (self.manifest["library"], self.manifest["header"], _manifest_name(self.manifest)):
            shutil.copyfile(self.directory / name, target / name)
        return target


def _manifest_name(manifest):
    return str(Path(manifest["library"]).with_suffix(".json"))


def load(directory, function=None):
    """The module saved in `directory` (by `Module.save` or `tb-translate --emit=shared-lib
    -o DIR/lib.so`): the one TensorBind manifest there, and the library it names."""
    directory = Path(directory)
    manifests = []
    for path in sorted(directory.glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("format") == "tensorbind-library":
            manifests.append(data)
    if len(manifests) != 1:
        raise ValueError(f"{directory} holds {len(manifests)} TensorBind manifests; expected one")
    manifest = manifests[0]
    if manifest.get("version") != MANIFEST_VERSION:
        raise ValueError(
            f"manifest version {manifest.get('version')!r} is not supported (expected {MANIFEST_VERSION}; "
            "recompile the library with this version of TensorBind)"
        )
    return Module(directory, manifest, function)
