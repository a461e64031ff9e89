"""Convolutional-network layers shared by ResNet-18 and MobileNet-V2, as ONNX nodes on a
GraphBuilder: convolution, batch normalization (kept as a node, not folded), ReLU/ReLU6 and
the pooled classifier head."""

import numpy as np


def conv(b, x, name, c_in, c_out, kernel, stride=1, group=1, bias=False, pad=None):
    """Conv with torchvision's 'same-ish' padding kernel//2 (or `pad`); He-initialized
    weights."""
    fan_in = c_in // group * kernel * kernel
    inputs = [x, b.he_normal(f"{name}.weight", (c_out, c_in // group, kernel, kernel), fan_in)]
    if bias:
        inputs.append(b.normal(f"{name}.bias", (c_out,), std=0.01))
    pad = kernel // 2 if pad is None else pad
    return b.node(
        "Conv",
        inputs,
        name,
        kernel_shape=[kernel, kernel],
        strides=[stride, stride],
        pads=[pad, pad, pad, pad],
        group=group,
    )


def batch_norm(b, x, name, channels, gamma=1.0):
    """Inference BatchNormalization with plausible trained statistics: the running
    variance is near one and the mean near zero, so each layer stays close to the scale
    He initialization gives it. `gamma` scales the learned scale (residual branches use a
    smaller one, as trained networks end up with, so sums stay O(1))."""
    scale = b.normal(f"{name}.weight", (channels,), std=0.1 * gamma, mean=gamma)
    shift = b.normal(f"{name}.bias", (channels,), std=0.1)
    mean = b.constant(f"{name}.running_mean", (b.rng.standard_normal(channels) * 0.1).astype(np.float32))
    var = b.constant(f"{name}.running_var", (1.0 + np.abs(b.rng.standard_normal(channels)) * 0.2).astype(np.float32))
    return b.node("BatchNormalization", [x, scale, shift, mean, var], name, epsilon=1e-5, momentum=0.9)


def relu(b, x, name):
    return b.node("Relu", [x], name)


def relu6(b, x, name):
    """ReLU6 as exporters write it since opset 11: Clip with constant min/max inputs."""
    low = b.shared_constant("relu6.min", np.array(0.0, dtype=np.float32))
    high = b.shared_constant("relu6.max", np.array(6.0, dtype=np.float32))
    return b.node("Clip", [x, low, high], name)


def conv_bn(b, x, name, c_in, c_out, kernel, stride=1, group=1, activation=None, gamma=1.0):
    """conv -> BatchNormalization -> optional activation (`relu`, `relu6`)."""
    y = conv(b, x, f"{name}.conv", c_in, c_out, kernel, stride, group)
    y = batch_norm(b, y, f"{name}.bn", c_out, gamma)
    if activation is not None:
        y = activation(b, y, f"{name}.{activation.__name__}")
    return y


def classifier(b, x, channels, classes):
    """GlobalAveragePool -> Flatten -> Gemm(transB): torchvision's head as exported."""
    pooled = b.node("GlobalAveragePool", [x], "avgpool")
    flat = b.node("Flatten", [pooled], "flatten", axis=1)
    weight = b.he_normal("fc.weight", (classes, channels), channels, gain=1.0)
    bias = b.normal("fc.bias", (classes,), std=0.01)
    return b.node("Gemm", [flat, weight, bias], "fc", transB=1)
