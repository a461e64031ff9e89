"""Builds small ONNX models with Loop and Scan nodes (onnx helper API) and their reference
outputs from onnxruntime, for onnx/tests/control_flow.rs.

Usage: control_flow_models.py OUT_DIR. For each model NAME writes OUT_DIR/NAME/model.onnx,
input_<i>.npy (seeded random inputs) and expected_<i>.npy (onnxruntime's outputs).
"""

import os
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    sys.exit(f"{os.path.basename(sys.argv[0])}: Python package '{e.name}' is missing; "
             "run scripts/setup.sh and use .venv/bin/python")

import ort_runner

F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def loop_m_only():
    """M = 4 (an initializer), no cond: x <- x * 0.5 + y (y read from the outer graph),
    scanning each iteration's x times the iteration number."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Mul", ["x_in", "half"], ["scaled"]),
            helper.make_node("Add", ["scaled", "y"], ["x_out"]),
            helper.make_node("Cast", ["i"], ["i_f"], to=F),
            helper.make_node("Mul", ["x_out", "i_f"], ["scan"]),
        ],
        "body",
        [vi("i", I64, []), vi("cond_in", B, []), vi("x_in", F, [2, 3])],
        [vi("cond_out", B, []), vi("x_out", F, [2, 3]), vi("scan", F, [2, 3])],
        [const("half", np.float32(0.5))],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["m", "", "x"], ["x_final", "xs"], body=body)],
        "loop_m_only",
        [vi("x", F, [2, 3]), vi("y", F, [2, 3])],
        [vi("x_final", F, [2, 3]), vi("xs", F, [4, 2, 3])],
        [const("m", np.int64(4))],
    )
    return graph, [(2, 3), (2, 3)], 16


def loop_cond_only():
    """No M, cond a graph input (true): s <- s * 1.5 while sum(s) < limit (the limit
    computed in the outer graph); the number of iterations depends on the data."""
    body = helper.make_graph(
        [
            helper.make_node("Mul", ["s_in", "factor"], ["s_out"]),
            helper.make_node("ReduceSum", ["s_out"], ["total"], keepdims=0),
            helper.make_node("Less", ["total", "limit"], ["cond_out"]),
        ],
        "body",
        [vi("i", I64, []), vi("cond_in", B, []), vi("s_in", F, [3])],
        [vi("cond_out", B, []), vi("s_out", F, [3])],
        [const("factor", np.float32(1.5))],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Abs", ["s"], ["s_abs"]),
            helper.make_node("Add", ["s_abs", "one"], ["start"]),
            helper.make_node("Mul", ["hundred", "one"], ["limit"]),
            helper.make_node("Loop", ["", "c", "start"], ["s_final"], body=body),
        ],
        "loop_cond_only",
        [vi("s", F, [3]), vi("c", B, [])],
        [vi("s_final", F, [3])],
        [const("one", np.float32(1.0)), const("hundred", np.float32(100.0))],
    )
    return graph, [(3,), "true"], 16


def loop_m_and_cond():
    """M = 10 and a condition the body computes (stop once the counter reaches 6): the
    loop stops early; two loop-carried values, one of them an int64 counter."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["n_in", "one"], ["n_out"]),
            helper.make_node("Less", ["n_out", "six"], ["cond_out"]),
            helper.make_node("Tanh", ["x_in"], ["t"]),
            helper.make_node("Add", ["t", "x_in"], ["x_out"]),
        ],
        "body",
        [vi("i", I64, []), vi("cond_in", B, []), vi("n_in", I64, []), vi("x_in", F, [4])],
        [vi("cond_out", B, []), vi("n_out", I64, []), vi("x_out", F, [4])],
        [const("one", np.int64(1)), const("six", np.int64(6))],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["m", "c", "n", "x"], ["n_final", "x_final"], body=body)],
        "loop_m_and_cond",
        [vi("x", F, [4])],
        [vi("n_final", I64, []), vi("x_final", F, [4])],
        [const("m", np.int64(10)), const("c", np.bool_(True)), const("n", np.int64(0))],
    )
    return graph, [(4,)], 13


