//! `loop-conv-microkernel` runs pooling nests on its depthwise kernel: max and average
//! pools, padded, strided, dilated, rows the vector does not divide, one thread and threads,
//! checked by the interpreter on random inputs against the graph-level program.

mod common;

use common::check_pipeline;
use tb_interpreter::check::CheckReport;

fn check(src: &str, kernel: &str) -> CheckReport {
    check_pipeline(
        src,
        &format!(
            "builtin.module(convert-graph-to-te, convert-te-to-loop, canonicalize, func.func({kernel}))"
        ),
    )
}

/// A pool `op` of `x: 1 x c x h x w` with a `k x k` window.
#[derive(Clone, Copy)]
struct Pool {
    op: &'static str,
    c: i64,
    h: i64,
    w: i64,
    k: i64,
    stride: i64,
    pads: [i64; 4],
    dilation: i64,
    extra: &'static str,
}

impl Pool {
    fn source(self) -> String {
        let Pool {
            op,
            c,
            h,
            w,
            k,
            stride,
            pads,
            dilation,
            extra,
        } = self;
        let out =
            |size: i64, lo: i64, hi: i64| (size + lo + hi - dilation * (k - 1) - 1) / stride + 1;
        let (oh, ow) = (out(h, pads[0], pads[2]), out(w, pads[1], pads[3]));
        let dilations = if op == "max_pool" {
            format!("dilations = array<i64: {dilation}, {dilation}>, ")
        } else {
            String::new()
        };
        format!(
            r#"func.func @pool(%x: tensor<1x{c}x{h}x{w}xf32>) -> tensor<1x{c}x{oh}x{ow}xf32> {{
  %0 = graph.{op} %x {{{extra}{dilations}kernel_shape = array<i64: {k}, {k}>, pads = array<i64: {}, {}, {}, {}>, strides = array<i64: {stride}, {stride}>}} : (tensor<1x{c}x{h}x{w}xf32>) -> tensor<1x{c}x{oh}x{ow}xf32>
  return %0 : tensor<1x{c}x{oh}x{ow}xf32>
}}
"#,
            pads[0], pads[1], pads[2], pads[3]
        )
    }
}

const MAX: Pool = Pool {
    op: "max_pool",
    c: 3,
    h: 11,
    w: 13,
    k: 3,
    stride: 2,
    pads: [1, 1, 1, 1],
    dilation: 1,
    extra: "",
};

/// The kernel ran: vector loads of the window, and no clamped scalar read is left.
fn rewritten(out: &CheckReport) {
    assert!(
        out.text.contains("loop.vector_load") && out.text.contains("loop.vector_store"),
        "the depthwise kernel:\n{}",
        out.text
    );
    assert!(
        !out.text.contains("arith.maxsi"),
        "the kernel reads a padded copy, no clamp:\n{}",
        out.text
    );
}

#[test]
fn max_pools_vectorize_along_rows() {
    for (stride, pads, dilation) in [
        (2, [1, 1, 1, 1], 1),
        (1, [1, 1, 1, 1], 1),
        (2, [0, 1, 1, 0], 1),
        (1, [2, 2, 2, 2], 2),
        (3, [1, 0, 0, 2], 1),
    ] {
        let pool = Pool {
            stride,
            pads,
            dilation,
            ..MAX
        };
        let out = check(
            &pool.source(),
            "loop-conv-microkernel{mr=4 vector=4 threads=1}",
        );
        rewritten(&out);
    }
}

#[test]
fn a_max_pool_keeps_its_nan_rule_on_each_vector() {
    let out = check(
        &MAX.source(),
        "loop-conv-microkernel{mr=8 vector=4 threads=0}",
    );
    rewritten(&out);
    assert!(
        out.text.contains("math.isnan") && out.text.contains(": vector<4xi1>, vector<4xf32>"),
        "the NaN-as-lowest select runs on vectors:\n{}",
        out.text
    );
}

#[test]
fn an_unpadded_unit_stride_pool_reads_its_input_in_place() {
    let pool = Pool {
        stride: 1,
        pads: [0; 4],
        ..MAX
    };
    let out = check(
        &pool.source(),
        "loop-conv-microkernel{mr=4 vector=4 threads=0}",
    );
    assert!(out.text.contains("loop.vector_load"), "{}", out.text);
    // Only the result: no staged copy of the input.
    assert_eq!(out.text.matches("loop.alloc").count(), 1, "{}", out.text);
}

#[test]
fn average_pools_sum_on_the_kernel() {
    for extra in ["", "count_include_pad = true, "] {
        let pool = Pool {
            op: "average_pool",
            extra,
            ..MAX
        };
        let out = check(
            &pool.source(),
            "loop-conv-microkernel{mr=4 vector=4 threads=0}",
        );
        rewritten(&out);
    }
}

#[test]
fn the_host_blocking_keeps_a_pool() {
    let pool = Pool {
        c: 4,
        h: 40,
        w: 41,
        ..MAX
    };
    let out = check(&pool.source(), "loop-conv-microkernel");
    rewritten(&out);
}

#[test]
fn a_pool_row_of_one_pixel_is_left_to_the_loop_schedules() {
    let pool = Pool { w: 2, ..MAX };
    let out = check(&pool.source(), "loop-conv-microkernel{mr=8 vector=8}");
    assert!(!out.text.contains("loop.vector_load"), "{}", out.text);
}
