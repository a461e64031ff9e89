"""TensorBind's Python API: compile an ONNX model into a shared library and run it on numpy
arrays.

    import tensorbind
    module = tensorbind.compile("model.onnx", threads=4)
    (probabilities,) = module.run(image)
    module.save("deploy/")            # library, C header and manifest
    module = tensorbind.load("deploy/")

`compile` runs `tb-translate --emit=shared-lib` (the ONNX import, the CPU lowering
pipeline and LLVM code generation); `load` reads the manifest the library comes with (names,
element types and shapes of its inputs and outputs) and calls the library through ctypes.
"""

from ._library import Module, load
from ._compile import TensorBindError, compile, find_tool

__all__ = ["Module", "TensorBindError", "compile", "find_tool", "load"]
__version__ = "0.1.0"
