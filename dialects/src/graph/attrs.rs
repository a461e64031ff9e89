//! Attribute conventions of the `graph` dialect.
//!
//! ONNX attributes keep their ONNX names, with camelCase turned into snake_case
//! (`transA` → `trans_a`). ONNX ints become `i64` attributes, ONNX floats `f32` attributes,
//! int lists `array<i64: ...>`, strings string attributes (`auto_pad = "SAME_UPPER"`), and
//! 0/1 flags (`keepdims`, `ceil_mode`, ...) `true`/`false`. A declared default is the ONNX
//! default; lists ONNX defines per spatial axis (`strides`, `pads`, ...) have none: leaving
//! them out means what leaving them out of the ONNX node means.
//!
//! [`Attrs`] reads an op's attributes with those defaults, from a built op or from the
//! attributes a parser or builder has collected, so verification and type inference agree.

use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::float::bits_to_f64;
use tb_ir::ods::{AttrConstraint, OpDef};
use tb_ir::{Attr, Context, OpId, Type, TypeKind};

pub use tb_ir::ods::constraint::{DENSE_I64_ARRAY_ATTR, I64_ATTR, STRING_ATTR, TYPE_ATTR};

pub const F32_ATTR: AttrConstraint = AttrConstraint {
    description: "32-bit float attribute",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::Float { ty, .. }
            if matches!(c.type_kind(*ty), TypeKind::Float(tb_ir::FloatKind::F32)))
    },
};

pub const DENSE_F64_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    description: "f64 dense array attribute",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::DenseArray { element, data: DenseArrayData::Float(_) }
            if matches!(c.type_kind(*element), TypeKind::Float(tb_ir::FloatKind::F64)))
    },
};

pub const BOOL_ATTR: AttrConstraint = AttrConstraint {
    description: "bool attribute",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::Integer { ty, .. }
            if tb_ir::ods::constraint::is_i1(c, *ty))
    },
};

pub const ELEMENTS_ATTR: AttrConstraint = AttrConstraint {
    description: "dense or dense_resource elements attribute",
    check: |c, a| {
        matches!(
            c.attr_kind(a),
            AttrKind::DenseElements { .. } | AttrKind::DenseResource { .. }
        )
    },
};

pub const SCALAR_ATTR: AttrConstraint = AttrConstraint {
    description: "integer or float attribute",
    check: |c, a| {
        matches!(
            c.attr_kind(a),
            AttrKind::Integer { .. } | AttrKind::Float { .. }
        )
    },
};

/// A scalar attribute's value: exact for integers, as `f64` for floats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Int(i128),
    Float(f64),
}

impl Scalar {
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Int(v) => v as f64,
            Scalar::Float(v) => v,
        }
    }
}

/// The type and value of an integer or float attribute.
pub fn scalar(ctx: &Context, attr: Attr) -> Option<(Type, Scalar)> {
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, ty } => Some((*ty, Scalar::Int(*value))),
        AttrKind::Float { bits, ty } => match ctx.type_kind(*ty) {
            TypeKind::Float(kind) => Some((*ty, Scalar::Float(bits_to_f64(*kind, *bits)?))),
            _ => None,
        },
        _ => None,
    }
}

/// The type an elements attribute declares.
pub fn elements_type(ctx: &Context, attr: Attr) -> Option<Type> {
    match ctx.attr_kind(attr) {
        AttrKind::DenseElements { ty, .. } | AttrKind::DenseResource { ty, .. } => Some(*ty),
        _ => None,
    }
}

/// An op's attributes by name, falling back to the defaults its definition declares.
pub struct Attrs<'a> {
    ctx: &'a Context,
    def: Option<&'static OpDef>,
    entries: Vec<(String, Attr)>,
}

impl<'a> Attrs<'a> {
    pub fn new(
        ctx: &'a Context,
        def: Option<&'static OpDef>,
        entries: Vec<(String, Attr)>,
    ) -> Self {
        Attrs { ctx, def, entries }
    }

    /// The properties and attributes of a built op.
    pub fn of_op(ctx: &'a Context, op: OpId) -> Self {
        let data = ctx.op(op);
        let mut entries: Vec<(String, Attr)> = ctx.dictionary_entries(data.attributes).to_vec();
        if let Some(props) = data.properties {
            entries.extend(ctx.dictionary_entries(props).iter().cloned());
        }
        let def = ctx.op_info_of(op).and_then(|i| i.def);
        Attrs { ctx, def, entries }
    }

