//! Budgets and determinism of `graph-eqsat`: the same input gives the same output, each
//! limit stops saturation and is reported as the reason, and the rebuilt ops are located
//! at the input ops they replace.

use std::time::Duration;

use tb_interpreter::check::{Tolerance, check_transform};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_passes::eqsat::{self, AnalyticalCost, Config, Extractor, Limits, Report, StopReason};

/// A two-layer encoder block with projections sharing their input, batch-normed convs
/// and transposes that cancel: enough for every rule family to fire.
const MODEL: &str = r#"
func.func @model(%x: tensor<4x8xf32>, %img: tensor<1x2x5x5xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x2x5x5xf32>) {
  %a = graph.constant dense<0.25> : tensor<8x8xf32>
  %b = graph.constant dense<-0.5> : tensor<8x8xf32>
  %c = graph.constant dense<0.125> : tensor<8x8xf32>
  %q = graph.matmul %x, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("q")
  %k = graph.matmul %x, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("k")
  %v = graph.matmul %x, %c : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("v")
  %t = graph.transpose %q {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %r = graph.relu %t : tensor<8x4xf32>
  %u = graph.transpose %r {perm = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %w = graph.constant dense<[[[[0.5]], [[-0.25]]], [[[0.75]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  %s = graph.constant dense<[1.5, 0.5]> : tensor<2xf32>
  %o = graph.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %m = graph.constant dense<[0.3, -0.1]> : tensor<2xf32>
  %var = graph.constant dense<[0.9, 1.7]> : tensor<2xf32>
  %conv = graph.conv %img, %w : (tensor<1x2x5x5xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x5x5xf32> loc("conv")
  %bn = graph.batch_normalization %conv, %s, %o, %m, %var : (tensor<1x2x5x5xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32> loc("bn")
  return %u, %k, %v, %bn : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x2x5x5xf32>
}
"#;

/// Runs graph-eqsat with `config` on `src` (checked against the interpreter); returns
/// the printed result (with locations) and the report.
fn run(src: &str, config: &Config) -> (String, Report) {
    let mut report = None;
    let mut text = String::new();
    check_transform(
        src,
        |ctx, module| {
            let region = ctx.op(module).regions[0];
            let block = ctx.region(region).blocks[0];
            let func = ctx.block_ops(block).next().expect("a function");
            let r = eqsat::optimize_function(ctx, func, config, &AnalyticalCost::default())
                .map_err(|m| tb_ir::Diagnostic::error(ctx.op(func).loc, m))?;
            report = Some(r);
            let options = PrintOptions {
                debug_info: true,
                local_scope: true,
                ..PrintOptions::default()
            };
            text = print_operation(ctx, module, options);
            Ok(())
        },
        Tolerance {
            rtol: 1e-4,
            atol: 1e-5,
        },
        2,
    )
    .unwrap_or_else(|e| panic!("graph-eqsat changed the meaning:\n{e}"));
    (text, report.expect("the pass ran"))
}

fn with_limits(limits: Limits) -> Config {
    Config {
        limits,
        ..Config::default()
    }
}

#[test]
fn the_same_input_gives_the_same_output() {
    let (first, report) = run(MODEL, &Config::default());
    assert!(report.changed);
    for _ in 0..3 {
        let (again, _) = run(MODEL, &Config::default());
        assert_eq!(first, again);
    }
}

#[test]
fn saturation_reports_that_it_saturated() {
    let (_, report) = run(MODEL, &Config::default());
    assert_eq!(report.stop, Some(StopReason::Saturated));
    assert!(report.ops_after < report.ops_before, "{report:?}");
    assert!(report.cost_after < report.cost_before, "{report:?}");
}

#[test]
fn the_iteration_limit_stops_saturation() {
    let limits = Limits {
        max_iterations: 1,
        ..Limits::default()
    };
    let (_, report) = run(MODEL, &with_limits(limits));
    assert_eq!(report.stop, Some(StopReason::IterationLimit));
    assert_eq!(report.iterations, 1);
}

#[test]
fn the_node_limit_stops_saturation() {
    let limits = Limits {
        max_nodes: 40,
        ..Limits::default()
    };
    let (_, report) = run(MODEL, &with_limits(limits));
    assert_eq!(report.stop, Some(StopReason::NodeLimit));
}

#[test]
fn the_time_limit_stops_saturation() {
    let limits = Limits {
        max_time: Duration::ZERO,
        ..Limits::default()
    };
    let (_, report) = run(MODEL, &with_limits(limits));
    assert_eq!(report.stop, Some(StopReason::TimeLimit));
}

#[test]
fn small_graphs_are_extracted_exactly() {
    let (_, report) = run(MODEL, &Config::default());
    assert_eq!(report.extractor, Extractor::Exact);
    let greedy = Config {
        exact_max_classes: 0,
        ..Config::default()
    };
    let (_, report) = run(MODEL, &greedy);
    assert_eq!(report.extractor, Extractor::Greedy);
}

#[test]
fn rebuilt_ops_are_located_at_the_ops_they_replace() {
    let (text, _) = run(MODEL, &Config::default());
    let line = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no '{needle}' in\n{text}"))
            .to_string()
    };
    // The batch norm folded into the conv: one conv located at both.
    let conv = line("graph.conv");
    assert!(conv.contains(r#"loc(fused["bn", "conv"])"#), "{text}");
    // The batched projection: one matmul located at all three.
    let matmul = line("graph.matmul");
    assert!(matmul.contains(r#"loc(fused["q", "k", "v"])"#), "{text}");
}
