//! `tb-run --profile`: the time of each kernel of a compiled function, with the ONNX nodes
//! each kernel computes, as a table and as a Chrome trace (`chrome://tracing`, Perfetto).
//!
//! A kernel is an op with regions (a loop nest) directly in the function's body: after
//! lowering, each computes one or more graph ops, whose names the kernel's location keeps
//! (`loc("node")`, or `loc(fused[...])` for several). [`instrument`] brackets each kernel
//! with calls of the runtime's `tb_rt_profile_begin(k)`/`tb_rt_profile_end(k)`, which the
//! JIT binds to [`tb_backends::cpu::runtime_profile`]; the kernels themselves are compiled
//! as they would be without it.

use std::fmt::Write;
use std::time::Duration;

use tb_backends::cpu::runtime_profile::{KernelEvent, PROFILE_BEGIN, PROFILE_END, Recording};
use tb_ir::location::LocationKind;
use tb_ir::operation::OperationState;
use tb_ir::{AttrKind, Context, Location, OpId, Signedness};

/// One instrumented kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The kernel's op, e.g. `loop.parallel`.
    pub op: String,
    /// The names of the nodes it computes, in order, without repeats (empty when its
    /// location names none).
    pub nodes: Vec<String>,
}

impl Kernel {
    /// `node1+node2`, or the op's name when no node is named.
    fn label(&self) -> String {
        if self.nodes.is_empty() {
            self.op.clone()
        } else {
            self.nodes.join("+")
        }
    }
}

/// Every name a location gives, through call sites and fused locations, in order.
fn location_names(ctx: &Context, loc: Location, names: &mut Vec<String>) {
    match ctx.location_kind(loc) {
        Some(LocationKind::Name { name, child }) => {
            if !names.contains(name) {
                names.push(name.clone());
            }
            if let Some(child) = child {
                location_names(ctx, *child, names);
            }
        }
        Some(LocationKind::CallSite { callee, .. }) => location_names(ctx, *callee, names),
        Some(LocationKind::Fused { locations, .. }) => {
            for &l in locations {
                location_names(ctx, l, names);
            }
        }
        _ => {}
    }
}

/// The nodes kernel `op` computes: the names its location gives, else those of the ops
/// inside it (a lowering that kept the node on the inner ops only).
fn kernel_nodes(ctx: &Context, op: OpId) -> Vec<String> {
    let mut names = Vec::new();
    location_names(ctx, ctx.op(op).loc, &mut names);
    if names.is_empty() {
        ctx.walk_nested(op, &mut |inner| {
            location_names(ctx, ctx.op(inner).loc, &mut names)
        });
    }
    names
}

fn call(ctx: &mut Context, callee: &str, operand: tb_ir::Value, loc: Location) -> OpId {
    let name = ctx.intern_op_name("func.call");
    let callee = ctx.intern_attr(AttrKind::SymbolRef {
        root: callee.to_owned(),
        nested: Vec::new(),
    });
    let props = ctx.dictionary_attr(vec![("callee".to_owned(), callee)]);
    ctx.create_op(OperationState {
        name,
        operands: vec![operand],
        result_types: vec![],
        successors: vec![],
        num_regions: 0,
        properties: Some(props),
        attributes: vec![],
        loc,
    })
}

/// `func.func private @symbol(i64)`, appended to the module's body.
fn declare(ctx: &mut Context, module: OpId, symbol: &str) -> Result<(), String> {
    if tb_ir::symbol_table::lookup_symbol_in(ctx, module, symbol).is_some() {
        return Err(format!(
            "--profile: the module already defines @{symbol}, which profiling needs"
        ));
    }
    let i64_type = ctx.integer_type(64, Signedness::Signless);
    let fn_type = ctx.function_type(vec![i64_type], vec![]);
    let props = vec![
        ("sym_name".to_owned(), ctx.string_attr(symbol)),
        ("function_type".to_owned(), ctx.type_attr(fn_type)),
        ("sym_visibility".to_owned(), ctx.string_attr("private")),
    ];
    let props = ctx.dictionary_attr(props);
    let name = ctx.intern_op_name("func.func");
    let loc = ctx.op(module).loc;
    let func = ctx.create_op(OperationState {
        name,
        operands: vec![],
        result_types: vec![],
        successors: vec![],
        num_regions: 1,
        properties: Some(props),
        attributes: vec![],
        loc,
    });
    let body = ctx
        .op(module)
        .regions
        .first()
        .and_then(|&r| ctx.region(r).blocks.first().copied())
        .ok_or("--profile: the module has no body")?;
    ctx.append_op(body, func);
    Ok(())
}

