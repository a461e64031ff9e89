"""Builds single-node ConvInteger and QLinearConv models with seeded random 8-bit data,
their exact results, and onnxruntime's where it runs them.

Usage: qconv_cases.py OUT_DIR [--seed 0]

For each case NAME (one per line of CASES: signedness of the input and the weights,
per-tensor or per-channel zero points and scales, groups, strides, pads, dilations,
auto_pad, 1-D/2-D/3-D, batch, bias, a zero point given at run time) writes
OUT_DIR/NAME/model.onnx, input_<i>.npy, expected_0.npy (the exact result: the
convolution in int64, QLinearConv's requantization as ONNX's reference computes it: the
multiplier `x_scale * w_scale / y_scale` in float32, the scaled sum in float64, rounded
half to even and saturated) and, when onnxruntime runs the model, ort_0.npy; and prints
one line per case with onnxruntime's largest difference from the exact result.
"""

import argparse
import os
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    sys.exit(f"{os.path.basename(sys.argv[0])}: Python package '{e.name}' is missing; "
             "run scripts/setup.sh and use .venv/bin/python")

# name: (op, x type, w type, N, C, M, spatial, kernel, attributes, options)
# options: "wzp" w zero point (per tensor), "wzp_channel" per output channel, "xzp0" a
# zero x zero point, "scale_channel" per-channel w_scale, "bias", "xzp_input" the x zero
# point as a graph input.
CASES = {
    "int_u8s8_3x3_pad": ("ConvInteger", "u8", "s8", 1, 8, 16, (9, 9), (3, 3), {"pads": [1, 1, 1, 1]}, "wzp"),
    "int_u8u8_1x1": ("ConvInteger", "u8", "u8", 1, 16, 32, (7, 7), (1, 1), {}, "wzp_channel"),
    "int_s8s8_stride_dilation": ("ConvInteger", "s8", "s8", 2, 6, 40, (11, 10), (3, 2),
                                 {"strides": [2, 1], "dilations": [1, 2], "pads": [2, 0, 1, 1]}, "wzp_channel"),
    "int_u8s8_group2": ("ConvInteger", "u8", "s8", 1, 8, 16, (6, 6), (3, 3), {"group": 2, "pads": [1, 1, 1, 1]}, "wzp_channel"),
    "int_u8s8_depthwise": ("ConvInteger", "u8", "s8", 1, 12, 12, (8, 8), (3, 3), {"group": 12, "pads": [1, 1, 1, 1]}, "wzp"),
    "int_u8s8_same_upper": ("ConvInteger", "u8", "s8", 1, 5, 17, (8, 7), (3, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}, ""),
    "int_u8s8_1d": ("ConvInteger", "u8", "s8", 2, 7, 48, (15,), (4,), {"pads": [2, 1], "strides": [2]}, "wzp"),
    "int_u8s8_3d": ("ConvInteger", "u8", "s8", 1, 3, 32, (5, 6, 4), (3, 2, 2), {"pads": [1, 0, 1, 1, 1, 0]}, "wzp_channel"),
    "int_u8s8_xzp_input": ("ConvInteger", "u8", "s8", 1, 4, 32, (6, 6), (3, 3), {"pads": [1, 1, 1, 1]}, "wzp xzp_input"),
    "int_u8s8_no_zero_points": ("ConvInteger", "u8", "s8", 1, 9, 16, (5, 5), (2, 2), {}, "xzp0"),
    "q_u8s8_3x3": ("QLinearConv", "u8", "s8", 1, 16, 32, (10, 10), (3, 3), {"pads": [1, 1, 1, 1]}, "bias"),
    "q_u8s8_per_channel": ("QLinearConv", "u8", "s8", 1, 8, 24, (9, 9), (3, 3),
                           {"pads": [1, 1, 1, 1], "strides": [2, 2]}, "scale_channel bias"),
    "q_s8s8_per_channel_zp": ("QLinearConv", "s8", "s8", 2, 6, 16, (7, 8), (3, 3),
                              {"pads": [0, 1, 2, 1], "dilations": [2, 1]}, "scale_channel wzp_channel"),
    "q_u8u8_group": ("QLinearConv", "u8", "u8", 1, 8, 16, (6, 6), (3, 3), {"group": 4, "pads": [1, 1, 1, 1]}, "wzp bias"),
    "q_u8s8_depthwise": ("QLinearConv", "u8", "s8", 1, 16, 16, (8, 8), (3, 3),
                         {"group": 16, "pads": [1, 1, 1, 1]}, "scale_channel bias"),
    "q_u8s8_1x1_leftover": ("QLinearConv", "u8", "s8", 1, 20, 19, (5, 5), (1, 1), {}, "bias"),
}

