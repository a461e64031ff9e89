//! Every rule of `graph-eqsat` is proven here: for each rule, functions of random shapes
//! whose graph the rule matches run in the reference interpreter on random inputs before
//! and after the pass, with only that rule enabled and extraction forced to the side the
//! rule added ([`PreferRewritten`]); the outputs must agree within float tolerance. A rule
//! without a case fails `every_rule_has_a_verification_case`.

use std::cell::Cell;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tb_interpreter::check::{Tolerance, check_transform};
use tb_passes::eqsat::{self, Config, PreferRewritten};

type Case = fn(&mut StdRng) -> String;

/// Random floats as a nested `dense<...>` literal of `shape`.
fn dense(rng: &mut StdRng, shape: &[i64], lo: f64, hi: f64) -> String {
    fn nest(rng: &mut StdRng, shape: &[i64], lo: f64, hi: f64) -> String {
        match shape.split_first() {
            None => format!("{:.4}", rng.random_range(lo..hi)),
            Some((&d, rest)) => {
                let items: Vec<String> = (0..d).map(|_| nest(rng, rest, lo, hi)).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }
    format!("dense<{}>", nest(rng, shape, lo, hi))
}

fn ty(shape: &[i64]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    if dims.is_empty() {
        "tensor<f32>".into()
    } else {
        format!("tensor<{}xf32>", dims.join("x"))
    }
}

fn constant(rng: &mut StdRng, name: &str, shape: &[i64]) -> String {
    format!(
        "  %{name} = graph.constant {} : {}\n",
        dense(rng, shape, -1.0, 1.0),
        ty(shape)
    )
}

fn dim(rng: &mut StdRng) -> i64 {
    rng.random_range(1..5)
}

fn perm(rng: &mut StdRng, n: usize) -> Vec<i64> {
    let mut p: Vec<i64> = (0..n as i64).collect();
    for i in (1..n).rev() {
        p.swap(i, rng.random_range(0..=i));
    }
    p
}

fn permuted(shape: &[i64], p: &[i64]) -> Vec<i64> {
    p.iter().map(|&i| shape[i as usize]).collect()
}

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn commute_case(rng: &mut StdRng, op: &str) -> String {
    let (m, n) = (dim(rng), dim(rng));
    let (x, y) = (ty(&[m, n]), ty(&[n]));
    format!(
        "func.func @f(%x: {x}, %y: {y}) -> {x} {{\n  %r = graph.{op} %x, %y : ({x}, {y}) -> {x}\n  return %r : {x}\n}}\n"
    )
}

fn group_case(rng: &mut StdRng, op: &str) -> String {
    let (m, n) = (dim(rng), dim(rng));
    let (x, c) = (ty(&[m, n]), ty(&[n]));
    let mut s = format!("func.func @f(%x: {x}) -> {x} {{\n");
    s += &constant(rng, "c1", &[n]);
    s += &constant(rng, "c2", &[n]);
    s += &format!("  %a = graph.{op} %x, %c1 : ({x}, {c}) -> {x}\n");
    s += &format!("  %r = graph.{op} %a, %c2 : ({x}, {c}) -> {x}\n  return %r : {x}\n}}\n");
    s
}

fn mul_factor(rng: &mut StdRng) -> String {
    let (m, n) = (dim(rng), dim(rng));
    let (x, v) = (ty(&[m, n]), ty(&[n]));
    format!(
        "func.func @f(%x: {x}, %a: {v}, %b: {v}) -> {x} {{\n  %p = graph.mul %x, %a : ({x}, {v}) -> {x}\n  %q = graph.mul %x, %b : ({x}, {v}) -> {x}\n  %r = graph.add %p, %q : ({x}, {x}) -> {x}\n  return %r : {x}\n}}\n"
    )
}

fn matmul_factor(rng: &mut StdRng) -> String {
    let (m, k, n) = (dim(rng), dim(rng), dim(rng));
    let (x, w, o) = (ty(&[m, k]), ty(&[k, n]), ty(&[m, n]));
    format!(
        "func.func @f(%x: {x}, %a: {w}, %b: {w}) -> {o} {{\n  %p = graph.matmul %x, %a : ({x}, {w}) -> {o}\n  %q = graph.matmul %x, %b : ({x}, {w}) -> {o}\n  %r = graph.add %p, %q : ({o}, {o}) -> {o}\n  return %r : {o}\n}}\n"
    )
}

fn absorb_scale(rng: &mut StdRng) -> String {
    let (b, m, k, n) = (dim(rng), dim(rng), dim(rng), dim(rng));
    let (x, w, o) = (ty(&[b, m, k]), ty(&[k, n]), ty(&[b, m, n]));
    let mut s = format!("func.func @f(%x: {x}, %w: {w}) -> {o} {{\n");
    s += &constant(rng, "c", &[n]);
    s += &format!("  %p = graph.matmul %x, %w : ({x}, {w}) -> {o}\n");
    s += &format!(
        "  %r = graph.mul %p, %c : ({o}, {}) -> {o}\n  return %r : {o}\n}}\n",
        ty(&[n])
    );
    s
}

fn transpose_compose(rng: &mut StdRng) -> String {
    let shape = [dim(rng), dim(rng) + 1, dim(rng) + 2];
    let (p1, p2) = (perm(rng, 3), perm(rng, 3));
    let mid = permuted(&shape, &p1);
    let out = permuted(&mid, &p2);
    format!(
        "func.func @f(%x: {}) -> {} {{\n  %a = graph.transpose %x {{perm = array<i64: {}>}} : ({}) -> {}\n  %r = graph.transpose %a {{perm = array<i64: {}>}} : ({}) -> {}\n  return %r : {}\n}}\n",
        ty(&shape),
        ty(&out),
        list(&p1),
        ty(&shape),
        ty(&mid),
        list(&p2),
        ty(&mid),
        ty(&out),
        ty(&out)
    )
}

fn transpose_identity(rng: &mut StdRng) -> String {
    let shape = [dim(rng), dim(rng), dim(rng)];
    let t = ty(&shape);
    format!(
        "func.func @f(%x: {t}) -> {t} {{\n  %r = graph.transpose %x {{perm = array<i64: 0, 1, 2>}} : ({t}) -> {t}\n  %s = graph.relu %r : {t}\n  return %s : {t}\n}}\n"
    )
}

fn reshape_compose(rng: &mut StdRng) -> String {
    let (a, b, c) = (dim(rng), dim(rng), dim(rng));
    let (x, mid, out) = (ty(&[a, b, c]), ty(&[a * b, c]), ty(&[a, b * c]));
    format!(
        "func.func @f(%x: {x}) -> {out} {{\n  %m = graph.reshape %x {{shape = array<i64: {}, {c}>}} : ({x}) -> {mid}\n  %r = graph.reshape %m {{shape = array<i64: {a}, {}>}} : ({mid}) -> {out}\n  return %r : {out}\n}}\n",
        a * b,
        b * c
    )
}

fn reshape_identity(rng: &mut StdRng) -> String {
    let (a, b) = (dim(rng), dim(rng));
    let t = ty(&[a, b]);
    format!(
        "func.func @f(%x: {t}) -> {t} {{\n  %r = graph.reshape %x {{shape = array<i64: {a}, {b}>}} : ({t}) -> {t}\n  %s = graph.tanh %r : {t}\n  return %s : {t}\n}}\n"
    )
}

fn sink_unary(rng: &mut StdRng) -> String {
    let shape = [dim(rng), dim(rng), dim(rng)];
    let p = perm(rng, 3);
    let (x, o) = (ty(&shape), ty(&permuted(&shape, &p)));
    let op = ["relu", "tanh", "sigmoid", "neg"][rng.random_range(0..4)];
    format!(
        "func.func @f(%x: {x}) -> {o} {{\n  %t = graph.transpose %x {{perm = array<i64: {}>}} : ({x}) -> {o}\n  %r = graph.{op} %t : {o}\n  return %r : {o}\n}}\n",
        list(&p)
    )
}

fn sink_binary(rng: &mut StdRng) -> String {
    let shape = [dim(rng), dim(rng), dim(rng)];
    let p = perm(rng, 3);
    let (x, o) = (ty(&shape), ty(&permuted(&shape, &p)));
    let op = ["add", "sub", "mul"][rng.random_range(0..3)];
    format!(
        "func.func @f(%x: {x}, %y: {x}) -> {o} {{\n  %a = graph.transpose %x {{perm = array<i64: {l}>}} : ({x}) -> {o}\n  %b = graph.transpose %y {{perm = array<i64: {l}>}} : ({x}) -> {o}\n  %r = graph.{op} %a, %b : ({o}, {o}) -> {o}\n  return %r : {o}\n}}\n",
        l = list(&p)
    )
}

fn batch_matmuls(rng: &mut StdRng) -> String {
    let (m, k) = (dim(rng), dim(rng));
    let count = rng.random_range(2..5);
    let widths: Vec<i64> = (0..count).map(|_| dim(rng)).collect();
    let x = ty(&[m, k]);
    let outs: Vec<String> = widths.iter().map(|&n| ty(&[m, n])).collect();
    let mut s = format!("func.func @f(%x: {x}) -> ({}) {{\n", outs.join(", "));
    for (i, &n) in widths.iter().enumerate() {
        s += &constant(rng, &format!("w{i}"), &[k, n]);
        s += &format!(
            "  %r{i} = graph.matmul %x, %w{i} : ({x}, {}) -> {}\n",
            ty(&[k, n]),
            outs[i]
        );
    }
    let results: Vec<String> = (0..count).map(|i| format!("%r{i}")).collect();
    s += &format!(
        "  return {} : {}\n}}\n",
        results.join(", "),
        outs.join(", ")
    );
    s
}

/// A conv of random geometry with constant weights (and maybe a bias): the text, the
/// result name `%c`, and the result shape.
fn conv(rng: &mut StdRng, s: &mut String) -> Vec<i64> {
    let (n, ci, co, k) = (dim(rng), dim(rng), dim(rng) + 1, rng.random_range(1..4));
    let (h, w) = (k + dim(rng), k + dim(rng));
    let x = [n, ci, h, w];
    let wt = [co, ci, k, k];
    let out = vec![n, co, h - k + 1, w - k + 1];
    *s += &format!("func.func @f(%x: {}) -> {} {{\n", ty(&x), ty(&out));
    *s += &constant(rng, "w", &wt);
    if rng.random_bool(0.5) {
        *s += &constant(rng, "b", &[co]);
        *s += &format!(
            "  %c = graph.conv %x, %w, %b : ({}, {}, {}) -> {}\n",
            ty(&x),
            ty(&wt),
            ty(&[co]),
            ty(&out)
        );
    } else {
        *s += &format!(
            "  %c = graph.conv %x, %w : ({}, {}) -> {}\n",
            ty(&x),
            ty(&wt),
            ty(&out)
        );
    }
    out
}

fn bn_params(rng: &mut StdRng, c: i64) -> String {
    let v = ty(&[c]);
    format!(
        "  %s = graph.constant {} : {v}\n  %t = graph.constant {} : {v}\n  %m = graph.constant {} : {v}\n  %v = graph.constant {} : {v}\n",
        dense(rng, &[c], -1.0, 1.0),
        dense(rng, &[c], -1.0, 1.0),
        dense(rng, &[c], -1.0, 1.0),
        dense(rng, &[c], 0.5, 2.0)
    )
}

fn bn_conv(rng: &mut StdRng) -> String {
    let mut s = String::new();
    let out = conv(rng, &mut s);
    s += &bn_params(rng, out[1]);
    let (o, v) = (ty(&out), ty(&[out[1]]));
    s += &format!(
        "  %r = graph.batch_normalization %c, %s, %t, %m, %v {{epsilon = 1.000000e-03 : f32}} : ({o}, {v}, {v}, {v}, {v}) -> {o}\n  return %r : {o}\n}}\n"
    );
    s
}

fn bn_matmul(rng: &mut StdRng) -> String {
    let (m, k, n) = (dim(rng), dim(rng), dim(rng));
    let (x, w, o, v) = (ty(&[m, k]), ty(&[k, n]), ty(&[m, n]), ty(&[n]));
    let mut s = format!("func.func @f(%x: {x}) -> {o} {{\n");
    s += &constant(rng, "w", &[k, n]);
    s += &bn_params(rng, n);
    s += &format!("  %p = graph.matmul %x, %w : ({x}, {w}) -> {o}\n");
    s += &format!(
        "  %r = graph.batch_normalization %p, %s, %t, %m, %v : ({o}, {v}, {v}, {v}, {v}) -> {o}\n  return %r : {o}\n}}\n"
    );
    s
}

fn conv_add(rng: &mut StdRng) -> String {
    let mut s = String::new();
    let out = conv(rng, &mut s);
    let shape = if rng.random_bool(0.5) {
        vec![out[1], 1, 1]
    } else {
        vec![1, out[1], 1, 1]
    };
    s += &constant(rng, "k", &shape);
    let o = ty(&out);
    s += &format!(
        "  %r = graph.add %c, %k : ({o}, {}) -> {o}\n  return %r : {o}\n}}\n",
        ty(&shape)
    );
    s
}

fn conv_mul(rng: &mut StdRng) -> String {
    let mut s = String::new();
    let out = conv(rng, &mut s);
    let shape = if rng.random_bool(0.5) {
        vec![out[1], 1, 1]
    } else {
        vec![1, out[1], 1, 1]
    };
    s += &constant(rng, "k", &shape);
    let o = ty(&out);
    s += &format!(
        "  %r = graph.mul %c, %k : ({o}, {}) -> {o}\n  return %r : {o}\n}}\n",
        ty(&shape)
    );
    s
}

/// The verification case of every rule, by rule name.
fn cases() -> Vec<(&'static str, Case)> {
    vec![
        ("add-commute", |r| commute_case(r, "add")),
        ("mul-commute", |r| commute_case(r, "mul")),
        ("add-group-constants", |r| group_case(r, "add")),
        ("mul-group-constants", |r| group_case(r, "mul")),
        ("mul-factor-add", mul_factor),
        ("matmul-factor-add", matmul_factor),
        ("matmul-absorb-column-scale", absorb_scale),
        ("transpose-compose", transpose_compose),
        ("transpose-identity", transpose_identity),
        ("reshape-compose", reshape_compose),
        ("reshape-identity", reshape_identity),
        ("transpose-sink-unary", sink_unary),
        ("transpose-sink-binary", sink_binary),
        ("matmul-batch-shared-lhs", batch_matmuls),
        ("batchnorm-into-conv", bn_conv),
        ("batchnorm-into-matmul", bn_matmul),
        ("conv-absorb-bias-add", conv_add),
        ("conv-absorb-channel-scale", conv_mul),
    ]
}

#[test]
fn every_rule_has_a_verification_case() {
    let cases = cases();
    for rule in eqsat::rules::all() {
        assert!(
            cases.iter().any(|(name, _)| *name == rule.name),
            "rule '{}' has no verification case in passes/tests/eqsat_rules.rs",
            rule.name
        );
        assert!(
            !rule.reason.is_empty(),
            "rule '{}' gives no reason",
            rule.name
        );
    }
    for (name, _) in &cases {
        assert!(
            eqsat::rules::all().iter().any(|r| r.name == *name),
            "case '{name}' names no rule"
        );
    }
}

/// Runs `rule` alone on `src` under the interpreter's check; returns how often it fired.
fn verify(rule: &str, src: &str) -> usize {
    let fired = Cell::new(0);
    let changed = Cell::new(false);
    let config = Config {
        rules: vec![rule.to_string()],
        ..Config::default()
    };
    let report = check_transform(
        src,
        |ctx, module| {
            let funcs: Vec<_> = {
                let region = ctx.op(module).regions[0];
                let block = ctx.region(region).blocks[0];
                ctx.block_ops(block).collect()
            };
            for func in funcs {
                let r = eqsat::optimize_function(ctx, func, &config, &PreferRewritten)
                    .map_err(|m| tb_ir::Diagnostic::error(ctx.op(func).loc, m))?;
                fired.set(fired.get() + r.fired.iter().map(|(_, n)| n).sum::<usize>());
                changed.set(changed.get() || r.changed);
                if let Some(note) = r.note {
                    panic!("rule '{rule}': {note}\n{src}");
                }
            }
            Ok(())
        },
        Tolerance {
            rtol: 1e-4,
            atol: 1e-5,
        },
        3,
    )
    .unwrap_or_else(|e| panic!("rule '{rule}' changed the meaning of\n{src}\n{e}"));
    assert!(
        report.skipped.is_empty(),
        "rule '{rule}': {:?}",
        report.skipped
    );
    assert!(
        changed.get(),
        "rule '{rule}' did not rewrite\n{src}\n{}",
        report.text
    );
    fired.get()
}

#[test]
fn every_rule_keeps_the_meaning_on_random_shapes() {
    for (name, case) in cases() {
        for seed in 0..4 {
            let mut rng = StdRng::seed_from_u64(seed);
            let src = case(&mut rng);
            assert!(
                verify(name, &src) > 0,
                "rule '{name}' never fired on\n{src}"
            );
        }
    }
}
