//! `cse` on region shapes that once broke it: regions without blocks (declarations, empty
//! regions of nested ops) and a dominator tree as deep as a long chain of blocks.

use tb_ir::Context;
use tb_ir::parser::{ParseOptions, parse_source};
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_ir::printer::{PrintOptions, print_operation};

fn run(text: &str, pipeline: &str) -> String {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).expect("the dialects register");
    ctx.allow_unregistered_dialects = true;
    let top = parse_source(&mut ctx, text, "m.mlir", &ParseOptions::default()).expect("parses");
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let mut pm = PassManager::new(&Pipeline::parse(pipeline).unwrap(), &registry).unwrap();
    let instr = Instrumentation {
        verify_each: true,
        ..Instrumentation::default()
    };
    pm.run(&mut ctx, top, &instr)
        .expect("the pipeline succeeds");
    let print = PrintOptions {
        generic: true,
        debug_info: false,
        local_scope: false,
    };
    print_operation(&ctx, top, print)
}

#[test]
fn declarations_and_empty_regions_are_left_as_they_are() {
    let text = r#"
func.func private @decl(i32) -> i32
func.func @f(%a: i32) -> (i64, i64) {
  "unreg.empty"() ({}, {}) : () -> ()
  "unreg.br"()[^bb1] : () -> ()
^bb1:
  %x = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i64
  %y = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i64
  return %x, %y : i64, i64
}
"#;
    for pipeline in ["builtin.module(cse)", "builtin.module(func.func(cse))"] {
        let out = run(text, pipeline);
        assert!(out.contains("sym_name = \"decl\""), "{pipeline}: {out}");
        assert!(out.contains("\"unreg.empty\"() ({\n    }, {\n    }) : () -> ()"));
        assert_eq!(
            out.matches("unrealized_conversion_cast").count(),
            1,
            "{pipeline}: the duplicate cast is merged: {out}"
        );
    }
}

#[test]
fn a_chain_of_blocks_deeper_than_the_stack_is_simplified() {
    // Every block of the chain repeats the entry's cast: all but the entry's go away.
    let blocks = 100_000;
    let mut text = String::from(
        "func.func @chain(%a: i32) -> i64 {\n  %c = \"builtin.unrealized_conversion_cast\"(%a) : (i32) -> i64\n  \"unreg.br\"()[^bb1] : () -> ()\n",
    );
    for i in 1..=blocks {
        text += &format!(
            "^bb{i}:\n  %v{i} = \"builtin.unrealized_conversion_cast\"(%a) : (i32) -> i64\n  \"unreg.use\"(%v{i}) : (i64) -> ()\n"
        );
        if i == blocks {
            text += &format!("  return %v{i} : i64\n");
        } else {
            text += &format!("  \"unreg.br\"()[^bb{}] : () -> ()\n", i + 1);
        }
    }
    text += "}\n";
    let out = run(&text, "builtin.module(cse)");
    assert_eq!(out.matches("unrealized_conversion_cast").count(), 1);
    assert_eq!(
        out.matches("\"unreg.use\"(%0) : (i64) -> ()").count(),
        blocks
    );
}
