"""Writes the fixtures tests/tensors.rs and tests/external_data.rs read, into OUT_DIR:

- tensors/<name>.pb and <name>.npy: one TensorProto per element type tb-interpreter has and
  per storage ONNX allows for it (raw_data, or the typed field: float_data, int32_data,
  int64_data, double_data, uint64_data), holding edge values (extremes, NaN, infinities,
  -0.0, subnormals), plus scalar and empty shapes; the .npy holds what onnx's numpy_helper
  decodes the proto to.
- external/model.onnx with its initializers and a Constant's tensor attribute saved as
  external data in external/weights/data.bin, and initializers/<name>.npy with their values.

Usage: make_fixtures.py OUT_DIR
"""

import os
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]

F32 = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-45, 3.4028235e38, 1e-38],
               dtype=np.float32)
F64 = np.array([0.0, -0.0, np.pi, -1e308, np.inf, -np.inf, np.nan, 5e-324], dtype=np.float64)


def ints(dtype):
    info = np.iinfo(dtype)
    return np.array([info.min, info.max, 0, 1, info.max // 3, info.min // 5 if info.min else 7],
                    dtype=dtype)


VALUES = {
    "float32": (TensorProto.FLOAT, F32),
    "float64": (TensorProto.DOUBLE, F64),
    "float16": (TensorProto.FLOAT16, np.array(
        [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 6e-8, 65504.0, 1e-5], dtype=np.float16)),
    "bfloat16": (TensorProto.BFLOAT16, F32.astype(ml_dtypes.bfloat16)),
    "int8": (TensorProto.INT8, ints(np.int8)),
    "int16": (TensorProto.INT16, ints(np.int16)),
    "int32": (TensorProto.INT32, ints(np.int32)),
    "int64": (TensorProto.INT64, ints(np.int64)),
    "uint8": (TensorProto.UINT8, ints(np.uint8)),
    "uint16": (TensorProto.UINT16, ints(np.uint16)),
    "uint32": (TensorProto.UINT32, ints(np.uint32)),
    "uint64": (TensorProto.UINT64, ints(np.uint64)),
    "bool": (TensorProto.BOOL, np.array([True, False, False, True, True, False])),
}


def typed_field(tensor):
    fields = ["float_data", "int32_data", "int64_data", "double_data", "uint64_data"]
    used = [f for f in fields if len(getattr(tensor, f))]
    assert len(used) == 1 and not tensor.raw_data, (tensor.name, used)
    return used[0]


def save_pair(directory, name, tensor, source):
    decoded = numpy_helper.to_array(tensor)
    # numpy_helper is the reference here; make sure it agrees with the source array.
    assert decoded.dtype == source.dtype and decoded.shape == source.shape, name
    assert decoded.tobytes() == source.tobytes(), name
    with open(os.path.join(directory, name + ".pb"), "wb") as f:
        f.write(tensor.SerializeToString())
    np.save(os.path.join(directory, name + ".npy"), decoded)


def tensors():
    directory = os.path.join(OUT, "tensors")
    os.makedirs(directory)
    for name, (code, flat) in VALUES.items():
        shaped = {
            "vector": flat,
            "matrix": flat[: len(flat) // 2 * 2].reshape(2, -1),
            "scalar": flat[:1].reshape(()),
            "empty": flat[:0].reshape(0, 3),
        }
        for shape_name, array in shaped.items():
            array = np.ascontiguousarray(array)
            raw = numpy_helper.from_array(array, name=f"{name}_{shape_name}")
            assert raw.data_type == code and (raw.raw_data or array.size == 0), name
            save_pair(directory, f"{name}_{shape_name}_raw", raw, array)
            if array.size == 0:
                continue
            # make_tensor with raw=False fills the typed field ONNX assigns to the type
            # (float16/bfloat16 as their bit patterns in int32_data).
            typed = helper.make_tensor(f"{name}_{shape_name}", code, array.shape,
                                       array.flatten())
            field = typed_field(typed)
            save_pair(directory, f"{name}_{shape_name}_{field}", typed, array)


def external():
    directory = os.path.join(OUT, "external")
    expected = os.path.join(directory, "initializers")
    os.makedirs(expected)
    rng = np.random.default_rng(7)
    initializers = []
    for name, (code, flat) in VALUES.items():
        array = np.resize(flat, (3, 5))
        if name == "float32":
            array = rng.standard_normal((4, 3, 5)).astype(np.float32)
        initializers.append(numpy_helper.from_array(array, name=f"w_{name}"))
        np.save(os.path.join(expected, f"w_{name}.npy"), array)
    value = np.arange(12, dtype=np.int64).reshape(3, 4)
    np.save(os.path.join(expected, "constant_value.npy"), value)
    nodes = [
        helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(value)),
        helper.make_node("Identity", ["w_float32"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "external", [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3, 5]),
         helper.make_tensor_value_info("c", TensorProto.INT64, [3, 4])],
        initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    os.makedirs(os.path.join(directory, "weights"))
    onnx.save_model(model, os.path.join(directory, "model.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights/data.bin",
                    size_threshold=0, convert_attribute=True)


tensors()
external()
