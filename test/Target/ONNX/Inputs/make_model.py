"""Writes the small ONNX models the lit tests in this folder import.

Usage: make_model.py KIND OUT.onnx, KIND one of:
  shape   a linear layer whose output is reshaped through an exporter-style shape subgraph
          (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) and a dynamic batch dimension
  unsupported  two nodes of operators TensorBind lacks (Unique, NonZero) around a Relu
  invalid  a node without outputs, an input read before it is defined and an attribute of
          the wrong type (what onnx.checker rejects), and an opset newer than tested
  warning  a valid Relu model of opset 22, newer than the newest tested opset
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def shape_model():
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 6)).astype(np.float32), "fc.weight")
    b = numpy_helper.from_array(np.arange(6, dtype=np.float32), "fc.bias")
    idx = numpy_helper.from_array(np.array(0, dtype=np.int64), "zero")
    minus_one = numpy_helper.from_array(np.array([-1, 3], dtype=np.int64), "tail")
    nodes = [
        helper.make_node("MatMul", ["x", "fc.weight"], ["mm"], name="fc/MatMul"),
        helper.make_node("Add", ["mm", "fc.bias"], ["fc"], name="fc/Add"),
        helper.make_node("Shape", ["x"], ["x_shape"], name="shape/Shape"),
        helper.make_node("Gather", ["x_shape", "zero"], ["batch"], name="shape/Gather", axis=0),
        helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"], name="shape/Unsqueeze"),
        helper.make_node("Concat", ["batch1", "tail"], ["new_shape"], name="shape/Concat", axis=0),
        helper.make_node("Reshape", ["fc", "new_shape"], ["y"], name="out/Reshape"),
    ]
    axes = numpy_helper.from_array(np.array([0], dtype=np.int64), "axes0")
    graph = helper.make_graph(
        nodes,
        "shape_subgraph",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2, 3])],
        initializer=[w, b, idx, minus_one, axes],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def unsupported_model():
    nodes = [
        helper.make_node("Unique", ["x"], ["values"], name="uniq"),
        helper.make_node("Relu", ["values"], ["r"], name="relu"),
        helper.make_node("NonZero", ["r"], ["y"], name="nz"),
    ]
    graph = helper.make_graph(
        nodes,
        "unsupported",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def invalid_model():
    nodes = [
        helper.make_node("Relu", ["x"], [], name="no_outputs"),
        helper.make_node("Relu", ["later"], ["t"], name="too_early"),
        helper.make_node("Relu", ["x"], ["later"], name="producer"),
        helper.make_node("LeakyRelu", ["t"], ["y"], name="leaky", alpha=2),
    ]
    graph = helper.make_graph(
        nodes,
        "invalid",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def warning_model():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="r")],
        "newer_opset",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])


def narrow_model():
    """A FLOAT8E4M3FN weight (decoded into f32), a Cast to FLOAT8E5M2 and a Cast to INT4."""
    weight = helper.make_tensor("w", TensorProto.FLOAT8E4M3FN, [3], [1.0, -2.0, 448.0])
    nodes = [
        helper.make_node("Mul", ["x", "w_f32"], ["p"], name="scale"),
        helper.make_node("Cast", ["w"], ["w_f32"], name="widen", to=TensorProto.FLOAT),
        helper.make_node("Cast", ["p"], ["y"], name="to_f8", to=TensorProto.FLOAT8E5M2),
        helper.make_node("Cast", ["p"], ["z"], name="to_i4", to=TensorProto.INT4),
    ]
    nodes = [nodes[1], nodes[0], nodes[2], nodes[3]]
    graph = helper.make_graph(
        nodes,
        "narrow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT8E5M2, [2, 3]),
            helper.make_tensor_value_info("z", TensorProto.INT4, [2, 3]),
        ],
        [weight],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def write_narrow_data(model, out_dir):
    """x.npy, and onnx's reference outputs in their carriers: y.npy (f32), z.npy (int8)."""
    from onnx.reference import ReferenceEvaluator

    x = np.array([0.3, 1.7, -100.0, 7.9, -0.01, 1e-3], dtype=np.float32).reshape(2, 3)
    y, z = ReferenceEvaluator(model).run(None, {"x": x})
    np.save(os.path.join(out_dir, "x.npy"), x)
    np.save(os.path.join(out_dir, "y.npy"), y.astype(np.float32))
    np.save(os.path.join(out_dir, "z.npy"), z.astype(np.int8))


if __name__ == "__main__":
    kind, out = sys.argv[1], sys.argv[2]
    model = {
        "shape": shape_model,
        "unsupported": unsupported_model,
        "invalid": invalid_model,
        "warning": warning_model,
        "narrow": narrow_model,
    }[kind]()
    onnx.save(model, out)
    if kind == "narrow" and len(sys.argv) > 3:
        write_narrow_data(model, sys.argv[3])
