"""Writes the ONNX models with If nodes that if.test imports.

Usage: make_if_model.py KIND OUT.onnx, KIND one of:
  shape    an If on Size(x) > 4, a condition known at import time, as exporters' shape
           checks are; the then branch holds a nested If on a constant condition, reads the
           outer x and a branch initializer
  runtime  an If on a graph input, known only at run time
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def branch(name, nodes, out, initializer=()):
    return helper.make_graph(
        nodes,
        name,
        [],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, [2, 3])],
        initializer=list(initializer),
    )


def shape_model():
    bias = numpy_helper.from_array(np.full((2, 3), 0.5, dtype=np.float32), "bias")
    inner_then = branch("inner_then", [helper.make_node("Neg", ["t"], ["v"], name="inner/neg")], "v")
    inner_else = branch("inner_else", [helper.make_node("Abs", ["t"], ["w"], name="inner/abs")], "w")
    then = branch(
        "then",
        [
            helper.make_node("Add", ["x", "bias"], ["s"], name="then/add"),
            helper.make_node("Relu", ["s"], ["t"], name="then/relu"),
            helper.make_node("If", ["yes"], ["u"], name="inner/if",
                             then_branch=inner_then, else_branch=inner_else),
        ],
        "u",
        initializer=[bias],
    )
    els = branch("else", [helper.make_node("Sigmoid", ["x"], ["e"], name="else/sigmoid")], "e")
    four = numpy_helper.from_array(np.array(4, dtype=np.int64), "four")
    yes = numpy_helper.from_array(np.array(True), "yes")
    nodes = [
        helper.make_node("Size", ["x"], ["n"], name="size"),
        helper.make_node("Greater", ["n", "four"], ["c"], name="check"),
        helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then, else_branch=els),
    ]
    graph = helper.make_graph(
        nodes,
        "if_on_shape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        initializer=[four, yes],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def runtime_model():
    then = branch("then", [helper.make_node("Relu", ["x"], ["t"], name="then/relu")], "t")
    els = branch("else", [helper.make_node("Neg", ["x"], ["e"], name="else/neg")], "e")
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then, else_branch=els)],
        "if_at_run_time",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


KINDS = {"shape": shape_model, "runtime": runtime_model}

if __name__ == "__main__":
    model = KINDS[sys.argv[1]]()
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[2])
