"""Writes pad.onnx (Pad of a 2x3 input whose pads are a second graph input, as ONNX's
node tests feed them) and x.npy, pads.npy into the directory given."""

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
pads = helper.make_tensor_value_info("pads", TensorProto.INT64, [4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])
node = helper.make_node("Pad", ["x", "pads"], ["y"], name="pad", mode="constant")
graph = helper.make_graph([node], "pad", [x, pads], [y])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
onnx.checker.check_model(model)
onnx.save(model, out / "pad.onnx")
np.save(out / "x.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
np.save(out / "pads.npy", np.array([0, 1, 1, 0], dtype=np.int64))
