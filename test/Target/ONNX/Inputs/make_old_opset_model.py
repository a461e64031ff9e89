"""Writes the models of opsets 6-12 that old-opset.test imports.

Usage: make_old_opset_model.py KIND OUT.onnx, KIND one of:
  softmax   Softmax at opset 11 over axis 1 of a rank-3 input (2-D coercion)
  topk      TopK at opset 9 with `k` as an attribute
  upsample  Upsample at opset 7 with `scales` as an attribute
  opset6    Add at opset 6, older than the oldest opset converted
"""

import sys

import onnx
from onnx import TensorProto, helper

F = TensorProto.FLOAT


def make(opset, node, inputs, outputs):
    graph = helper.make_graph([node], sys.argv[1], inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 3 if opset <= 8 else 6
    onnx.checker.check_model(model)
    return model


def info(name, shape, ty=F):
    return helper.make_tensor_value_info(name, ty, shape)


KINDS = {
    "softmax": lambda: make(
        11, helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1),
        [info("x", [2, 3, 4])], [info("y", [2, 3, 4])]),
    "topk": lambda: make(
        9, helper.make_node("TopK", ["x"], ["v", "i"], name="top", k=2, axis=-1),
        [info("x", [3, 5])], [info("v", [3, 2]), info("i", [3, 2], TensorProto.INT64)]),
    "upsample": lambda: make(
        7, helper.make_node("Upsample", ["x"], ["y"], name="up", mode="nearest",
                            scales=[1.0, 1.0, 2.0, 2.0]),
        [info("x", [1, 1, 2, 2])], [info("y", [1, 1, 4, 4])]),
    "opset6": lambda: make(
        6, helper.make_node("Add", ["x", "y"], ["z"], name="add"),
        [info("x", [2]), info("y", [2])], [info("z", [2])]),
}

onnx.save(KINDS[sys.argv[1]](), sys.argv[2])