def loop_outer_captures():
    """M and cond given, the body passing cond on: scan outputs of static length 3, the
    body reading a value the outer graph computes (w = Sigmoid(x)) and an outer initializer."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("MatMul", ["acc_in", "w"], ["prod"]),
            helper.make_node("Add", ["prod", "bias"], ["acc_out"]),
            helper.make_node("ReduceMax", ["acc_out"], ["peak"], keepdims=1),
        ],
        "body",
        [vi("i", I64, []), vi("cond_in", B, []), vi("acc_in", F, [2, 2])],
        [vi("cond_out", B, []), vi("acc_out", F, [2, 2]), vi("peak", F, [1, 1])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Sigmoid", ["x"], ["w"]),
            helper.make_node("Loop", ["m", "c", "acc"], ["acc_final", "peaks"], body=body),
        ],
        "loop_outer_captures",
        [vi("x", F, [2, 2]), vi("acc", F, [2, 2])],
        [vi("acc_final", F, [2, 2]), vi("peaks", F, [3, 1, 1])],
        [const("m", np.int64(3)), const("c", np.bool_(True)),
         const("bias", np.array([0.1, -0.2], dtype=np.float32))],
    )
    return graph, [(2, 2), (2, 2)], 13


def loop_slice_by_iteration():
    """M = 3: the body slices an outer tensor at rows [i, i + 1] (Slice bounds computed
    from the iteration number, so the loop is unrolled at import) and accumulates them."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["i", "one"], ["end"]),
            helper.make_node("Unsqueeze", ["i", "axis0"], ["start1"]),
            helper.make_node("Unsqueeze", ["end", "axis0"], ["end1"]),
            helper.make_node("Slice", ["table", "start1", "end1", "axis0"], ["row"]),
            helper.make_node("Add", ["acc_in", "row"], ["acc_out"]),
        ],
        "body",
        [vi("i", I64, []), vi("cond_in", B, []), vi("acc_in", F, [1, 4])],
        [vi("cond_out", B, []), vi("acc_out", F, [1, 4]), vi("row", F, [1, 4])],
        [const("one", np.int64(1)), const("axis0", np.array([0], dtype=np.int64))],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["m", "", "acc"], ["acc_final", "rows"], body=body)],
        "loop_slice_by_iteration",
        [vi("table", F, [3, 4]), vi("acc", F, [1, 4])],
        [vi("acc_final", F, [1, 4]), vi("rows", F, [3, 1, 4])],
        [const("m", np.int64(3))],
    )
    return graph, [(3, 4), (1, 4)], 13


def scan_reversed_axes():
    """Scan (opset 16): one state, two scan inputs (one along axis 1 read in reverse, one
    along axis -1), two scan outputs (one stacked along axis 1, one reversed along axis
    -1), and an outer value read by the body."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "a"], ["sum"]),
            helper.make_node("Mul", ["sum", "b"], ["s_out"]),
            helper.make_node("Sub", ["s_out", "offset"], ["out1"]),
            helper.make_node("Neg", ["a"], ["out2"]),
        ],
        "body",
        [vi("s_in", F, [3]), vi("a", F, [3]), vi("b", F, [3])],
        [vi("s_out", F, [3]), vi("out1", F, [3]), vi("out2", F, [3])],
    )
    scan = helper.make_node(
        "Scan", ["s", "xa", "xb"], ["s_final", "y1", "y2"], body=body, num_scan_inputs=2,
        scan_input_axes=[1, -1], scan_input_directions=[1, 0],
        scan_output_axes=[1, -1], scan_output_directions=[0, 1])
    graph = helper.make_graph(
        [scan],
        "scan_reversed_axes",
        [vi("s", F, [3]), vi("xa", F, [3, 4]), vi("xb", F, [3, 4]), vi("offset", F, [3])],
        [vi("s_final", F, [3]), vi("y1", F, [3, 4]), vi("y2", F, [3, 4])],
    )
    return graph, [(3,), (3, 4), (3, 4), (3,)], 16


def scan_opset8_batch():
    """Scan of opset 8: a batch of 2 sequences of length 3, each scanned on its own."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "x"], ["s_out"]),
            helper.make_node("Mul", ["s_out", "x"], ["y"]),
        ],
        "body",
        [vi("s_in", F, [2]), vi("x", F, [2])],
        [vi("s_out", F, [2]), vi("y", F, [2])],
    )
    scan = helper.make_node("Scan", ["", "s", "x"], ["s_final", "ys"], body=body,
                            num_scan_inputs=1, directions=[1])
    graph = helper.make_graph(
        [scan],
        "scan_opset8_batch",
        [vi("s", F, [2, 2]), vi("x", F, [2, 3, 2])],
        [vi("s_final", F, [2, 2]), vi("ys", F, [2, 3, 2])],
    )
    return graph, [(2, 2), (2, 3, 2)], 8


MODELS = {
    "loop_m_only": loop_m_only,
    "loop_cond_only": loop_cond_only,
    "loop_m_and_cond": loop_m_and_cond,
    "loop_outer_captures": loop_outer_captures,
    "loop_slice_by_iteration": loop_slice_by_iteration,
    "scan_reversed_axes": scan_reversed_axes,
    "scan_opset8_batch": scan_opset8_batch,
}


def main(out_dir):
    rng = np.random.default_rng(7)
    for name, build in MODELS.items():
        graph, inputs, opset = build()
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        onnx.save(model, path)
        values = [np.array(True) if spec == "true" else rng.standard_normal(spec).astype(np.float32)
                  for spec in inputs]
        outputs = ort_runner.run(ort_runner.session(path), values)
        for i, v in enumerate(values):
            np.save(os.path.join(d, f"input_{i}.npy"), v)
        for i, v in enumerate(outputs):
            np.save(os.path.join(d, f"expected_{i}.npy"), v)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
