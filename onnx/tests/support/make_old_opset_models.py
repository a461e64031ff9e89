"""Writes one small model per opset-conversion rule of the importer (onnx/src/import/
version_convert.rs), at the old opsets the rule converts from, with seeded random inputs
and onnxruntime's outputs, into OUT_DIR:

    OUT_DIR/<case>/model.onnx, input_<i>.npy, output_<i>.npy

Also cases for operators whose older versions need no conversion (Gemm, Cast, MaxPool,
AveragePool, ArgMax, Max) so that every opset 7-12 spelling the importer reads is run.

Usage: make_old_opset_models.py OUT_DIR
"""

import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
RNG = np.random.default_rng(20261126)

F = TensorProto.FLOAT
I64 = TensorProto.INT64

ONNX_TYPE = {np.float32: F, np.int64: I64}


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


class Case:
    """One model: nodes over named inputs (with values) and initializers."""

    def __init__(self, opset):
        self.opset = opset
        self.nodes = []
        self.inputs = []  # (name, array)
        self.inits = []
        self.outputs = []  # names

    def input(self, name, array):
        self.inputs.append((name, array))
        return name

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, outputs, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, **attrs))

    def output(self, *names, types=None):
        """Graph outputs, FLOAT unless `types` gives each one's element type."""
        self.outputs.extend(zip(names, types or [F] * len(names)))


