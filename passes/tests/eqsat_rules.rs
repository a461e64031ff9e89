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

fn batch_convs(rng: &mut StdRng) -> String {
    let (n, ci, k) = (dim(rng), dim(rng), rng.random_range(1..4));
    let (h, w) = (k + dim(rng), k + dim(rng));
    let x = [n, ci, h, w];
    let count = rng.random_range(2..4);
    let with_bias = rng.random_bool(0.5);
    let pads = rng.random_range(0..2);
    let (oh, ow) = (h - k + 1 + 2 * pads, w - k + 1 + 2 * pads);
    let widths: Vec<i64> = (0..count).map(|_| dim(rng)).collect();
    let outs: Vec<String> = widths.iter().map(|&c| ty(&[n, c, oh, ow])).collect();
    let mut s = format!("func.func @f(%x: {}) -> ({}) {{\n", ty(&x), outs.join(", "));
    for (i, &c) in widths.iter().enumerate() {
        let wt = [c, ci, k, k];
        s += &constant(rng, &format!("w{i}"), &wt);
        let attrs = format!("{{pads = array<i64: {pads}, {pads}, {pads}, {pads}>}}");
        if with_bias {
            s += &constant(rng, &format!("b{i}"), &[c]);
            s += &format!(
                "  %r{i} = graph.conv %x, %w{i}, %b{i} {attrs} : ({}, {}, {}) -> {}\n",
                ty(&x),
                ty(&wt),
                ty(&[c]),
                outs[i]
            );
        } else {
            s += &format!(
                "  %r{i} = graph.conv %x, %w{i} {attrs} : ({}, {}) -> {}\n",
                ty(&x),
                ty(&wt),
                outs[i]
            );
        }
    }
    let results: Vec<String> = (0..count).map(|i| format!("%r{i}")).collect();
    s += &format!(
        "  return {} : {}\n}}\n",
        results.join(", "),
        outs.join(", ")
    );
    s
}

/// `start..end`, a proper part of `0..n` (`n` at least 2).
fn part(rng: &mut StdRng, n: i64) -> (i64, i64) {
    loop {
        let start = rng.random_range(0..n);
        let end = rng.random_range(start + 1..=n);
        if end - start < n {
            return (start, end);
        }
    }
}

fn split_matmul(rng: &mut StdRng) -> String {
    let (m, k, n) = (dim(rng), dim(rng), dim(rng) + 1);
    let (start, end) = part(rng, n);
    let (x, w, p, o) = (ty(&[m, k]), ty(&[k, n]), ty(&[m, n]), ty(&[m, end - start]));
    let mut s = format!("func.func @f(%x: {x}) -> {o} {{\n");
    s += &constant(rng, "w", &[k, n]);
    s += &format!("  %p = graph.matmul %x, %w : ({x}, {w}) -> {p}\n");
    s += &format!(
        "  %r = graph.slice %p {{axes = array<i64: -1>, ends = array<i64: {end}>, starts = array<i64: {start}>, steps = array<i64: 1>}} : ({p}) -> {o}\n  return %r : {o}\n}}\n"
    );
    s
}

fn split_conv(rng: &mut StdRng) -> String {
    let mut s = String::new();
    let out = conv(rng, &mut s);
    let (start, end) = part(rng, out[1]);
    let sliced = [out[0], end - start, out[2], out[3]];
    // Replace the function's result type: the slice is returned.
    let s = s.replacen(
        &format!("-> {} {{", ty(&out)),
        &format!("-> {} {{", ty(&sliced)),
        1,
    );
    format!(
        "{s}  %r = graph.slice %c {{axes = array<i64: 1>, ends = array<i64: {end}>, starts = array<i64: {start}>}} : ({}) -> {}\n  return %r : {}\n}}\n",
        ty(&out),
        ty(&sliced),
        ty(&sliced)
    )
}

fn scalar_constant(name: &str, value: f64) -> String {
    format!("  %{name} = graph.constant dense<{value:.9e}> : tensor<f32>\n")
}

fn gelu_erf(rng: &mut StdRng) -> String {
    let shape = [dim(rng), dim(rng) + 1];
    let t = ty(&shape);
    let sc = ty(&[]);
    let mut s = format!("func.func @f(%x: {t}) -> {t} {{\n");
    s += &scalar_constant("one", 1.0);
    s += &scalar_constant("half", 0.5);
    if rng.random_bool(0.5) {
        s += &scalar_constant("c", std::f64::consts::SQRT_2);
        s += &format!("  %d = graph.div %x, %c : ({t}, {sc}) -> {t}\n");
    } else {
        s += &scalar_constant("c", std::f64::consts::FRAC_1_SQRT_2);
        s += &format!("  %d = graph.mul %c, %x : ({sc}, {t}) -> {t}\n");
    }
    s += &format!("  %e = graph.erf %d : {t}\n");
    s += &format!("  %a = graph.add %one, %e : ({sc}, {t}) -> {t}\n");
    // The exporters' orders: (x * (1 + erf)) * 0.5 and (x * 0.5) * (1 + erf).
    if rng.random_bool(0.5) {
        s += &format!("  %m = graph.mul %x, %a : ({t}, {t}) -> {t}\n");
        s += &format!("  %r = graph.mul %m, %half : ({t}, {sc}) -> {t}\n");
    } else {
        s += &format!("  %m = graph.mul %x, %half : ({t}, {sc}) -> {t}\n");
        s += &format!("  %r = graph.mul %m, %a : ({t}, {t}) -> {t}\n");
    }
    s += &format!("  return %r : {t}\n}}\n");
    s
}

