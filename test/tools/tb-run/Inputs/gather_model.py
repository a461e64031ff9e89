"""Writes gather.onnx (an embedding lookup: Gather of a 5x3 table at 4 int64 ids, then
Relu) and id files into the directory given: in range, past the end, and before the start
(negative ids count from the end, so -6 is the first invalid one)."""

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
table = numpy_helper.from_array(np.arange(15, dtype=np.float32).reshape(5, 3), "table")
ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [4])
emb = helper.make_tensor_value_info("emb", TensorProto.FLOAT, [4, 3])
nodes = [
    helper.make_node("Gather", ["table", "ids"], ["rows"], name="embed_lookup"),
    helper.make_node("Relu", ["rows"], ["emb"], name="relu"),
]
graph = helper.make_graph(nodes, "lookup", [ids], [emb], [table])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, out / "gather.onnx")
np.save(out / "in-range.npy", np.array([0, 4, -1, -5], dtype=np.int64))
np.save(out / "past-end.npy", np.array([0, 5, 1, 2], dtype=np.int64))
np.save(out / "before-start.npy", np.array([0, 1, -6, 2], dtype=np.int64))