def build(case, output_shapes):
    # The oldest IR version each opset allows, as exporters of the time wrote; before IR 4
    # every initializer is also a graph input.
    ir_version = {7: 3, 8: 3, 9: 4, 10: 5, 11: 6, 12: 7}[case.opset]
    listed = case.inputs + ([(t.name, numpy_helper.to_array(t)) for t in case.inits]
                            if ir_version < 4 else [])
    graph = helper.make_graph(
        case.nodes,
        "old_opset",
        [helper.make_tensor_value_info(n, ONNX_TYPE[a.dtype.type], a.shape)
         for n, a in listed],
        [helper.make_tensor_value_info(n, t, s) for (n, t), s in zip(case.outputs, output_shapes)],
        case.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", case.opset)])
    model.ir_version = ir_version
    return model


def write(name, case):
    # onnxruntime runs the model with undeclared output shapes; the file declares the
    # shapes it computed, so that the checker's full check passes.
    unshaped = build(case, [None] * len(case.outputs)).SerializeToString()
    session = ort.InferenceSession(unshaped, providers=["CPUExecutionProvider"])
    results = session.run(None, {n: a for n, a in case.inputs})
    model = build(case, [r.shape for r in results])
    onnx.checker.check_model(model, full_check=True)
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for i, (_, a) in enumerate(case.inputs):
        np.save(os.path.join(d, f"input_{i}.npy"), a)
    for i, r in enumerate(results):
        np.save(os.path.join(d, f"output_{i}.npy"), r)


CASES = {}


def case(name, opsets):
    def register(build):
        for opset in opsets:
            CASES[f"{name}_opset{opset}"] = (build, opset)
        return build
    return register


# --- Softmax, LogSoftmax, Hardmax before 13: coerced to 2-D at `axis` ---------------------

@case("softmax_axis1_rank3", [7, 11, 12])
def _(c):
    c.node("Softmax", [c.input("x", rand(2, 3, 4))], ["y"], axis=1)
    c.output("y")


@case("logsoftmax_default_axis_rank4", [9, 12])
def _(c):
    c.node("LogSoftmax", [c.input("x", rand(2, 3, 2, 2))], ["y"])
    c.output("y")


@case("hardmax_axis0_rank3", [11])
def _(c):
    c.node("Hardmax", [c.input("x", rand(2, 3, 4))], ["y"], axis=0)
    c.output("y")


@case("softmax_last_axis", [8])
def _(c):
    c.node("Softmax", [c.input("x", rand(3, 5))], ["y"])
    c.output("y")


# --- TopK before 10: `k` is an attribute -----------------------------------------------

@case("topk_k_attribute", [7, 9])
def _(c):
    c.node("TopK", [c.input("x", rand(3, 6))], ["values", "indices"], k=3, axis=1)
    c.output("values", "indices", types=[F, I64])


# --- Slice before 10: `starts`, `ends`, `axes` attributes -------------------------------

@case("slice_attributes", [7, 9])
def _(c):
    c.node("Slice", [c.input("x", rand(4, 5, 6))], ["y"], starts=[1, -4], ends=[3, 100],
           axes=[0, 2])
    c.output("y")


@case("slice_attributes_no_axes", [8])
def _(c):
    c.node("Slice", [c.input("x", rand(4, 5))], ["y"], starts=[1, 0], ends=[-1, 3])
    c.output("y")


# --- Pad before 11: `pads` and `value` attributes --------------------------------------

@case("pad_constant_attributes", [7, 10])
def _(c):
    c.node("Pad", [c.input("x", rand(2, 3))], ["y"], pads=[0, 1, 2, 0], value=1.5)
    c.output("y")


@case("pad_reflect_attributes", [9])
def _(c):
    c.node("Pad", [c.input("x", rand(1, 3, 4))], ["y"], mode="reflect", pads=[0, 0, 2, 0, 1, 1])
    c.output("y")


# --- Clip before 11: `min` and `max` attributes ----------------------------------------

@case("clip_attributes", [7, 10])
def _(c):
    c.node("Clip", [c.input("x", rand(3, 4))], ["y"], min=-0.5, max=0.75)
    c.output("y")


@case("clip_min_attribute_only", [9])
def _(c):
    c.node("Clip", [c.input("x", rand(3, 4))], ["y"], min=0.1)
    c.output("y")


# --- Split before 13: `split` attribute ------------------------------------------------

@case("split_attribute", [7, 11, 12])
def _(c):
    c.node("Split", [c.input("x", rand(2, 7))], ["a", "b", "c"], axis=1, split=[2, 4, 1])
    c.output("a", "b", "c")


@case("split_equal", [8])
def _(c):
    c.node("Split", [c.input("x", rand(6, 2))], ["a", "b"])
    c.output("a", "b")


# --- Squeeze/Unsqueeze before 13: `axes` attribute --------------------------------------

@case("squeeze_axes_attribute", [7, 11])
def _(c):
    axes = [0, 2] if c.opset < 11 else [0, -2]
    c.node("Squeeze", [c.input("x", rand(1, 3, 1, 4))], ["y"], axes=axes)
    c.output("y")


@case("unsqueeze_axes_attribute", [7, 12])
def _(c):
    axes = [0, 3] if c.opset < 11 else [0, -1]
    c.node("Unsqueeze", [c.input("x", rand(3, 4))], ["y"], axes=axes)
    c.output("y")


# --- ReduceSum before 13: `axes` attribute (the other reductions keep it until 18) -------

@case("reduce_sum_axes_attribute", [7, 11, 12])
def _(c):
    c.node("ReduceSum", [c.input("x", rand(2, 3, 4))], ["y"], axes=[0, 2], keepdims=0)
    c.output("y")


@case("reduce_mean_axes_attribute", [9])
def _(c):
    c.node("ReduceMean", [c.input("x", rand(2, 3, 4))], ["y"], axes=[1])
    c.output("y")


# --- Dropout before 12: `ratio` attribute; before 10 the mask has the data's type --------

@case("dropout_ratio_attribute", [7, 10])
def _(c):
    c.node("Dropout", [c.input("x", rand(2, 3))], ["d"], ratio=0.3)
    c.node("Relu", ["d"], ["y"])
    c.output("y")


@case("dropout_mask", [7, 10, 11])
def _(c):
    c.node("Dropout", [c.input("x", rand(2, 3))], ["y", "mask"], ratio=0.25)
    c.output("y", "mask", types=[F, F if c.opset < 10 else TensorProto.BOOL])


# --- BatchNormalization before 9: `spatial`; `momentum` is for training ----------------

def batch_norm_case(c, spatial):
    # `spatial` = 0 (statistics per element) is left out: onnxruntime refuses it too.
    x = c.input("x", rand(2, 3, 4, 2))
    stat_shape = (3,)
    names = [c.init(n, v) for n, v in [
        ("scale", rand(*stat_shape)), ("bias", rand(*stat_shape)),
        ("mean", rand(*stat_shape)),
        ("var", (RNG.random(stat_shape) + 0.5).astype(np.float32))]]
    attrs = {"epsilon": 1e-3, "momentum": 0.8}
    if spatial is not None:
        attrs["spatial"] = spatial
    c.node("BatchNormalization", [x] + names, ["y"], **attrs)
    c.output("y")


@case("batch_norm_spatial", [7, 8])
def _(c):
    batch_norm_case(c, 1)


@case("batch_norm_momentum", [9])
def _(c):
    batch_norm_case(c, None)


# --- Scatter (9-10, deprecated in 11) is ScatterElements --------------------------------

@case("scatter", [9, 10])
def _(c):
    x = c.input("x", rand(3, 4))
    idx = c.init("idx", np.array([[1, 0, 2, 0], [2, 1, 0, 1]], dtype=np.int64))
    upd = c.input("upd", rand(2, 4))
    c.node("Scatter", [x, idx, upd], ["y"], axis=0)
    c.output("y")


# --- Upsample (7: `scales` attribute; 9: input) and Resize 10: asymmetric, floor --------

@case("upsample_nearest", [7, 8])
def _(c):
    c.node("Upsample", [c.input("x", rand(1, 2, 2, 3))], ["y"], mode="nearest",
           scales=[1.0, 1.0, 2.0, 3.0])
    c.output("y")


@case("upsample_linear", [7])
def _(c):
    c.node("Upsample", [c.input("x", rand(1, 2, 3, 3))], ["y"], mode="linear",
           scales=[1.0, 1.0, 2.0, 2.0])
    c.output("y")


@case("upsample_scales_input", [9])
def _(c):
    scales = c.init("scales", np.array([1.0, 1.0, 2.0, 1.5], dtype=np.float32))
    c.node("Upsample", [c.input("x", rand(1, 2, 2, 4)), scales], ["y"], mode="nearest")
    c.output("y")


@case("upsample_linear_scales_input", [9])
def _(c):
    scales = c.init("scales", np.array([1.0, 1.0, 3.0, 2.0], dtype=np.float32))
    c.node("Upsample", [c.input("x", rand(1, 1, 2, 3)), scales], ["y"], mode="linear")
    c.output("y")


@case("resize_scales_only", [10])
def _(c):
    scales = c.init("scales", np.array([1.0, 1.0, 2.0, 2.5], dtype=np.float32))
    c.node("Resize", [c.input("x", rand(1, 2, 3, 2)), scales], ["y"], mode="nearest")
    c.output("y")


@case("resize_linear_scales_only", [10])
def _(c):
    scales = c.init("scales", np.array([1.0, 1.0, 0.6, 2.0], dtype=np.float32))
    c.node("Resize", [c.input("x", rand(1, 2, 5, 3)), scales], ["y"], mode="linear")
    c.output("y")


@case("resize_nearest_downsample", [10])
def _(c):
    scales = c.init("scales", np.array([1.0, 1.0, 0.6, 0.5], dtype=np.float32))
    c.node("Resize", [c.input("x", rand(1, 2, 5, 6)), scales], ["y"], mode="nearest")
    c.output("y")


@case("resize_tf_half_pixel_for_nn", [11, 12])
def _(c):
    roi = c.init("roi", np.array([], dtype=np.float32))
    scales = c.init("scales", np.array([1.0, 1.0, 1.7, 0.6], dtype=np.float32))
    attrs = {"coordinate_transformation_mode": "tf_half_pixel_for_nn"}
    if c.opset == 12:
        attrs["nearest_mode"] = "floor"
    c.node("Resize", [c.input("x", rand(1, 2, 4, 6)), roi, scales], ["y"], mode="nearest",
           **attrs)
    c.output("y")


@case("resize_coordinate_modes", [11])
def _(c):
    roi = c.init("roi", np.array([], dtype=np.float32))
    scales = c.init("scales", np.array([1.0, 1.0, 2.0, 1.5], dtype=np.float32))
    c.node("Resize", [c.input("x", rand(1, 1, 3, 4)), roi, scales], ["y"], mode="linear",
           coordinate_transformation_mode="align_corners")
    c.output("y")


# --- Older versions that need no conversion --------------------------------------------

@case("gemm_bias_broadcast", [7, 9])
def _(c):
    c.node("Gemm", [c.input("a", rand(4, 3)), c.input("b", rand(5, 4)), c.init("c", rand(5))],
           ["y"], transA=1, transB=1, alpha=0.5, beta=2.0)
    c.output("y")


@case("cast_float_to_int64", [7])
def _(c):
    c.node("Cast", [c.input("x", rand(3, 4) * 4)], ["y"], to=I64)
    c.output("y", types=[I64])


@case("max_pool", [7, 8, 10])
def _(c):
    attrs = {"kernel_shape": [2, 2], "strides": [2, 1], "pads": [0, 1, 1, 0]}
    if c.opset >= 10:
        attrs["ceil_mode"] = 1
    c.node("MaxPool", [c.input("x", rand(1, 2, 5, 5))], ["y"], **attrs)
    c.output("y")


@case("average_pool_count_include_pad", [7, 10])
def _(c):
    c.node("AveragePool", [c.input("x", rand(1, 2, 4, 4))], ["y"], kernel_shape=[3, 3],
           pads=[1, 1, 1, 1], count_include_pad=1)
    c.output("y")


@case("argmax_keepdims", [7, 11])
def _(c):
    c.node("ArgMax", [c.input("x", rand(3, 5))], ["y"], axis=1, keepdims=1)
    c.output("y", types=[I64])


@case("max_broadcast", [8])
def _(c):
    c.node("Max", [c.input("a", rand(3, 1)), c.input("b", rand(1, 4))], ["y"])
    c.output("y")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, (build, opset) in sorted(CASES.items()):
        c = Case(opset)
        build(c)
        write(name, c)
    print(len(CASES))


main()
