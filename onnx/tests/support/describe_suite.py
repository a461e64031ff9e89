"""Describes ONNX backend node test cases in a line format that tests/suite_describe.rs
produces too from tb-onnx's reader, so the two can be compared line by line.

Everything here comes from the onnx package's own protobuf decoder and numpy_helper, which
makes it an independent account of what the files contain. Tensor contents are summarized
as the CRC-32 of their little-endian, row-major bytes (numpy's tobytes()).

Usage: describe_suite.py SUITE_DIR [CASE ...]   (all cases when none are named)
"""

import os
import struct
import sys
import zlib

import numpy
import onnx
from onnx import AttributeProto, TensorProto, numpy_helper

# The element types tb-interpreter has; the others are described without contents.
SUPPORTED = {
    TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.BFLOAT16,
    TensorProto.INT8, TensorProto.INT16, TensorProto.INT32, TensorProto.INT64,
    TensorProto.UINT8, TensorProto.UINT16, TensorProto.UINT32, TensorProto.UINT64,
    TensorProto.BOOL,
}


def type_name(code):
    try:
        return TensorProto.DataType.Name(code)
    except ValueError:
        return f"data type {code}"


def f32_bits(x):
    return str(struct.unpack("<I", struct.pack("<f", x))[0])


def shape_text(tensor_type):
    if not tensor_type.HasField("shape"):
        return "*"
    dims = []
    for d in tensor_type.shape.dim:
        which = d.WhichOneof("value")
        if which == "dim_value":
            dims.append(str(d.dim_value))
        elif which == "dim_param" and d.dim_param:
            dims.append(d.dim_param)
        else:
            dims.append("?")
    return ",".join(dims)


def type_text(tp):
    which = tp.WhichOneof("value")
    if which == "tensor_type":
        t = tp.tensor_type
        return f"{type_name(t.elem_type)}[{shape_text(t)}]"
    if which == "sparse_tensor_type":
        t = tp.sparse_tensor_type
        return f"sparse {type_name(t.elem_type)}[{shape_text(t)}]"
    if which == "sequence_type":
        inner = tp.sequence_type
        return "sequence(" + (type_text(inner.elem_type) if inner.HasField("elem_type") else "?") + ")"
    if which == "optional_type":
        inner = tp.optional_type
        return "optional(" + (type_text(inner.elem_type) if inner.HasField("elem_type") else "?") + ")"
    if which == "map_type":
        m = tp.map_type
        value = type_text(m.value_type) if m.HasField("value_type") else "?"
        return f"map({type_name(m.key_type)},{value})"
    return "?"


# ONNX's narrow types, which tb-onnx holds in a wider type that represents each of their
# values exactly (onnx/src/narrow.rs): the contents are described in that wider type.
NARROW = {
    TensorProto.FLOAT8E4M3FN: "float32", TensorProto.FLOAT8E4M3FNUZ: "float32",
    TensorProto.FLOAT8E5M2: "float32", TensorProto.FLOAT8E5M2FNUZ: "float32",
    TensorProto.INT4: "int8", TensorProto.UINT4: "uint8",
}
for _name, _wide in [("FLOAT8E8M0", "float32"), ("FLOAT4E2M1", "float32"),
                     ("INT2", "int8"), ("UINT2", "uint8")]:
    if hasattr(TensorProto, _name):
        NARROW[getattr(TensorProto, _name)] = _wide


def tensor_text(t):
    head = f"{type_name(t.data_type)}[{','.join(str(d) for d in t.dims)}]"
    if t.data_type in NARROW:
        array = numpy_helper.to_array(t).astype(NARROW[t.data_type])
        if array.dtype == "float32":
            # NaNs are compared as one canonical NaN (their sign and payload are not the
            # narrow code's), as tests/suite_describe.rs does.
            array = numpy.where(numpy.isnan(array), numpy.float32("nan"), array)
        return f"{head} {zlib.crc32(array.tobytes()):08x}"
    if t.data_type not in SUPPORTED:
        return head + " -"
    array = numpy_helper.to_array(t)
    return f"{head} {zlib.crc32(array.tobytes()):08x}"


def describe_graph(g, indent, out):
    for vi in g.input:
        out.append(f"{indent}input {vi.name} {type_text(vi.type)}")
    for vi in g.output:
        out.append(f"{indent}output {vi.name} {type_text(vi.type)}")
    for t in g.initializer:
        out.append(f"{indent}initializer {t.name} {tensor_text(t)}")
    for n in g.node:
        op = f"{n.domain}.{n.op_type}" if n.domain else n.op_type
        out.append(f"{indent}node {op} ({','.join(n.input)}) -> ({','.join(n.output)})")
        for a in n.attribute:
            describe_attribute(a, indent + "  ", out)


def describe_attribute(a, indent, out):
    kind = AttributeProto.AttributeType.Name(a.type)
    prefix = f"{indent}attr {a.name} {kind}"
    if a.type == AttributeProto.INT:
        out.append(f"{prefix} {a.i}")
    elif a.type == AttributeProto.FLOAT:
        out.append(f"{prefix} {f32_bits(a.f)}")
    elif a.type == AttributeProto.STRING:
        out.append(f"{prefix} {a.s.hex()}")
    elif a.type == AttributeProto.INTS:
        out.append(f"{prefix} {','.join(str(i) for i in a.ints)}")
    elif a.type == AttributeProto.FLOATS:
        out.append(f"{prefix} {','.join(f32_bits(f) for f in a.floats)}")
    elif a.type == AttributeProto.STRINGS:
        out.append(f"{prefix} {','.join(s.hex() for s in a.strings)}")
    elif a.type == AttributeProto.TENSOR:
        out.append(f"{prefix} {tensor_text(a.t)}")
    elif a.type == AttributeProto.GRAPH:
        out.append(prefix)
        describe_graph(a.g, indent + "  ", out)
    else:
        out.append(f"{prefix} ?")


def value_text(path, tp):
    which = tp.WhichOneof("value")
    if which == "tensor_type":
        t = TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        return tensor_text(t)
    return {
        "sequence_type": "sequence",
        "optional_type": "optional",
        "map_type": "map",
        "sparse_tensor_type": "sparse tensor",
    }.get(which, "?")


def describe_case(root, name, out):
    case = os.path.join(root, name)
    m = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False)
    out.append(f"case {name}")
    out.append(f"ir {m.ir_version}")
    opsets = sorted((o.domain or "ai.onnx", o.version) for o in m.opset_import)
    for domain, version in opsets:
        out.append(f"opset {domain} {version}")
    describe_graph(m.graph, "", out)
    initializers = {t.name for t in m.graph.initializer}
    inputs = [vi for vi in m.graph.input if vi.name not in initializers]
    data = os.path.join(case, "test_data_set_0")
    for prefix, values in (("input", inputs), ("output", m.graph.output)):
        for i, vi in enumerate(values):
            path = os.path.join(data, f"{prefix}_{i}.pb")
            out.append(f"{prefix}_{i}.pb {value_text(path, vi.type)}")


def main():
    root = sys.argv[1]
    names = sys.argv[2:] or sorted(
        n for n in os.listdir(root) if os.path.isfile(os.path.join(root, n, "model.onnx"))
    )
    out = []
    for name in names:
        describe_case(root, name, out)
    sys.stdout.write("\n".join(out) + "\n")


main()
