//! `#loop.schedule<...>`: a loop nest's schedule parses from hand-written text, prints back
//! canonically, is read typed from a loop, and malformed or inconsistent schedules are
//! errors.

use tb_dialects::loop_::{self, Packing, Schedule};
use tb_ir::Context;
use tb_ir::parser::{ParseOptions, parse_attribute_text, parse_source};
use tb_ir::printer::attr_to_string;

fn context() -> Context {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).expect("every dialect registers");
    ctx
}

fn parse_schedule(ctx: &mut Context, text: &str) -> Result<Schedule, String> {
    let attr = parse_attribute_text(ctx, text).map_err(|d| d.message)?;
    Ok(ctx
        .typed_attr::<Schedule>(attr)
        .expect("a #loop.schedule is typed")
        .clone())
}

#[test]
fn every_field_parses_into_the_typed_value() {
    let mut ctx = context();
    let s = parse_schedule(
        &mut ctx,
        "#loop.schedule<tiles = [[64, 8], [256, 16], [128]], order = [0, 2, 1], parallel = [0], vector = 8, unroll = 4, pack = rhs>",
    )
    .unwrap();
    assert_eq!(s.tiles, vec![vec![64, 8], vec![256, 16], vec![128]]);
    assert_eq!(s.order, vec![0, 2, 1]);
    assert_eq!(s.parallel, vec![0]);
    assert_eq!((s.vector, s.unroll, s.pack), (8, 4, Packing::Rhs));
}

#[test]
fn defaults_are_omitted_and_fields_print_in_canonical_order() {
    let mut ctx = context();
    let attr = parse_attribute_text(
        &mut ctx,
        "#loop.schedule<pack = none, unroll = 1, order = [0, 1], tiles = [[], [32]], vector = 1>",
    )
    .unwrap();
    assert_eq!(
        attr_to_string(&ctx, attr),
        "#loop.schedule<tiles = [[], [32]]>"
    );
    let full = "#loop.schedule<tiles = [[8], [4]], order = [1, 0], parallel = [1], vector = 4, unroll = 2, pack = both>";
    let attr = parse_attribute_text(&mut ctx, full).unwrap();
    assert_eq!(attr_to_string(&ctx, attr), full);
}

#[test]
fn schedules_intern_by_value() {
    let mut ctx = context();
    let a = parse_attribute_text(&mut ctx, "#loop.schedule<tiles = [[8]], order = [0]>").unwrap();
    let b = parse_attribute_text(&mut ctx, "#loop.schedule<tiles = [[8]]>").unwrap();
    assert_eq!(a, b);
}

#[test]
fn a_schedule_is_read_from_the_outermost_loop() {
    let mut ctx = context();
    let module = parse_source(
        &mut ctx,
        r#"
func.func @f(%m: memref<16xf32>) {
  %c = arith.constant 1.0 : f32
  loop.for %i = 0 to 16 attributes {loop.schedule = #loop.schedule<tiles = [[4]], unroll = 2>} {
    loop.store %c, %m[%i] : memref<16xf32>
  }
  return
}
"#,
        "input.mlir",
        &ParseOptions::default(),
    )
    .unwrap_or_else(|d| panic!("{}", d.message));
    let mut found = Vec::new();
    ctx.walk_nested(module, &mut |op| {
        if ctx.op_name(op) == loop_::FOR {
            found.push(op);
        }
    });
    let s = loop_::schedule(&ctx, found[0]).expect("the loop carries its schedule");
    assert_eq!((s.tiles.clone(), s.unroll), (vec![vec![4]], 2));
}

#[test]
fn malformed_schedules_are_parse_errors() {
    let mut ctx = context();
    for (text, why) in [
        (
            "#loop.schedule<tiles = [[8]], tiles = [[4]]>",
            "given twice",
        ),
        (
            "#loop.schedule<tile = [[8]]>",
            "unknown schedule field 'tile'",
        ),
        ("#loop.schedule<tiles = [[0]]>", "not positive"),
        ("#loop.schedule<tiles = [[4, 8]]>", "grow inwards"),
        (
            "#loop.schedule<tiles = [[4], [4]], order = [0, 0]>",
            "not a permutation",
        ),
        (
            "#loop.schedule<tiles = [[4]], parallel = [3]>",
            "outside the nest",
        ),
        (
            "#loop.schedule<tiles = [[4]], vector = 0>",
            "vector width 0",
        ),
        (
            "#loop.schedule<tiles = [[4]], pack = cols>",
            "unknown packing 'cols'",
        ),
        ("#loop.schedule<tiles = [[4]] vector = 4>", "expected ','"),
        (
            "#loop.schedule<tiles = [[4]], unroll = -2>",
            "unroll factor -2",
        ),
    ] {
        let err = parse_schedule(&mut ctx, text).unwrap_err();
        assert!(err.contains(why), "{text}: {err}");
    }
}

#[test]
fn reductions_cannot_run_on_threads() {
    let s = Schedule {
        parallel: vec![2],
        ..Schedule::identity(3)
    };
    let err = s.verify(3, &[false, false, true]).unwrap_err();
    assert!(err.contains("reduction"), "{err}");
    assert!(s.verify(3, &[false, false, false]).is_ok());
    assert!(s.verify(2, &[false, false]).is_err());
}