/// Brackets each kernel of `function` (a lowered, loop-level function of `module`) with
/// the runtime's profiling calls, and returns the kernels in the order they run. The
/// module still verifies afterwards.
pub fn instrument(ctx: &mut Context, module: OpId, function: &str) -> Result<Vec<Kernel>, String> {
    let func = tb_ir::symbol_table::lookup_symbol_in(ctx, module, function)
        .ok_or_else(|| format!("--profile: no function @{function}"))?;
    let body = ctx
        .op(func)
        .regions
        .first()
        .and_then(|&r| ctx.region(r).blocks.first().copied())
        .ok_or_else(|| format!("--profile: @{function} has no body"))?;
    let kernels: Vec<OpId> = ctx
        .block_ops(body)
        .filter(|&op| !ctx.op(op).regions.is_empty())
        .collect();
    declare(ctx, module, PROFILE_BEGIN)?;
    declare(ctx, module, PROFILE_END)?;
    let i64_type = ctx.integer_type(64, Signedness::Signless);
    let mut found = Vec::with_capacity(kernels.len());
    for (index, &op) in kernels.iter().enumerate() {
        let loc = ctx.op(op).loc;
        let next = ctx
            .op(op)
            .next
            .ok_or("--profile: a kernel ends its block, which has no terminator")?;
        let value = ctx.integer_attr(index as i128, i64_type);
        let constant = tb_dialects::arith::build_constant(ctx, value, i64_type, loc);
        ctx.insert_op_before(op, constant);
        let id = ctx.op(constant).results[0];
        let begin = call(ctx, PROFILE_BEGIN, id, loc);
        ctx.insert_op_before(op, begin);
        let end = call(ctx, PROFILE_END, id, loc);
        ctx.insert_op_before(next, end);
        found.push(Kernel {
            op: ctx.op_name(op).to_owned(),
            nodes: kernel_nodes(ctx, op),
        });
    }
    tb_ir::verifier::verify(ctx, module)
        .map_err(|d| format!("--profile: internal error: instrumented IR: {}", d.message))?;
    Ok(found)
}

/// Time per kernel over a recording of `runs` runs.
struct Totals {
    /// Per kernel: executions and total time.
    per_kernel: Vec<(u64, Duration)>,
    total: Duration,
}

fn totals(kernels: &[Kernel], events: &[KernelEvent]) -> Totals {
    let mut per_kernel = vec![(0u64, Duration::ZERO); kernels.len()];
    for e in events {
        if let Some(slot) = usize::try_from(e.kernel)
            .ok()
            .and_then(|k| per_kernel.get_mut(k))
        {
            slot.0 += 1;
            slot.1 += e.duration;
        }
    }
    let total = per_kernel.iter().map(|(_, d)| *d).sum();
    Totals { per_kernel, total }
}

