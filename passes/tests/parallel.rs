//! `func.func(canonicalize,cse)` on many functions: threads change nothing in the result.

use tb_ir::Context;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_ir::printer::{PrintOptions, print_operation};

/// `n` functions that call each other, with casts to fold, duplicates to merge, dead casts,
/// unreachable blocks and nested regions; small xorshift so every run builds the same text.
fn module(n: usize) -> String {
    let types = ["i8", "i16", "i32", "i64", "f16", "f32", "f64", "index"];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |m: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m as u64) as usize
    };
    let sigs: Vec<(&str, &str)> = (0..n)
        .map(|_| (types[next(types.len())], types[next(types.len())]))
        .collect();
    let mut text = String::from("module {\n");
    for (f, &(arg, ret_ty)) in sigs.iter().enumerate() {
        let cast = |dst: &str, src: &str, from: &str, to: &str| {
            format!(
                "    {dst} = \"builtin.unrealized_conversion_cast\"({src}) : ({from}) -> {to}\n"
            )
        };
        let mut live = vec![("%arg0".to_string(), arg)];
        let mut body = String::new();
        for i in 0..(10 + next(30)) {
            let (src, src_ty) = live[next(live.len())].clone();
            let ty = types[next(types.len())];
            match next(4) {
                // Duplicates for CSE.
                0 => {
                    body += &cast(&format!("%d{i}"), &src, src_ty, ty);
                    body += &cast(&format!("%e{i}"), &src, src_ty, ty);
                    live.push((format!("%e{i}"), ty));
                }
                // A round trip for canonicalize.
                1 => {
                    body += &cast(&format!("%m{i}"), &src, src_ty, ty);
                    body += &cast(&format!("%r{i}"), &format!("%m{i}"), ty, src_ty);
                    live.push((format!("%r{i}"), src_ty));
                }
                // Duplicates in a nested region, which sees the values above it.
                2 => {
                    body += "    \"unreg.region\"() ({\n";
                    body += &cast(&format!("  %n{i}"), &src, src_ty, ty);
                    body += &cast(&format!("  %k{i}"), &src, src_ty, ty);
                    body += &format!(
                        "      \"unreg.use\"(%n{i}, %k{i}) : ({ty}, {ty}) -> ()\n    }}) : () -> ()\n"
                    );
                }
                _ => {
                    body += &cast(&format!("%c{i}"), &src, src_ty, ty);
                    live.push((format!("%c{i}"), ty));
                }
            }
        }
        let (callee_arg, callee_ret) = sigs[(f + 1) % n];
        let (src, src_ty) = live[next(live.len())].clone();
        body += &cast("%ca", &src, src_ty, callee_arg);
        body += &format!(
            "    %cr = \"func.call\"(%ca) <{{callee = @f{}}}> : ({callee_arg}) -> {callee_ret}\n",
            (f + 1) % n
        );
        body += &cast("%ret", "%cr", callee_ret, ret_ty);
        text += &format!(
            "  \"func.func\"() <{{function_type = ({arg}) -> {ret_ty}, sym_name = \"f{f}\"}}> ({{\n  ^bb0(%arg0: {arg}):\n{body}    \"unreg.br\"()[^bb2] : () -> ()\n  ^bb1:\n    \"unreg.dead\"() : () -> ()\n    \"unreg.br\"()[^bb2] : () -> ()\n  ^bb2:\n    \"func.return\"(%ret) : ({ret_ty}) -> ()\n  }}) : () -> ()\n"
        );
    }
    text + "}\n"
}

fn run(text: &str, pipeline: &str, threads: usize) -> String {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).expect("the dialects register");
    ctx.allow_unregistered_dialects = true;
    let top = parse_source(&mut ctx, text, "m.mlir", &ParseOptions::default()).expect("parses");
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let mut pm = PassManager::new(&Pipeline::parse(pipeline).unwrap(), &registry).unwrap();
    pm.set_threads(threads);
    let instr = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    pm.run(&mut ctx, top, &instr)
        .expect("the pipeline succeeds");
    let mut out = String::new();
    for generic in [false, true] {
        let print = PrintOptions {
            generic,
            debug_info: true,
            local_scope: false,
        };
        out += &print_operation(&ctx, top, print);
    }
    out
}

#[test]
fn canonicalize_and_cse_on_threads_print_what_they_print_sequentially() {
    let text = module(200);
    let pipeline =
        "builtin.module(func.func(canonicalize,cse),func.func(canonicalize{max-iterations=2},cse))";
    let sequential = run(&text, pipeline, 1);
    for threads in [2, 3, 8] {
        assert_eq!(
            run(&text, pipeline, threads),
            sequential,
            "{threads} threads"
        );
    }
    // The passes did something.
    assert!(!sequential.contains("unreg.dead"));
}