fn softmax_exp(rng: &mut StdRng) -> String {
    let shape = [dim(rng), dim(rng) + 1, dim(rng) + 1];
    let axis = rng.random_range(0..3usize);
    let mut reduced = shape;
    reduced[axis] = 1;
    let (t, r) = (ty(&shape), ty(&reduced));
    let axes = if rng.random_bool(0.5) {
        axis as i64
    } else {
        axis as i64 - 3
    };
    let mut s = format!("func.func @f(%x: {t}) -> {t} {{\n");
    let input = if rng.random_bool(0.75) {
        s += &format!("  %m = graph.reduce_max %x {{axes = array<i64: {axes}>}} : ({t}) -> {r}\n");
        s += &format!("  %d = graph.sub %x, %m : ({t}, {r}) -> {t}\n");
        "%d"
    } else {
        "%x"
    };
    s += &format!("  %e = graph.exp {input} : {t}\n");
    s += &format!(
        "  %s = graph.reduce_sum %e {{axes = array<i64: {axes}>, keepdims = true}} : ({t}) -> {r}\n"
    );
    s += &format!("  %r = graph.div %e, %s : ({t}, {r}) -> {t}\n  return %r : {t}\n}}\n");
    s
}

fn layernorm_moments(rng: &mut StdRng) -> String {
    let shape = [dim(rng), dim(rng) + 1, dim(rng) + 1];
    let first = rng.random_range(1..3usize);
    let axes: Vec<i64> = (first as i64..3).collect();
    let mut reduced = shape.to_vec();
    for &a in &axes {
        reduced[a as usize] = 1;
    }
    let normalized = &shape[first..];
    let (t, r, g) = (ty(&shape), ty(&reduced), ty(normalized));
    let sc = ty(&[]);
    let axes = list(&axes);
    let mut s = format!("func.func @f(%x: {t}) -> {t} {{\n");
    s += &scalar_constant("eps", 1e-5);
    s += &format!("  %m = graph.reduce_mean %x {{axes = array<i64: {axes}>}} : ({t}) -> {r}\n");
    s += &format!("  %d = graph.sub %x, %m : ({t}, {r}) -> {t}\n");
    if rng.random_bool(0.5) {
        s += &scalar_constant("two", 2.0);
        s += &format!("  %q = graph.pow %d, %two : ({t}, {sc}) -> {t}\n");
    } else {
        s += &format!("  %q = graph.mul %d, %d : ({t}, {t}) -> {t}\n");
    }
    s += &format!("  %v = graph.reduce_mean %q {{axes = array<i64: {axes}>}} : ({t}) -> {r}\n");
    s += &format!("  %a = graph.add %v, %eps : ({r}, {sc}) -> {r}\n");
    s += &format!("  %sd = graph.sqrt %a : {r}\n");
    s += &format!("  %n = graph.div %d, %sd : ({t}, {r}) -> {t}\n");
    let result = match rng.random_range(0..3) {
        0 => "%n",
        k => {
            s += &constant(rng, "g", normalized);
            s += &format!("  %y = graph.mul %n, %g : ({t}, {g}) -> {t}\n");
            if k == 1 {
                "%y"
            } else {
                s += &constant(rng, "b", normalized);
                s += &format!("  %z = graph.add %y, %b : ({t}, {g}) -> {t}\n");
                "%z"
            }
        }
    };
    s += &format!("  return {result} : {t}\n}}\n");
    s
}

/// The verification case of every rule, by rule name.
/// softmax(Q·Kᵀ / c [+ mask]) · V over heads, K given transposed as exporters write it,
/// the scale as a division or a multiplication, with or without a broadcast mask.
fn attention_softmax(rng: &mut StdRng) -> String {
    let (b, h, sq, skv, d, dv) = (dim(rng), dim(rng), dim(rng), dim(rng), dim(rng), dim(rng));
    let (q, kt, v) = (
        ty(&[b, h, sq, d]),
        ty(&[b, h, d, skv]),
        ty(&[b, h, skv, dv]),
    );
    let (sc, o) = (ty(&[b, h, sq, skv]), ty(&[b, h, sq, dv]));
    let m = ty(&[b, 1, 1, skv]);
    let mut s = format!("func.func @f(%q: {q}, %kt: {kt}, %v: {v}, %mask: {m}) -> {o} {{\n");
    s += &format!(
        "  %c = graph.constant dense<{:.3}> : tensor<f32>\n",
        rng.random_range(0.5..3.0)
    );
    s += &format!("  %s = graph.matmul %q, %kt : ({q}, {kt}) -> {sc}\n");
    let op = if rng.random_bool(0.5) { "div" } else { "mul" };
    s += &format!("  %z = graph.{op} %s, %c : ({sc}, tensor<f32>) -> {sc}\n");
    let logits = if rng.random_bool(0.5) {
        s += &format!("  %zm = graph.add %z, %mask : ({sc}, {m}) -> {sc}\n");
        "%zm"
    } else {
        "%z"
    };
    s += &format!("  %p = graph.softmax {logits} {{axis = -1 : i64}} : {sc}\n");
    s += &format!("  %y = graph.matmul %p, %v : ({sc}, {v}) -> {o}\n  return %y : {o}\n}}\n");
    s
}

