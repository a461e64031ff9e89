//! The `math` and `memref` dialects through the public API: registration, round trips
//! in custom and generic form, and folds checked against plain Rust arithmetic over
//! whole ranges of inputs (the lit tests check chosen cases against mlir-opt).

use tb_ir::attributes::AttrKind;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::rewrite::folder::constant_value;
use tb_ir::rewrite::{GreedyConfig, PatternSet, apply_patterns_greedily};
use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId};

fn context() -> Context {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).expect("every dialect registers");
    ctx
}

fn parse(ctx: &mut Context, text: &str) -> OpId {
    let module = parse_source(ctx, text, "test.mlir", &ParseOptions::default())
        .unwrap_or_else(|d| panic!("parse error: {}\n{text}", d.message));
    tb_ir::verifier::verify(ctx, module).unwrap_or_else(|d| panic!("verify error: {}", d.message));
    module
}

/// Runs every registered op's canonicalization patterns and folders, as `canonicalize`.
fn canonicalize(ctx: &mut Context, module: OpId) {
    let hooks: Vec<_> = ctx
        .registered_op_infos()
        .filter_map(|info| info.canonicalize)
        .collect();
    let mut patterns = PatternSet::new();
    for add in hooks {
        add(&mut patterns);
    }
    let result = apply_patterns_greedily(ctx, module, &patterns, &GreedyConfig::default());
    assert!(result.converged, "canonicalization converges");
}

/// What the function's `return` returns: the constant of each value (`None` if it
/// did not fold).
fn returned_constants(ctx: &Context, module: OpId) -> Vec<Option<AttrKind>> {
    let mut values = Vec::new();
    ctx.walk_nested(module, &mut |op| {
        if ctx.op_name(op) == "func.return" {
            values.extend(ctx.op(op).operands.iter().copied());
        }
    });
    values
        .into_iter()
        .map(|v| match ctx.value(v).def {
            ValueDef::Result { op, .. } => {
                constant_value(ctx, op).map(|a| ctx.attr_kind(a).clone())
            }
            _ => None,
        })
        .collect()
}

/// Folds `body` (a function body returning `types`) and returns what it returns.
fn fold(types: &[&str], body: &str) -> Vec<Option<AttrKind>> {
    let text = format!(
        "func.func @f() -> ({}) {{\n{body}\n  return {} : {}\n}}",
        types.join(", "),
        (0..types.len())
            .map(|i| format!("%r{i}"))
            .collect::<Vec<_>>()
            .join(", "),
        types.join(", ")
    );
    let mut ctx = context();
    let module = parse(&mut ctx, &text);
    canonicalize(&mut ctx, module);
    returned_constants(&ctx, module)
}

fn int(kind: &Option<AttrKind>) -> Option<i128> {
    match kind {
        Some(AttrKind::Integer { value, .. }) => Some(*value),
        _ => None,
    }
}

#[test]
fn math_and_memref_ops_are_registered() {
    let ctx = context();
    for name in [
        "math.absf",
        "math.exp",
        "math.fpowi",
        "math.ipowi",
        "math.sincos",
        "math.isnan",
        "math.clampf",
        "memref.alloc",
        "memref.alloca",
        "memref.subview",
        "memref.reinterpret_cast",
        "memref.expand_shape",
        "memref.global",
        "memref.view",
    ] {
        assert!(ctx.op_info(name).is_some(), "{name} is registered");
    }
}