DTYPES = {"u8": (np.uint8, TensorProto.UINT8), "s8": (np.int8, TensorProto.INT8)}


def random_of(rng, kind, shape):
    info = np.iinfo(DTYPES[kind][0])
    return rng.integers(info.min, info.max + 1, shape).astype(DTYPES[kind][0])


def geometry(spatial, kernel, attrs):
    """Resolved begin/end pads and output sizes, as ONNX defines them."""
    ns = len(spatial)
    strides = attrs.get("strides", [1] * ns)
    dilations = attrs.get("dilations", [1] * ns)
    auto_pad = attrs.get("auto_pad", "NOTSET")
    begin, end, out = [], [], []
    for d in range(ns):
        reach = (kernel[d] - 1) * dilations[d] + 1
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-spatial[d] // strides[d])
            total = max(0, (o - 1) * strides[d] + reach - spatial[d])
            small, large = total // 2, total - total // 2
            b, e = (small, large) if auto_pad == "SAME_UPPER" else (large, small)
        else:
            pads = attrs.get("pads", [0] * 2 * ns)
            b, e = pads[d], pads[ns + d]
        begin.append(b)
        end.append(e)
        out.append((spatial[d] + b + e - reach) // strides[d] + 1)
    return begin, end, out, strides, dilations


def exact_conv(x, x_zp, w, w_zp, attrs):
    """The convolution of the centered operands in int64 (padding contributes zero)."""
    n, c = x.shape[:2]
    m = w.shape[0]
    kernel = w.shape[2:]
    group = attrs.get("group", 1)
    begin, end, out, strides, dilations = geometry(x.shape[2:], kernel, attrs)
    xc = x.astype(np.int64) - int(x_zp)
    wc = w.astype(np.int64) - np.asarray(w_zp, dtype=np.int64).reshape((-1,) + (1,) * (w.ndim - 1))
    xp = np.pad(xc, [(0, 0), (0, 0)] + list(zip(begin, end)))
    y = np.zeros((n, m) + tuple(out), dtype=np.int64)
    cg, mg = c // group, m // group
    for tap in np.ndindex(*kernel):
        window = tuple(
            slice(tap[d] * dilations[d], tap[d] * dilations[d] + (out[d] - 1) * strides[d] + 1, strides[d])
            for d in range(len(kernel)))
        xs = xp[(slice(None), slice(None)) + window]  # [N, C, out...]
        for g in range(group):
            wg = wc[g * mg:(g + 1) * mg, :, *tap]  # [Mg, Cg]
            y[:, g * mg:(g + 1) * mg] += np.einsum("mc,nc...->nm...", wg, xs[:, g * cg:(g + 1) * cg])
    return y


def build(name, spec, rng):
    op, x_kind, w_kind, n, c, m, spatial, kernel, attrs, options = spec
    options = options.split()
    group = attrs.get("group", 1)
    x = random_of(rng, x_kind, (n, c) + tuple(spatial))
    w = random_of(rng, w_kind, (m, c // group) + tuple(kernel))
    x_zp = np.array(0 if "xzp0" in options else random_of(rng, x_kind, ()), dtype=DTYPES[x_kind][0])
    if "wzp_channel" in options:
        w_zp = random_of(rng, w_kind, (m,))
    elif "wzp" in options:
        w_zp = np.array(random_of(rng, w_kind, ()), dtype=DTYPES[w_kind][0])
    else:
        w_zp = np.array(0, dtype=DTYPES[w_kind][0])
    node_attrs = {k: v for k, v in attrs.items()}
    node_attrs["kernel_shape"] = list(kernel)
    initializers = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(w_zp, "w_zp")]
    inputs = [helper.make_tensor_value_info("x", DTYPES[x_kind][1], list(x.shape))]
    feeds = [x]
    if "xzp_input" in options:
        inputs.append(helper.make_tensor_value_info("x_zp", DTYPES[x_kind][1], []))
        feeds.append(x_zp)
    else:
        initializers.append(numpy_helper.from_array(x_zp, "x_zp"))
    total = exact_conv(x, x_zp, w, w_zp, attrs)
    if op == "ConvInteger":
        node = helper.make_node(op, ["x", "w", "x_zp", "w_zp"], ["y"], **node_attrs)
        out_type, expected = TensorProto.INT32, total.astype(np.int32)
    else:
        x_scale = np.array(rng.uniform(0.01, 0.05), dtype=np.float32)
        w_scale = (rng.uniform(0.002, 0.02, (m,)) if "scale_channel" in options
                   else np.array(rng.uniform(0.002, 0.02))).astype(np.float32)
        y_scale = np.array(rng.uniform(0.5, 4.0), dtype=np.float32)
        y_zp = np.array(random_of(rng, x_kind, ()), dtype=DTYPES[x_kind][0])
        names = ["x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"]
        initializers += [numpy_helper.from_array(x_scale, "x_scale"),
                         numpy_helper.from_array(w_scale, "w_scale"),
                         numpy_helper.from_array(y_scale, "y_scale"),
                         numpy_helper.from_array(y_zp, "y_zp")]
        if "bias" in options:
            bias = rng.integers(-5000, 5000, (m,)).astype(np.int32)
            initializers.append(numpy_helper.from_array(bias, "bias"))
            names.append("bias")
            total = total + bias.astype(np.int64).reshape((m,) + (1,) * len(spatial))
        node = helper.make_node(op, names, ["y"], **node_attrs)
        multiplier = (x_scale * w_scale / y_scale).astype(np.float32).astype(np.float64)
        if multiplier.ndim:
            multiplier = multiplier.reshape((m,) + (1,) * len(spatial))
        info = np.iinfo(DTYPES[x_kind][0])
        scaled = np.rint(total * multiplier) + int(y_zp)
        out_type = DTYPES[x_kind][1]
        expected = np.clip(scaled, info.min, info.max).astype(DTYPES[x_kind][0])
    graph = helper.make_graph([node], name, inputs,
                              [helper.make_tensor_value_info("y", out_type, list(expected.shape))],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, feeds, expected


def run_ort(path, feeds, names):
    try:
        import onnxruntime as ort
        ort.set_default_logger_severity(4)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        return session.run(None, dict(zip(names, feeds)))[0]
    except Exception as e:  # onnxruntime lacks some type combinations
        return str(e).splitlines()[0][:100]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    for i, (name, spec) in enumerate(CASES.items()):
        rng = np.random.default_rng(args.seed * 1000 + i)
        model, feeds, expected = build(name, spec, rng)
        directory = os.path.join(args.out_dir, name)
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "model.onnx")
        onnx.save(model, path)
        for k, feed in enumerate(feeds):
            np.save(os.path.join(directory, f"input_{k}.npy"), feed)
        np.save(os.path.join(directory, "expected_0.npy"), expected)
        ort_out = run_ort(path, feeds, [v.name for v in model.graph.input])
        if isinstance(ort_out, str):
            print(f"{name}: onnxruntime does not run it ({ort_out})")
            continue
        np.save(os.path.join(directory, "ort_0.npy"), ort_out)
        diff = np.abs(ort_out.astype(np.int64) - expected.astype(np.int64)).max()
        print(f"{name}: onnxruntime differs from the exact result by at most {diff}")


if __name__ == "__main__":
    main()
