//! `loop-int-matmul-microkernel` on 8-bit integer matmul nests (`uint8`/`int8` operands
//! widened to i32 in the reduction, as `convert-te-to-loop` writes MatMulInteger after
//! `te-fuse`): every blocked result is checked, exactly, against the interpreter on random
//! inputs, for both dot-product forms, every signedness mix, leftover rows, leftover
//! columns and a `K` the group does not divide.

mod common;

use common::check_pipeline;

/// `C = init + ext(A) @ ext(B)` for `A: m x k` and `B: k x n` of the given element types
/// (`ui8` or `i8`), blocked with `options`; returns the blocked module.
fn int_matmul(a_ty: &str, b_ty: &str, (m, k, n): (i64, i64, i64), options: &str) -> String {
    let widen = |ty: &str| {
        if ty == "ui8" {
            "arith.extui"
        } else {
            "arith.extsi"
        }
    };
    let (a, b, c) = (
        format!("memref<{m}x{k}x{a_ty}>"),
        format!("memref<{k}x{n}x{b_ty}>"),
        format!("memref<{m}x{n}xi32>"),
    );
    let src = format!(
        "func.func @mm(%a: {a}, %b: {b}) -> {c} {{\n\
         %init = arith.constant 7 : i32\n\
         %c = loop.alloc() : {c}\n\
         loop.parallel (%i, %j) = (0, 0) to ({m}, {n}) {{\n\
         %s = loop.for %k = 0 to {k} iter_args(%acc = %init) -> (i32) {{\n\
         %x = loop.load %a[%i, %k] : {a}\n\
         %xw = {wa} %x : i8 to i32\n\
         %y = loop.load %b[%k, %j] : {b}\n\
         %yw = {wb} %y : i8 to i32\n\
         %p = arith.muli %xw, %yw : i32\n\
         %t = arith.addi %acc, %p : i32\n\
         loop.yield %t : i32\n\
         }}\n\
         loop.store %s, %c[%i, %j] : {c}\n\
         }}\n\
         return %c : {c}\n}}\n",
        wa = widen(a_ty),
        wb = widen(b_ty),
    );
    check_pipeline(
        &src,
        &format!("builtin.module(loop-int-matmul-microkernel{{{options}}})"),
    )
    .text
}

const SHAPES: [(i64, i64, i64); 5] = [(8, 8, 16), (13, 7, 19), (5, 3, 9), (2, 5, 8), (4, 1, 8)];

#[test]
fn i16_pairs_block_every_signedness_mix_exactly() {
    for (a_ty, b_ty) in [("ui8", "i8"), ("i8", "i8"), ("ui8", "ui8"), ("i8", "ui8")] {
        for (m, k, n) in SHAPES {
            let text = int_matmul(a_ty, b_ty, (m, k, n), "mr=4 nr=8 vector=4 group=2");
            let shape = format!("{a_ty} x {b_ty} {m}x{k}x{n}");
            assert!(
                text.contains("vector<4xi32>, vector<2xi16>, vector<8xi16>"),
                "{shape}:\n{text}"
            );
            let panels = format!("memref<{}x{}x16xi16>", n / 8, (k + 1) / 2);
            assert!(text.contains(&panels), "{shape}: {panels}:\n{text}");
        }
    }
}

#[test]
fn unsigned_by_signed_bytes_block_in_groups_of_four() {
    for (m, k, n) in SHAPES {
        let text = int_matmul("ui8", "i8", (m, k, n), "mr=4 nr=8 vector=4 group=4");
        let shape = format!("{m}x{k}x{n}");
        assert!(
            text.contains("{unsigned_lhs} : vector<4xi32>, vector<4xi8>, vector<16xi8>"),
            "{shape}:\n{text}"
        );
        let panels = format!("memref<{}x{}x32xi8>", n / 8, (k + 3) / 4);
        assert!(text.contains(&panels), "{shape}: {panels}:\n{text}");
    }
}

#[test]
fn the_host_choice_blocks_and_stays_exact() {
    // Whatever the host picks (groups of four with VNNI, else i16 pairs) is exact.
    for (a_ty, b_ty) in [("ui8", "i8"), ("i8", "ui8")] {
        let text = int_matmul(a_ty, b_ty, (9, 11, 37), "");
        assert!(text.contains("loop.dot"), "{a_ty} x {b_ty}:\n{text}");
    }
}

#[test]
fn the_host_choice_fits_narrow_products() {
    // 8 and 24 columns: narrower vectors than the host's when it has more lanes, so every
    // column runs on the kernel (no scalar multiply is left).
    for n in [8, 24] {
        let text = int_matmul("ui8", "i8", (6, 10, n), "");
        assert!(text.contains("loop.dot"), "n = {n}:\n{text}");
        assert!(!text.contains("arith.muli"), "n = {n}:\n{text}");
    }
}

#[test]
fn too_few_columns_for_a_block_stay_a_loop_nest() {
    let text = int_matmul("ui8", "i8", (8, 8, 6), "mr=4 nr=8 vector=4 group=2");
    assert!(!text.contains("loop.dot"), "{text}");
    assert!(text.contains("arith.muli"), "{text}");
}

