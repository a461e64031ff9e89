//! `loop.dot` as LLVM code: the integer dot-product step of the quantized micro-kernels.
//!
//! Groups of four `u8 x i8` products on a target with VNNI (AVX-512 VNNI, or AVX-VNNI for
//! 256-bit vectors) become one `vpdpbusd` through its intrinsic. Every other form is
//! written as plain vector IR (broadcast the group, widen to i32, multiply, add the
//! products of each lane's group), which LLVM's x86 backend selects as `vpmaddwd` for
//! groups of two i16 (`vpdpwssd` where VNNI has it): exact, since no i16 product pair
//! overflows i32, unlike `vpmaddubsw`'s saturating i16 sums.

use inkwell::values::{BasicValueEnum, VectorValue};

use super::translator::{FunctionTarget, TResult, Translator};
use tb_dialects::loop_;
use tb_ir::OpId;

fn vector<'ctx>(v: BasicValueEnum<'ctx>) -> TResult<VectorValue<'ctx>> {
    match v {
        BasicValueEnum::VectorValue(v) => Ok(v),
        _ => Err("expects vector operands".into()),
    }
}

/// `acc[l] + sum_g a[g] * b[G*l + g]` for each lane `l` (see the module comment).
pub(crate) fn dot(tr: &mut Translator, op: OpId) -> TResult {
    let acc = vector(tr.operand(op, 0)?)?;
    let a = vector(tr.operand(op, 1)?)?;
    let b = vector(tr.operand(op, 2)?)?;
    let unsigned_lhs = loop_::dot_unsigned_lhs(tr.ir, op);
    let lanes = acc.get_type().get_size();
    let group = a.get_type().get_size();
    let element_bits = a
        .get_type()
        .get_element_type()
        .into_int_type()
        .get_bit_width();
    let builder = &tr.builder;
    let i32_type = tr.llvm.i32_type();
    // The group in every lane's slots: LLVM makes this one 32-bit broadcast.
    let repeat: Vec<_> = (0..lanes * group)
        .map(|i| i32_type.const_int((i % group) as u64, false))
        .collect();
    let a_wide = builder.build_shuffle_vector(
        a,
        a.get_type().get_poison(),
        inkwell::types::VectorType::const_vector(&repeat),
        "",
    )?;
    let bits = lanes * 32;
    if group == 4 && element_bits == 8 && unsigned_lhs && has_vnni(&tr.target, bits) {
        let name = format!("llvm.x86.avx512.vpdpbusd.{bits}");
        let value = tr.call_intrinsic(&name, &[], &[acc.into(), a_wide.into(), b.into()])?;
        return tr.set_result(op, 0, value);
    }
    let wide_type = i32_type.vec_type(lanes * group);
    let a32 = if unsigned_lhs {
        builder.build_int_z_extend(a_wide, wide_type, "")?
    } else {
        builder.build_int_s_extend(a_wide, wide_type, "")?
    };
    let b32 = builder.build_int_s_extend(b, wide_type, "")?;
    let products = builder.build_int_mul(a32, b32, "")?;
    let mut sum: Option<VectorValue> = None;
    for g in 0..group {
        let lane_of: Vec<_> = (0..lanes)
            .map(|l| i32_type.const_int((l * group + g) as u64, false))
            .collect();
        let part = builder.build_shuffle_vector(
            products,
            wide_type.get_poison(),
            inkwell::types::VectorType::const_vector(&lane_of),
            "",
        )?;
        sum = Some(match sum {
            None => part,
            Some(s) => builder.build_int_add(s, part, "")?,
        });
    }
    let value = match sum {
        Some(s) => builder.build_int_add(acc, s, "")?,
        None => acc,
    };
    tr.set_result(op, 0, value)
}

/// CPUs whose own features include AVX-512 VNNI with AVX-512VL.
const AVX512_VNNI_CPUS: &[&str] = &[
    "cascadelake",
    "cooperlake",
    "icelake-client",
    "icelake-server",
    "tigerlake",
    "rocketlake",
    "sapphirerapids",
    "emeraldrapids",
    "graniterapids",
    "graniterapids-d",
    "diamondrapids",
    "znver4",
    "znver5",
];

/// CPUs whose own features include AVX-VNNI (256-bit, VEX-encoded) without AVX-512.
const AVX_VNNI_CPUS: &[&str] = &[
    "alderlake",
    "raptorlake",
    "meteorlake",
    "arrowlake",
    "arrowlake-s",
    "lunarlake",
    "pantherlake",
    "gracemont",
    "sierraforest",
    "grandridge",
    "clearwaterforest",
];

/// Whether the target has `vpdpbusd` for vectors of `bits` bits: from its feature string
/// where that names the features (the last `+f`/`-f` wins), else from its CPU name.
pub(crate) fn has_vnni(target: &FunctionTarget, bits: u32) -> bool {
    let feature = |name: &str| -> Option<bool> {
        target.features.split(',').rev().find_map(|f| {
            let f = f.trim();
            (f.len() > 1 && &f[1..] == name).then(|| f.starts_with('+'))
        })
    };
    let cpu = target.cpu.as_str();
    let avx512 = feature("avx512vnni").unwrap_or(AVX512_VNNI_CPUS.contains(&cpu));
    let vl = feature("avx512vl").unwrap_or(AVX512_VNNI_CPUS.contains(&cpu));
    let avx = feature("avxvnni").unwrap_or(AVX_VNNI_CPUS.contains(&cpu));
    match bits {
        512 => avx512,
        256 => avx || (avx512 && vl),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(cpu: &str, features: &str) -> FunctionTarget {
        FunctionTarget {
            cpu: cpu.into(),
            features: features.into(),
        }
    }

    #[test]
    fn vnni_comes_from_the_cpu_name() {
        assert!(has_vnni(&target("sapphirerapids", ""), 512));
        assert!(has_vnni(&target("znver4", ""), 256));
        assert!(has_vnni(&target("alderlake", ""), 256));
        assert!(!has_vnni(&target("alderlake", ""), 512));
        assert!(!has_vnni(&target("haswell", ""), 256));
    }

    #[test]
    fn features_override_the_cpu() {
        assert!(has_vnni(&target("haswell", "+avx2,+avxvnni"), 256));
        assert!(!has_vnni(&target("sapphirerapids", "-avx512vnni"), 512));
        assert!(!has_vnni(&target("skylake", "+avxvnni,-avxvnni"), 256));
        assert!(has_vnni(&target("x86-64", "+avx512vnni,+avx512vl"), 256));
    }
}
