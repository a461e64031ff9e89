//! ONNX operator schemas, as far as validation needs them: how many inputs and outputs a
//! version of an operator takes, which inputs may be left out, and its attributes. The
//! table ([`super::schemas`]) is generated from the onnx package's own schemas for every
//! operator the importer supports.

use crate::proto::attribute_proto::AttributeType;

use super::schemas::SCHEMAS;

/// One attribute an operator version declares.
#[derive(Clone, Copy, Debug)]
pub struct AttrSpec {
    pub name: &'static str,
    pub ty: AttributeType,
    pub required: bool,
}

impl AttrSpec {
    pub(super) const fn new(name: &'static str, ty: AttributeType, required: bool) -> AttrSpec {
        AttrSpec { name, ty, required }
    }
}

/// A formal parameter: present exactly once, optional (may be `""` or absent), or variadic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formal {
    Single,
    Optional,
    Variadic,
}

/// One version of an operator, valid from opset `since` until the next version's `since`.
#[derive(Clone, Copy, Debug)]
pub struct Schema {
    pub op_type: &'static str,
    pub since: i64,
    pub inputs: (usize, usize),
    pub outputs: (usize, usize),
    /// One letter per formal input (`S`ingle, `O`ptional, `V`ariadic).
    input_formals: &'static str,
    output_formals: &'static str,
    pub attributes: &'static [AttrSpec],
}

impl Schema {
    pub(super) const fn new(
        op_type: &'static str,
        since: i64,
        inputs: (usize, usize),
        outputs: (usize, usize),
        input_formals: &'static str,
        output_formals: &'static str,
        attributes: &'static [AttrSpec],
    ) -> Schema {
        Schema {
            op_type,
            since,
            inputs,
            outputs,
            input_formals,
            output_formals,
            attributes,
        }
    }

    /// The formal parameter that actual input `i` binds to (a trailing variadic one takes
    /// every remaining input).
    pub fn input_formal(&self, i: usize) -> Formal {
        formal(self.input_formals, i)
    }

    pub fn output_formal(&self, i: usize) -> Formal {
        formal(self.output_formals, i)
    }

    pub fn attribute(&self, name: &str) -> Option<&'static AttrSpec> {
        self.attributes.iter().find(|a| a.name == name)
    }
}

fn formal(letters: &str, i: usize) -> Formal {
    let letter = letters
        .as_bytes()
        .get(i)
        .or(letters.as_bytes().last())
        .copied();
    match letter {
        Some(b'O') => Formal::Optional,
        Some(b'V') => Formal::Variadic,
        _ => Formal::Single,
    }
}

/// What the table says about an operator at an opset version.
pub enum Lookup {
    Found(&'static Schema),
    /// The operator exists only from a later opset on.
    TooNew {
        since: i64,
    },
    /// Not in the table: an operator the importer does not support.
    Unknown,
}

/// The schema of default-domain operator `op_type` that opset `opset` uses: the version
/// with the greatest `since` not above `opset`.
pub fn lookup(op_type: &str, opset: i64) -> Lookup {
    let mut versions = SCHEMAS.iter().filter(|s| s.op_type == op_type);
    let Some(first) = versions.clone().next() else {
        return Lookup::Unknown;
    };
    match versions.rfind(|s| s.since <= opset) {
        Some(s) => Lookup::Found(s),
        None => Lookup::TooNew { since: first.since },
    }
}

/// Every operator the table describes, sorted, for tests.
pub fn operators() -> Vec<&'static str> {
    let mut ops: Vec<&'static str> = SCHEMAS.iter().map(|s| s.op_type).collect();
    ops.dedup();
    ops
}