/// `dense<...>` of a `k x n` matrix of reproducible values in `[lo, hi]`.
fn dense_ints((k, n): (i64, i64), (lo, hi): (i64, i64)) -> String {
    let rows: Vec<String> = (0..k)
        .map(|r| {
            let row: Vec<String> = (0..n)
                .map(|c| (lo + (r * 31 + c * 17 + r * c * 7) % (hi - lo + 1)).to_string())
                .collect();
            format!("[{}]", row.join(", "))
        })
        .collect();
    format!("dense<[{}]>", rows.join(", "))
}

/// The graph-level MatMulInteger source: `uint8` activations widened to i32 times the
/// weights (`int8` widened, or an i32 constant of values in `range`).
fn graph_source(b: Option<(i64, i64)>, (m, k, n): (i64, i64, i64)) -> String {
    let (args, weights) = match b {
        Some(range) => (
            format!("%a: tensor<{m}x{k}xui8>"),
            format!(
                "%w = graph.constant {} : tensor<{k}x{n}xi32>\n",
                dense_ints((k, n), range)
            ),
        ),
        None => (
            format!("%a: tensor<{m}x{k}xui8>, %b: tensor<{k}x{n}xi8>"),
            format!(
                "%w = graph.cast %b {{to = i32}} : (tensor<{k}x{n}xi8>) -> tensor<{k}x{n}xi32>\n"
            ),
        ),
    };
    format!(
        "func.func @mm({args}) -> tensor<{m}x{n}xi32> {{\n\
         {weights}\
         %x = graph.cast %a {{to = i32}} : (tensor<{m}x{k}xui8>) -> tensor<{m}x{k}xi32>\n\
         %y = graph.matmul %x, %w : (tensor<{m}x{k}xi32>, tensor<{k}x{n}xi32>) -> tensor<{m}x{n}xi32>\n\
         return %y : tensor<{m}x{n}xi32>\n}}\n"
    )
}

#[test]
fn the_cpu_pipeline_schedules_the_kernel_exactly() {
    // The whole CPU pipeline: the packing nests then get their default schedules too. The
    // host picks the block: N covers one column block of even 16-lane (AVX-512) vectors.
    for b in [None, Some((-128, 127))] {
        for (m, k, n) in [(13, 7, 37), (32, 40, 48)] {
            let text = check_pipeline(&graph_source(b, (m, k, n)), tb_passes::pipelines::CPU).text;
            assert!(text.contains("loop.dot"), "{b:?} {m}x{k}x{n}:\n{text}");
        }
    }
}

/// MatMulInteger as the importer writes it (`uint8` activations widened to i32; the
/// weights `b_ty` widened too, or an i32 constant when the import folded their widening),
/// lowered through `te-fuse` (which inlines the widening into the matmul) to the kernel.
fn graph_matmul(b: Option<(i64, i64)>, (m, k, n): (i64, i64, i64), options: &str) -> String {
    let src = graph_source(b, (m, k, n));
    check_pipeline(
        &src,
        &format!(
            "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, \
             loop-int-matmul-microkernel{{{options}}})"
        ),
    )
    .text
}

#[test]
fn widened_operands_reach_the_kernel_through_fusion() {
    for (m, k, n) in [(13, 7, 19), (8, 16, 16)] {
        let text = graph_matmul(None, (m, k, n), "mr=4 nr=8 vector=4 group=2");
        assert!(text.contains("loop.dot"), "{m}x{k}x{n}:\n{text}");
        assert!(text.contains("arith.extsi"), "{m}x{k}x{n}:\n{text}");
    }
}

#[test]
fn constant_weights_are_packed_at_compile_time() {
    for (group, range, element) in [
        (2, (-128, 127), "i16"),
        (4, (-128, 127), "i8"),
        (2, (0, 255), "i16"),
    ] {
        for (m, k, n) in [(13, 7, 19), (8, 16, 16)] {
            let options = format!("mr=4 nr=8 vector=4 group={group}");
            let text = graph_matmul(Some(range), (m, k, n), &options);
            let shape = format!("group {group} {range:?} {m}x{k}x{n}");
            assert!(text.contains("loop.dot"), "{shape}:\n{text}");
            // The panels are a constant global, not copied at run time.
            let panels = format!(
                "memref<{}x{}x{}x{element}>",
                n / 8,
                (k + group - 1) / group,
                8 * group
            );
            assert!(text.contains("memref.get_global"), "{shape}:\n{text}");
            assert!(text.contains(&panels), "{shape}: {panels}:\n{text}");
            assert!(
                !text.contains(&format!("loop.alloc() : {panels}")),
                "{shape}:\n{text}"
            );
        }
    }
}

#[test]
fn constant_weights_outside_bytes_keep_i16_pairs() {
    // uint8-valued weights cannot be vpdpbusd's signed bytes: the host choice pairs them.
    let text = graph_matmul(Some((0, 255)), (8, 9, 16), "mr=4 nr=8 vector=4");
    assert!(text.contains("vector<2xi16>"), "{text}");
}