    /// The attribute as written, without defaults.
    pub fn get(&self, name: &str) -> Option<Attr> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
    }

    /// The declared default's text, without its `: type` suffix.
    fn default_text(&self, name: &str) -> Option<&'static str> {
        let text = self.def?.attribute(name)?.default?;
        Some(text.split(" : ").next().unwrap_or(text))
    }

    fn missing(name: &str) -> String {
        format!("requires attribute '{name}'")
    }

    fn kind_error(name: &str, what: &str) -> String {
        format!("attribute '{name}' must be {what}")
    }

    pub fn opt_i64(&self, name: &str) -> Result<Option<i64>, String> {
        if let Some(a) = self.get(name) {
            return match self.ctx.attr_kind(a) {
                AttrKind::Integer { value, ty }
                    if !tb_ir::ods::constraint::is_i1(self.ctx, *ty) =>
                {
                    i64::try_from(*value)
                        .map(Some)
                        .map_err(|_| Self::kind_error(name, "a 64-bit integer"))
                }
                _ => Err(Self::kind_error(name, "a 64-bit integer")),
            };
        }
        Ok(self.default_text(name).and_then(|t| t.parse().ok()))
    }

    pub fn i64(&self, name: &str) -> Result<i64, String> {
        self.opt_i64(name)?.ok_or_else(|| Self::missing(name))
    }

    pub fn opt_f64(&self, name: &str) -> Result<Option<f64>, String> {
        if let Some(a) = self.get(name) {
            return match scalar(self.ctx, a) {
                Some((_, Scalar::Float(v))) => Ok(Some(v)),
                _ => Err(Self::kind_error(name, "a float")),
            };
        }
        Ok(self.default_text(name).and_then(|t| t.parse().ok()))
    }

    pub fn f64(&self, name: &str) -> Result<f64, String> {
        self.opt_f64(name)?.ok_or_else(|| Self::missing(name))
    }

    pub fn bool(&self, name: &str) -> Result<bool, String> {
        if let Some(a) = self.get(name) {
            return match self.ctx.attr_kind(a) {
                AttrKind::Integer { value, ty } if tb_ir::ods::constraint::is_i1(self.ctx, *ty) => {
                    Ok(*value != 0)
                }
                _ => Err(Self::kind_error(name, "a bool (true or false)")),
            };
        }
        match self.default_text(name) {
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            _ => Err(Self::missing(name)),
        }
    }

    pub fn string(&self, name: &str) -> Result<String, String> {
        if let Some(a) = self.get(name) {
            return self
                .ctx
                .attr_as_str(a)
                .map(str::to_string)
                .ok_or_else(|| Self::kind_error(name, "a string"));
        }
        self.default_text(name)
            .and_then(|t| t.strip_prefix('"')?.strip_suffix('"'))
            .map(str::to_string)
            .ok_or_else(|| Self::missing(name))
    }

    /// A string attribute that must be one of `allowed`.
    pub fn choice(&self, name: &str, allowed: &[&str]) -> Result<String, String> {
        let value = self.string(name)?;
        if !allowed.contains(&value.as_str()) {
            return Err(format!(
                "attribute '{name}' is \"{value}\", expected one of {}",
                allowed
                    .iter()
                    .map(|a| format!("\"{a}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Ok(value)
    }

    /// An `array<f64: ...>` attribute, `None` when absent.
    pub fn floats(&self, name: &str) -> Result<Option<Vec<f64>>, String> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        match self.ctx.attr_kind(a) {
            AttrKind::DenseArray {
                data: DenseArrayData::Float(values),
                element,
            } => match self.ctx.type_kind(*element) {
                TypeKind::Float(kind) => values
                    .iter()
                    .map(|&b| bits_to_f64(*kind, b))
                    .collect::<Option<Vec<f64>>>()
                    .map(Some)
                    .ok_or_else(|| Self::kind_error(name, "an array<f64: ...>")),
                _ => Err(Self::kind_error(name, "an array<f64: ...>")),
            },
            _ => Err(Self::kind_error(name, "an array<f64: ...>")),
        }
    }

    /// An `array<i64: ...>` attribute, `None` when absent.
    pub fn ints(&self, name: &str) -> Result<Option<Vec<i64>>, String> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        match self.ctx.attr_kind(a) {
            AttrKind::DenseArray {
                data: DenseArrayData::Int(values),
                element,
            } if matches!(
                self.ctx.type_kind(*element),
                TypeKind::Integer { width: 64, .. }
            ) =>
            {
                Ok(Some(values.iter().map(|&v| v as i64).collect()))
            }
            _ => Err(Self::kind_error(name, "an array<i64: ...>")),
        }
    }

    /// A required `array<i64: ...>` attribute.
    pub fn required_ints(&self, name: &str) -> Result<Vec<i64>, String> {
        self.ints(name)?.ok_or_else(|| Self::missing(name))
    }

    /// A type attribute, `None` when absent.
    pub fn ty(&self, name: &str) -> Result<Option<Type>, String> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        match self.ctx.attr_kind(a) {
            AttrKind::Type(t) => Ok(Some(*t)),
            _ => Err(Self::kind_error(name, "a type")),
        }
    }

    /// An integer or float attribute of exactly `element` type, `None` when absent.
    pub fn scalar_of(&self, name: &str, element: Type) -> Result<Option<Scalar>, String> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        match scalar(self.ctx, a) {
            Some((ty, value)) if ty == element => Ok(Some(value)),
            Some((ty, _)) => Err(format!(
                "attribute '{name}' has type {} but the element type is {}",
                crate::graph::types::type_string(self.ctx, ty),
                crate::graph::types::type_string(self.ctx, element)
            )),
            None => Err(Self::kind_error(name, "an integer or float attribute")),
        }
    }
}