const PROGRAM: &str = r#"
memref.global "private" constant @table : memref<2xf32> = dense<[1.0, 2.0]>
func.func @kernel(%n: index, %x: f32, %i: i32) -> f32 {
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<4x?xf32>
  %t = memref.get_global @table : memref<2xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %t[%c0] : memref<2xf32>
  %e = math.exp %v fastmath<fast> : f32
  %p = math.fpowi %e, %i : f32, i32
  %s, %c = math.sincos %p : f32
  %k = math.clampf %s to [%c, %x] fastmath<nnan,ninf> : f32
  memref.store %k, %a[%c0, %c0] : memref<4x?xf32>
  %sv = memref.subview %a[1, %c0] [2, %n] [1, 1] : memref<4x?xf32> to memref<2x?xf32, strided<[?, 1], offset: ?>>
  %r = memref.reinterpret_cast %t to offset: [0], sizes: [2, 1], strides: [1, 1] : memref<2xf32> to memref<2x1xf32>
  %f = memref.collapse_shape %r [[0, 1]] : memref<2x1xf32> into memref<2xf32>
  %g = memref.expand_shape %f [[0, 1]] output_shape [1, 2] : memref<2xf32> into memref<1x2xf32>
  %d = memref.dim %sv, %c0 : memref<2x?xf32, strided<[?, 1], offset: ?>>
  memref.dealloc %a : memref<4x?xf32>
  return %k : f32
}
"#;

#[test]
fn math_and_memref_round_trip() {
    let mut ctx = context();
    let module = parse(&mut ctx, PROGRAM);
    let custom = print_operation(&ctx, module, PrintOptions::default());
    assert!(custom.contains("%sin, %cos = math.sincos"), "{custom}");
    assert!(custom.contains("%alloc = memref.alloc(%arg0)"), "{custom}");
    assert!(custom.contains("fastmath<nnan,ninf>"), "{custom}");
    let generic = print_operation(
        &ctx,
        module,
        PrintOptions {
            generic: true,
            ..PrintOptions::default()
        },
    );
    assert!(
        generic.contains("operandSegmentSizes = array<i32: 1, 0>"),
        "{generic}"
    );
    for printed in [&custom, &generic] {
        let mut again = context();
        let reparsed = parse(&mut again, printed);
        assert_eq!(
            print_operation(&again, reparsed, PrintOptions::default()),
            custom,
            "round trip of\n{printed}"
        );
    }
}

/// `base ** power` by repeated multiplication in `bits`-bit two's complement, and
/// MLIR's truncating rule for negative powers (`None`: zero to a negative power).
fn reference_power(base: i64, power: i64, bits: u32) -> Option<i64> {
    let wrap = |v: i64| (v << (64 - bits)) >> (64 - bits);
    if power < 0 {
        return match base {
            0 => None,
            1 => Some(1),
            -1 => Some(if power % 2 == 0 { 1 } else { -1 }),
            _ => Some(0),
        };
    }
    Some((0..power).fold(1i64, |acc, _| wrap(acc.wrapping_mul(base))))
}

#[test]
fn ipowi_folds_like_repeated_multiplication() {
    for (ty, bits) in [("i8", 8), ("i16", 16)] {
        let cases: Vec<(i64, i64)> = (-4..=4)
            .chain([-128, 127])
            .flat_map(|b| (-3..=11).map(move |p| (b, p)))
            .collect();
        let body: String = cases
            .iter()
            .enumerate()
            .map(|(i, (b, p))| {
                format!(
                    "  %b{i} = arith.constant {b} : {ty}\n  %p{i} = arith.constant {p} : {ty}\n  %r{i} = math.ipowi %b{i}, %p{i} : {ty}\n"
                )
            })
            .collect();
        let types = vec![ty; cases.len()];
        let folded = fold(&types, &body);
        for (&(b, p), got) in cases.iter().zip(&folded) {
            let want = reference_power(b, p, bits);
            assert_eq!(int(got).map(|v| v as i64), want, "ipowi {b}, {p} : {ty}");
        }
    }
}