#[test]
fn constant_byte_weights_are_packed_at_compile_time() {
    // Weights kept as int8 (or uint8) constants and widened where the matmul reads them.
    for (b_ty, widen, range) in [
        ("i8", "arith.extsi", (-128, 127)),
        ("ui8", "arith.extui", (0, 255)),
    ] {
        let (m, k, n) = (13, 7, 19);
        let src = format!(
            "func.func @mm(%a: tensor<{m}x{k}xui8>) -> tensor<{m}x{n}xi32> {{\n\
             %b = graph.constant {dense} : tensor<{k}x{n}x{b_ty}>\n\
             %w = graph.cast %b {{to = i32}} : (tensor<{k}x{n}x{b_ty}>) -> tensor<{k}x{n}xi32>\n\
             %x = graph.cast %a {{to = i32}} : (tensor<{m}x{k}xui8>) -> tensor<{m}x{k}xi32>\n\
             %y = graph.matmul %x, %w : (tensor<{m}x{k}xi32>, tensor<{k}x{n}xi32>) -> tensor<{m}x{n}xi32>\n\
             return %y : tensor<{m}x{n}xi32>\n}}\n",
            dense = dense_ints((k, n), range),
        );
        // No canonicalize: the widening of the constant stays a widening.
        let text = check_pipeline(
            &src,
            "builtin.module(convert-graph-to-te, te-fuse, convert-te-to-loop, \
             loop-int-matmul-microkernel{mr=4 nr=8 vector=4 group=2})",
        )
        .text;
        assert!(text.contains("loop.dot"), "{b_ty}:\n{text}");
        assert!(
            text.contains(widen),
            "{b_ty} (the leftover columns):\n{text}"
        );
        assert!(text.contains("memref<2x4x16xi16>"), "{b_ty}:\n{text}");
        assert!(
            !text.contains("loop.alloc() : memref<2x4x16xi16>"),
            "{b_ty}:\n{text}"
        );
    }
}

/// An integer convolution as the importer writes ConvInteger's: the `uint8` input padded
/// with its zero point, widened to i32, convolved (batch 2, strides, dilations) by
/// weights `w_ty` (widened `int8`/`uint8` inputs, or an i32 constant); lowered through
/// `te-fuse` to the kernel with `options`.
fn integer_conv(w_ty: Option<&str>, options: &str) -> String {
    let (args, weights) = match w_ty {
        Some(ty) => (
            format!(", %b: tensor<16x3x3x2x{ty}>"),
            format!(
                "%w = graph.cast %b {{to = i32}} : (tensor<16x3x3x2x{ty}>) -> tensor<16x3x3x2xi32>\n"
            ),
        ),
        None => (
            String::new(),
            format!(
                "%m = graph.constant {} : tensor<16x18xi32>\n\
                 %w = graph.reshape %m {{shape = array<i64: 16, 3, 3, 2>}} : (tensor<16x18xi32>) -> tensor<16x3x3x2xi32>\n",
                dense_ints((16, 18), (-128, 127))
            ),
        ),
    };
    let src = format!(
        "func.func @conv(%a: tensor<2x3x9x8xui8>{args}) -> tensor<2x16x5x7xi32> {{\n\
         {weights}\
         %p = graph.pad %a {{constant_value = 131 : ui8, pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 1>}} : (tensor<2x3x9x8xui8>) -> tensor<2x3x11x9xui8>\n\
         %x = graph.cast %p {{to = i32}} : (tensor<2x3x11x9xui8>) -> tensor<2x3x11x9xi32>\n\
         %y = graph.conv %x, %w {{dilations = array<i64: 1, 2>, strides = array<i64: 2, 1>}} : (tensor<2x3x11x9xi32>, tensor<16x3x3x2xi32>) -> tensor<2x16x5x7xi32>\n\
         return %y : tensor<2x16x5x7xi32>\n}}\n"
    );
    check_pipeline(
        &src,
        &format!(
            "builtin.module(canonicalize, convert-graph-to-te, te-fuse, convert-te-to-loop, \
             canonicalize, loop-int-matmul-microkernel{{{options}}})"
        ),
    )
    .text
}

#[test]
fn integer_convolutions_block_as_window_products_exactly() {
    // The window product's A is the padded 8-bit input, read through the window map.
    for (w_ty, group) in [
        (Some("i8"), 2),
        (Some("i8"), 4),
        (Some("ui8"), 2),
        (None, 2),
        (None, 4),
    ] {
        let text = integer_conv(w_ty, &format!("mr=4 nr=8 vector=4 group={group}"));
        let case = format!("{w_ty:?} group {group}");
        assert!(text.contains("loop.dot"), "{case}:\n{text}");
        assert!(
            text.contains("memref<2x3x11x9xui8>"),
            "{case}: the padded input stays 8-bit:\n{text}"
        );
        let a_panel = format!("memref<70x{}x{group}x", (18 + group - 1) / group);
        assert!(text.contains(&a_panel), "{case}: {a_panel}:\n{text}");
    }
}