/// The profile as a table, slowest kernel first: its number (program order), op, time per
/// run, share of the kernels' time and the nodes it computes.
pub fn table(kernels: &[Kernel], recording: &Recording, runs: u32) -> String {
    let t = totals(kernels, &recording.events);
    let runs_f = f64::from(runs.max(1));
    let ms_per_run = |d: Duration| d.as_secs_f64() * 1e3 / runs_f;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "profile: {} kernels, {runs} run(s), {:.3} ms per run in kernels",
        kernels.len(),
        ms_per_run(t.total)
    );
    let _ = writeln!(
        out,
        "  {:<7} {:<16} {:>12} {:>7}  nodes",
        "kernel", "op", "ms/run", "%"
    );
    let mut order: Vec<usize> = (0..kernels.len()).collect();
    order.sort_by(|&a, &b| t.per_kernel[b].1.cmp(&t.per_kernel[a].1).then(a.cmp(&b)));
    for k in order {
        let (_, time) = t.per_kernel[k];
        let share = if t.total.is_zero() {
            0.0
        } else {
            100.0 * time.as_secs_f64() / t.total.as_secs_f64()
        };
        let nodes = if kernels[k].nodes.is_empty() {
            "-".to_owned()
        } else {
            kernels[k].nodes.join(", ")
        };
        let _ = writeln!(
            out,
            "  k{:<6} {:<16} {:>12.4} {:>6.1}%  {nodes}",
            k,
            kernels[k].op,
            ms_per_run(time),
            share
        );
    }
    if recording.dropped > 0 {
        let _ = writeln!(
            out,
            "  ({} kernel executions past the recorder's limit are not counted)",
            recording.dropped
        );
    }
    out
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The recording in Chrome's trace event format: one complete (`"ph": "X"`) event per
/// kernel execution, times in microseconds, with the kernel's op and nodes as arguments.
pub fn chrome_trace(kernels: &[Kernel], recording: &Recording) -> String {
    let mut out = String::from("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    let mut first = true;
    for e in &recording.events {
        let Some(kernel) = usize::try_from(e.kernel).ok().and_then(|k| kernels.get(k)) else {
            continue;
        };
        if !first {
            out.push_str(",\n");
        }
        first = false;
        let nodes: Vec<String> = kernel.nodes.iter().map(|n| json_string(n)).collect();
        let _ = write!(
            out,
            "  {{\"name\": {}, \"cat\": \"kernel\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \
             \"ts\": {:.3}, \"dur\": {:.3}, \"args\": {{\"kernel\": {}, \"op\": {}, \"nodes\": [{}]}}}}",
            json_string(&kernel.label()),
            e.start.as_secs_f64() * 1e6,
            e.duration.as_secs_f64() * 1e6,
            e.kernel,
            json_string(&kernel.op),
            nodes.join(", ")
        );
    }
    out.push_str("\n]}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FUSED: &str = r#"
        func.func @main(%x: memref<4xf32>, %y: memref<4xf32>) {
          loop.for %i = 0 to 4 {
            %v = loop.load %x[%i] : memref<4xf32>
            loop.store %v, %y[%i] : memref<4xf32>
            loop.yield
          } loc(fused["conv_1", "relu_1"])
          loop.for %i = 0 to 4 {
            %v = loop.load %y[%i] : memref<4xf32>
            loop.store %v, %x[%i] : memref<4xf32>
            loop.yield
          } loc("copy"("m.onnx":0:0))
          return
        }"#;

    fn event(kernel: i64, start_us: u64, duration_us: u64) -> KernelEvent {
        KernelEvent {
            kernel,
            start: Duration::from_micros(start_us),
            duration: Duration::from_micros(duration_us),
        }
    }

    #[test]
    fn each_loop_nest_is_a_kernel_named_by_its_nodes() {
        let mut loaded = crate::load::load_mlir(FUSED, "m.mlir").unwrap();
        let kernels = instrument(&mut loaded.ctx, loaded.module, "main").unwrap();
        let names: Vec<Vec<String>> = kernels.iter().map(|k| k.nodes.clone()).collect();
        assert_eq!(names, [vec!["conv_1", "relu_1"], vec!["copy"]]);
        let text = tb_ir::printer::print_operation(
            &loaded.ctx,
            loaded.module,
            tb_ir::printer::PrintOptions::default(),
        );
        assert_eq!(
            text.matches("call @tb_rt_profile_begin").count(),
            2,
            "{text}"
        );
        assert_eq!(text.matches("call @tb_rt_profile_end").count(), 2, "{text}");
        assert!(
            text.contains("func.func private @tb_rt_profile_begin(i64)"),
            "{text}"
        );
    }

    #[test]
    fn a_module_that_defines_the_runtime_symbol_is_refused() {
        let text = format!("{FUSED}\nfunc.func private @tb_rt_profile_begin(i64)");
        let mut loaded = crate::load::load_mlir(&text, "m.mlir").unwrap();
        let error = instrument(&mut loaded.ctx, loaded.module, "main").unwrap_err();
        assert!(error.contains("@tb_rt_profile_begin"), "{error}");
    }

    #[test]
    fn the_table_puts_the_slowest_kernel_first_with_its_share() {
        let kernels = vec![
            Kernel {
                op: "loop.for".into(),
                nodes: vec!["a".into()],
            },
            Kernel {
                op: "loop.parallel".into(),
                nodes: vec![],
            },
        ];
        let recording = Recording {
            events: vec![event(0, 0, 100), event(1, 100, 300), event(0, 400, 100)],
            dropped: 0,
        };
        let text = table(&kernels, &recording, 2);
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert!(rows[0].starts_with("  k1 "), "{text}");
        assert!(
            rows[0].contains("0.1500") && rows[0].contains("60.0%"),
            "{text}"
        );
        assert!(
            rows[1].contains("0.1000") && rows[1].ends_with("  a"),
            "{text}"
        );
        assert!(
            text.starts_with("profile: 2 kernels, 2 run(s), 0.250 ms per run"),
            "{text}"
        );
    }

    #[test]
    fn the_trace_is_json_with_one_complete_event_per_execution() {
        let kernels = vec![Kernel {
            op: "loop.for".into(),
            nodes: vec!["conv \"1\"".into(), "relu".into()],
        }];
        let recording = Recording {
            events: vec![event(0, 5, 20), event(0, 30, 10)],
            dropped: 0,
        };
        let trace = crate::json::parse(&chrome_trace(&kernels, &recording)).unwrap();
        let crate::json::Json::Array(events) = trace.get("traceEvents").unwrap() else {
            panic!("traceEvents is not an array");
        };
        assert_eq!(events.len(), 2);
        assert_eq!(
            events[0].get("name").unwrap().as_str(),
            Some("conv \"1\"+relu")
        );
        assert_eq!(events[0].get("ph").unwrap().as_str(), Some("X"));
        assert_eq!(events[1].get("dur"), Some(&crate::json::Json::Number(10.0)));
    }
}
