"""Writes the bundled example model, a small digit-classifier-shaped CNN with seeded random
weights, and an input for it: examples/cnn.onnx and examples/cnn-input.npy.

conv 3x3 (1->8, pad 1) + BatchNormalization + Relu, MaxPool 2x2, conv 3x3 (8->16, pad 1)
+ Relu, GlobalAveragePool, Flatten, Gemm (16->10), Softmax. Run: python examples/make_cnn.py
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2026)


def weight(name, *shape, fan_in):
    data = (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
    return numpy_helper.from_array(data, name)


def main():
    inits = [
        weight("conv1.w", 8, 1, 3, 3, fan_in=9),
        numpy_helper.from_array(np.zeros(8, np.float32), "conv1.b"),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "bn.scale"),
        numpy_helper.from_array(rng.uniform(-0.1, 0.1, 8).astype(np.float32), "bn.bias"),
        numpy_helper.from_array(rng.uniform(-0.1, 0.1, 8).astype(np.float32), "bn.mean"),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "bn.var"),
        weight("conv2.w", 16, 8, 3, 3, fan_in=72),
        numpy_helper.from_array(np.zeros(16, np.float32), "conv2.b"),
        weight("fc.w", 10, 16, fan_in=16),
        numpy_helper.from_array(np.zeros(10, np.float32), "fc.b"),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"],
                         ["b1"], name="bn1"),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2.w", "conv2.b"], ["c2"], name="conv2",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, 28, 28])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="tensorbind-example")
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, "cnn.onnx"))
    image = rng.uniform(0, 1, (1, 1, 28, 28)).astype(np.float32)
    np.save(os.path.join(HERE, "cnn-input.npy"), image)


if __name__ == "__main__":
    main()
