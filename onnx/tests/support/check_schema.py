"""Checks our proto3 schema (onnx/proto/onnx.proto) against the onnx package's compiled
descriptors: every message, field and enum value we define must exist upstream with the same
number, type, cardinality and oneof. Field numbers are the wire format, so one wrong number
would silently misread models.

Usage: check_schema.py PATH_TO_OUR_PROTO     (exits 1 and lists the differences on mismatch)
"""

import re
import sys

from google.protobuf.descriptor import FieldDescriptor
from onnx import onnx_data_pb2, onnx_ml_pb2

SCALARS = {
    "double": FieldDescriptor.TYPE_DOUBLE,
    "float": FieldDescriptor.TYPE_FLOAT,
    "int64": FieldDescriptor.TYPE_INT64,
    "uint64": FieldDescriptor.TYPE_UINT64,
    "int32": FieldDescriptor.TYPE_INT32,
    "bool": FieldDescriptor.TYPE_BOOL,
    "string": FieldDescriptor.TYPE_STRING,
    "bytes": FieldDescriptor.TYPE_BYTES,
}


def is_repeated(field):
    # protobuf 6+ has is_repeated; older versions only the label.
    if hasattr(field, "is_repeated"):
        return field.is_repeated
    return field.label == FieldDescriptor.LABEL_REPEATED


def upstream(path):
    """The official descriptor of message `path` ("TypeProto.Tensor")."""
    top, *nested = path.split(".")
    for module in (onnx_ml_pb2, onnx_data_pb2):
        if top in module.DESCRIPTOR.message_types_by_name:
            d = module.DESCRIPTOR.message_types_by_name[top]
            for name in nested:
                d = d.nested_types_by_name[name]
            return d
    raise KeyError(path)


def parse(text):
    """Yields ("field", message, oneof, repeated, type, name, number) and
    ("enum", enum path, name, number) from our schema."""
    text = re.sub(r"//[^\n]*", "", text)
    scopes = []  # (kind, name)
    for token in re.finditer(r"(message|enum|oneof)\s+(\w+)\s*\{|\}|([^;{}]+);", text):
        if token.group(1):
            scopes.append((token.group(1), token.group(2)))
        elif token.group(0) == "}":
            scopes.pop()
        else:
            statement = token.group(3).strip()
            if not scopes or statement.startswith(("syntax", "package", "reserved")):
                continue
            messages = [n for k, n in scopes if k in ("message", "enum")]
            kind = scopes[-1][0]
            if kind == "enum":
                name, number = re.fullmatch(r"(\w+)\s*=\s*(-?\d+)", statement).groups()
                yield ("enum", ".".join(messages), name, int(number))
                continue
            m = re.fullmatch(r"(repeated\s+)?([\w.]+)\s+(\w+)\s*=\s*(\d+)", statement)
            if not m:
                raise SystemExit(f"cannot parse: {statement!r}")
            oneof = scopes[-1][1] if kind == "oneof" else None
            yield ("field", ".".join(messages), oneof, bool(m.group(1)), m.group(2),
                   m.group(3), int(m.group(4)))


def main():
    with open(sys.argv[1]) as f:
        items = list(parse(f.read()))
    problems = []
    fields = enums = 0
    for item in items:
        if item[0] == "enum":
            _, path, name, number = item
            enums += 1
            owner, enum = path.rsplit(".", 1)
            values = upstream(owner).enum_types_by_name[enum].values_by_name
            if name not in values:
                problems.append(f"{path}.{name}: no such value upstream")
            elif values[name].number != number:
                problems.append(f"{path}.{name} = {number}, upstream {values[name].number}")
            continue
        _, message, oneof, repeated, ty, name, number = item
        fields += 1
        where = f"{message}.{name}"
        official = upstream(message).fields_by_name.get(name)
        if official is None:
            problems.append(f"{where}: no such field upstream")
            continue
        if official.number != number:
            problems.append(f"{where} = {number}, upstream {official.number}")
        if is_repeated(official) != repeated:
            problems.append(f"{where}: repeated={repeated} differs from upstream")
        if ty in SCALARS:
            if official.type != SCALARS[ty]:
                problems.append(f"{where}: type {ty} differs from upstream ({official.type})")
        else:
            target = official.message_type or official.enum_type
            if target is None or target.name != ty.split(".")[-1]:
                problems.append(f"{where}: type {ty} differs from upstream")
        upstream_oneof = official.containing_oneof.name if official.containing_oneof else None
        if upstream_oneof != oneof:
            problems.append(f"{where}: oneof {oneof} differs from upstream {upstream_oneof}")
    messages = len({item[1] for item in items if item[0] == "field"})
    print(f"{messages} messages, {fields} fields, {enums} enum values checked; "
          f"{len(problems)} differences")
    for p in problems:
        print("  " + p)
    sys.exit(1 if problems else 0)


main()
