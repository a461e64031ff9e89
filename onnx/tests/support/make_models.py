"""Builds small networks with the onnx helper API and computes their expected outputs
independently with numpy, for tests/models.rs.

Usage: make_models.py OUT_DIR. For each network NAME writes OUT_DIR/NAME/model.onnx,
input_<i>.npy and output_<i>.npy.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(1234)


def rand(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def conv2d(x, w, b=None, pad=0, group=1):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.zeros((n, m, oh, ow), dtype=np.float64)
    mg = m // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        for o in range(g * mg, (g + 1) * mg):
            for i in range(kh):
                for j in range(kw):
                    patch = xs[:, :, i:i + oh, j:j + ow]
                    out[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out.astype(np.float32)


def batchnorm(x, scale, bias, mean, var, eps=1e-5):
    s = lambda v: v.reshape(1, -1, 1, 1)
    return ((x - s(mean)) / np.sqrt(s(var) + eps) * s(scale) + s(bias)).astype(np.float32)


def relu(x):
    return np.maximum(x, 0)


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def init(name, array):
    return numpy_helper.from_array(array, name)


def bn_params(prefix, c):
    return {
        f"{prefix}.scale": rand(c, scale=0.5) + 1,
        f"{prefix}.bias": rand(c, scale=0.1),
        f"{prefix}.mean": rand(c, scale=0.1),
        f"{prefix}.var": np.abs(rand(c)) + 0.5,
    }


def bn_node(prefix, x, y):
    return helper.make_node(
        "BatchNormalization",
        [x, f"{prefix}.scale", f"{prefix}.bias", f"{prefix}.mean", f"{prefix}.var"],
        [y],
        name=prefix,
        epsilon=1e-5,
    )


def bn_apply(p, prefix, x):
    return batchnorm(x, *(p[f"{prefix}.{k}"] for k in ("scale", "bias", "mean", "var")))


def residual_block():
    c = 4
    x = rand(1, c, 8, 8)
    p = {"conv1.w": rand(c, c, 3, 3, scale=0.3), "conv2.w": rand(c, c, 3, 3, scale=0.3)}
    p.update(bn_params("bn1", c))
    p.update(bn_params("bn2", c))
    nodes = [
        helper.make_node("Conv", ["x", "conv1.w"], ["c1"], name="conv1", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        bn_node("bn1", "c1", "b1"),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "conv2.w"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        bn_node("bn2", "c2", "b2"),
        helper.make_node("Add", ["b2", "x"], ["s"], name="add"),
        helper.make_node("Relu", ["s"], ["y"], name="relu2"),
    ]
    y = relu(bn_apply(p, "bn1", conv2d(x, p["conv1.w"], pad=1)))
    y = relu(bn_apply(p, "bn2", conv2d(y, p["conv2.w"], pad=1)) + x)
    return nodes, p, {"x": x}, [("y", y)]


def mlp():
    x = rand(3, 10)
    p = {"fc1.w": rand(16, 10, scale=0.3), "fc1.b": rand(16), "fc2.w": rand(16, 4, scale=0.3), "fc2.b": rand(4)}
    nodes = [
        helper.make_node("Gemm", ["x", "fc1.w", "fc1.b"], ["h"], name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("Gemm", ["r", "fc2.w", "fc2.b"], ["y"], name="fc2", alpha=0.5),
    ]
    h = relu(x @ p["fc1.w"].T + p["fc1.b"])
    y = 0.5 * (h @ p["fc2.w"]) + p["fc2.b"]
    return nodes, p, {"x": x}, [("y", y.astype(np.float32))]


def attention():
    seq, d, heads = 6, 16, 2
    dh = d // heads
    x = rand(1, seq, d)
    p = {k: rand(d, d, scale=0.25) for k in ("wq", "wk", "wv", "wo")}
    p["heads_shape"] = np.array([heads, dh], dtype=np.int64)
    p["zero"] = np.array(0, dtype=np.int64)
    p["one"] = np.array(1, dtype=np.int64)
    p["axes0"] = np.array([0], dtype=np.int64)
    p["scale"] = np.array(np.sqrt(dh), dtype=np.float32)
    p["model_dim"] = np.array([d], dtype=np.int64)
    nodes = [
        # The exporter-style shape subgraph: [batch, seq, heads, dh] from x's shape.
        helper.make_node("Shape", ["x"], ["xs"], name="shape"),
        helper.make_node("Gather", ["xs", "zero"], ["b"], name="batch"),
        helper.make_node("Gather", ["xs", "one"], ["s"], name="seq"),
        helper.make_node("Unsqueeze", ["b", "axes0"], ["b1"], name="b1"),
        helper.make_node("Unsqueeze", ["s", "axes0"], ["s1"], name="s1"),
        helper.make_node("Concat", ["b1", "s1", "heads_shape"], ["split_shape"], name="split_shape", axis=0),
        helper.make_node("Concat", ["b1", "s1", "model_dim"], ["merge_shape"], name="merge_shape", axis=0),
    ]
    for t in ("q", "k", "v"):
        nodes += [
            helper.make_node("MatMul", ["x", f"w{t}"], [f"{t}0"], name=f"{t}_proj"),
            helper.make_node("Reshape", [f"{t}0", "split_shape"], [f"{t}1"], name=f"{t}_split"),
            helper.make_node("Transpose", [f"{t}1"], [t], name=f"{t}_heads", perm=[0, 2, 1, 3]),
        ]
    nodes += [
        helper.make_node("Transpose", ["k"], ["kt"], name="k_t", perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["scores0"], name="scores"),
        helper.make_node("Div", ["scores0", "scale"], ["scores"], name="scaled"),
        helper.make_node("Softmax", ["scores"], ["probs"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["probs", "v"], ["ctx0"], name="context"),
        helper.make_node("Transpose", ["ctx0"], ["ctx1"], name="merge_t", perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ctx1", "merge_shape"], ["ctx"], name="merge"),
        helper.make_node("MatMul", ["ctx", "wo"], ["y"], name="out_proj"),
    ]
    def heads_of(m):
        return m.reshape(1, seq, heads, dh).transpose(0, 2, 1, 3)
    q, k, v = (heads_of(x @ p[w]) for w in ("wq", "wk", "wv"))
    probs = softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh))
    y = (probs @ v).transpose(0, 2, 1, 3).reshape(1, seq, d) @ p["wo"]
    return nodes, p, {"x": x}, [("y", y.astype(np.float32))]


def depthwise_separable():
    c, m = 6, 8
    x = rand(2, c, 7, 7)
    p = {"dw.w": rand(c, 1, 3, 3, scale=0.4), "dw.b": rand(c, scale=0.1), "pw.w": rand(m, c, 1, 1, scale=0.4)}
    p.update(bn_params("bn", c))
    nodes = [
        helper.make_node("Conv", ["x", "dw.w", "dw.b"], ["d"], name="depthwise", group=c, pads=[1, 1, 1, 1]),
        bn_node("bn", "d", "bd"),
        helper.make_node("Clip", ["bd", "", "six"], ["r"], name="relu6"),
        helper.make_node("Conv", ["r", "pw.w"], ["y0"], name="pointwise"),
        helper.make_node("Relu", ["y0"], ["y"], name="relu"),
    ]
    p["six"] = np.array(6.0, dtype=np.float32)
    d = bn_apply(p, "bn", conv2d(x, p["dw.w"], p["dw.b"], pad=1, group=c))
    y = relu(conv2d(np.minimum(d, 6.0), p["pw.w"]))
    return nodes, p, {"x": x}, [("y", y)]


def save(out_dir, name, build):
    nodes, params, inputs, outputs = build()
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v.shape) for k, v in inputs.items()],
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v.shape) for k, v in outputs],
        initializer=[init(k, v) for k, v in params.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for i, v in enumerate(inputs.values()):
        np.save(os.path.join(d, f"input_{i}.npy"), v)
    for i, (_, v) in enumerate(outputs):
        np.save(os.path.join(d, f"output_{i}.npy"), v)


if __name__ == "__main__":
    out = sys.argv[1]
    for name, build in [
        ("residual_block", residual_block),
        ("mlp", mlp),
        ("attention", attention),
        ("depthwise_separable", depthwise_separable),
    ]:
        save(out, name, build)