#[test]
fn bit_counts_match_native_counts_for_every_i8() {
    let body: String = (-128..=127)
        .map(|v| {
            let i = v + 128;
            format!(
                "  %c{i} = arith.constant {v} : i8\n  %r{} = math.ctlz %c{i} : i8\n  %r{} = math.cttz %c{i} : i8\n  %r{} = math.ctpop %c{i} : i8\n  %r{} = math.absi %c{i} : i8\n",
                4 * i,
                4 * i + 1,
                4 * i + 2,
                4 * i + 3
            )
        })
        .collect();
    let folded = fold(&vec!["i8"; 1024], &body);
    for v in -128i16..=127 {
        let i = (v + 128) as usize;
        let u = v as i8 as u8;
        let got: Vec<Option<i128>> = folded[4 * i..4 * i + 4].iter().map(int).collect();
        let want = [
            u.leading_zeros() as i128,
            u.trailing_zeros() as i128,
            u.count_ones() as i128,
            (v as i8).wrapping_abs() as i128,
        ];
        assert_eq!(
            got,
            want.map(Some).to_vec(),
            "ctlz/cttz/ctpop/absi of {v} : i8"
        );
    }
}

#[test]
fn classification_knows_f16_subnormals_and_specials() {
    // bits, isnan, isinf, isfinite, isnormal
    let cases = [
        (0x0000u16, false, false, true, false),
        (0x0001, false, false, true, false),
        (0x03ff, false, false, true, false),
        (0x0400, false, false, true, true),
        (0x7bff, false, false, true, true),
        (0x7c00, false, true, false, false),
        (0xfc00, false, true, false, false),
        (0x7e00, true, false, false, false),
        (0x8400, false, false, true, true),
    ];
    let body: String = cases
        .iter()
        .enumerate()
        .map(|(i, (bits, ..))| {
            let ops = ["isnan", "isinf", "isfinite", "isnormal"];
            let mut s = format!("  %x{i} = arith.constant 0x{bits:04X} : f16\n");
            for (k, op) in ops.iter().enumerate() {
                s += &format!("  %r{} = math.{op} %x{i} : f16\n", 4 * i + k);
            }
            s
        })
        .collect();
    let folded = fold(&vec!["i1"; 4 * cases.len()], &body);
    for (i, &(bits, nan, inf, finite, normal)) in cases.iter().enumerate() {
        let got: Vec<Option<i128>> = folded[4 * i..4 * i + 4].iter().map(int).collect();
        let want = [nan, inf, finite, normal].map(|b| Some(b as i128)).to_vec();
        assert_eq!(got, want, "classification of 0x{bits:04x} : f16");
    }
}

#[test]
fn transcendental_folds_use_the_c_library_for_f32_and_f64_only() {
    let folded = fold(
        &["f32", "f64", "f16", "f32"],
        "  %a = arith.constant 0.75 : f32\n  %r0 = math.tanh %a : f32\n  %b = arith.constant 0.75 : f64\n  %r1 = math.erf %b : f64\n  %h = arith.constant 0.75 : f16\n  %r2 = math.exp %h : f16\n  %n = arith.constant -2.0 : f32\n  %r3 = math.sqrt %n : f32",
    );
    let bits = |k: &Option<AttrKind>| match k {
        Some(AttrKind::Float { bits, .. }) => Some(*bits),
        _ => None,
    };
    assert_eq!(bits(&folded[0]), Some(0.75f32.tanh().to_bits() as u128));
    // erf(0.75) = 0.7111556336535151 (correctly rounded).
    assert_eq!(
        bits(&folded[1]).map(|b| f64::from_bits(b as u64)),
        Some(0.7111556336535151)
    );
    assert_eq!(bits(&folded[2]), None, "f16 exp does not fold");
    assert_eq!(
        bits(&folded[3]),
        None,
        "sqrt of a negative number does not fold"
    );
}

#[test]
fn memref_sizes_fold_from_types_and_allocations() {
    let folded = fold(
        &["index", "index", "index"],
        "  %n = arith.constant 6 : index\n  %m = memref.alloc(%n) : memref<4x?xf32>\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %r0 = memref.dim %m, %c0 : memref<4x?xf32>\n  %r1 = memref.dim %m, %c1 : memref<4x?xf32>\n  %r2 = memref.rank %m : memref<4x?xf32>\n  memref.dealloc %m : memref<4x?xf32>",
    );
    let got: Vec<Option<i128>> = folded.iter().map(int).collect();
    assert_eq!(got, vec![Some(4), Some(6), Some(2)]);
}