/// The tanh GELU as exporters write it: the cube as a power or two products, the
/// constants on either side.
fn gelu_tanh(rng: &mut StdRng) -> String {
    let shape = [dim(rng), dim(rng) + 1];
    let t = ty(&shape);
    let sc = ty(&[]);
    let mut s = format!("func.func @f(%x: {t}) -> {t} {{\n");
    s += &scalar_constant("one", 1.0);
    s += &scalar_constant("half", 0.5);
    s += &scalar_constant("k", (2.0 / std::f64::consts::PI).sqrt());
    s += &scalar_constant("c", 0.044715);
    if rng.random_bool(0.5) {
        s += &scalar_constant("three", 3.0);
        s += &format!("  %cube = graph.pow %x, %three : ({t}, {sc}) -> {t}\n");
    } else {
        s += &format!("  %sq = graph.mul %x, %x : ({t}, {t}) -> {t}\n");
        s += &format!("  %cube = graph.mul %sq, %x : ({t}, {t}) -> {t}\n");
    }
    s += &format!("  %ct = graph.mul %c, %cube : ({sc}, {t}) -> {t}\n");
    s += &format!("  %in = graph.add %x, %ct : ({t}, {t}) -> {t}\n");
    s += &format!("  %ks = graph.mul %in, %k : ({t}, {sc}) -> {t}\n");
    s += &format!("  %th = graph.tanh %ks : {t}\n");
    s += &format!("  %a = graph.add %th, %one : ({t}, {sc}) -> {t}\n");
    if rng.random_bool(0.5) {
        s += &format!("  %h = graph.mul %x, %half : ({t}, {sc}) -> {t}\n");
        s += &format!("  %r = graph.mul %h, %a : ({t}, {t}) -> {t}\n");
    } else {
        s += &format!("  %h = graph.mul %x, %a : ({t}, {t}) -> {t}\n");
        s += &format!("  %r = graph.mul %h, %half : ({t}, {sc}) -> {t}\n");
    }
    s += &format!("  return %r : {t}\n}}\n");
    s
}

/// A 1x1 conv (with or without a bias) next to a 3x3 conv with one pixel of padding on
/// the same input, both with the same random stride.
fn enlarge_conv(rng: &mut StdRng) -> String {
    let (n, ci, stride) = (dim(rng), dim(rng), rng.random_range(1..3));
    let (h, w) = (dim(rng) + 1, dim(rng) + 1);
    let x = [n, ci, h, w];
    let (oh, ow) = ((h - 1) / stride + 1, (w - 1) / stride + 1);
    let (c1, c3) = (dim(rng), dim(rng));
    let (o1, o3) = (ty(&[n, c1, oh, ow]), ty(&[n, c3, oh, ow]));
    let (w1, w3) = ([c1, ci, 1, 1], [c3, ci, 3, 3]);
    let mut s = format!("func.func @f(%x: {}) -> ({o1}, {o3}) {{\n", ty(&x));
    s += &constant(rng, "w1", &w1);
    s += &constant(rng, "w3", &w3);
    let strides = format!("strides = array<i64: {stride}, {stride}>");
    if rng.random_bool(0.5) {
        s += &constant(rng, "b1", &[c1]);
        s += &format!(
            "  %r1 = graph.conv %x, %w1, %b1 {{{strides}}} : ({}, {}, {}) -> {o1}\n",
            ty(&x),
            ty(&w1),
            ty(&[c1])
        );
    } else {
        s += &format!(
            "  %r1 = graph.conv %x, %w1 {{{strides}}} : ({}, {}) -> {o1}\n",
            ty(&x),
            ty(&w1)
        );
    }
    s += &format!(
        "  %r3 = graph.conv %x, %w3 {{pads = array<i64: 1, 1, 1, 1>, {strides}}} : ({}, {}) -> {o3}\n",
        ty(&x),
        ty(&w3)
    );
    s += &format!("  return %r1, %r3 : {o1}, {o3}\n}}\n");
    s
}

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
        ("conv-batch-shared-input", batch_convs),
        ("matmul-split-sliced-columns", split_matmul),
        ("conv-split-sliced-channels", split_conv),
        ("gelu-from-erf", gelu_erf),
        ("gelu-from-tanh", gelu_tanh),
        ("softmax-from-exp", softmax_exp),
        ("layernorm-from-moments", layernorm_moments),
        ("conv-enlarge-1x1-to-3x3", enlarge_conv),
        ("attention-from-softmax", attention_softmax),
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
