//! Applying a database to a model: a convolution's record, measured alone, is applied only
//! where the model keeps the kernels its heuristic schedules make.

use tb_tune::apply::apply_records;
use tb_tune::space::Space;
use tb_tune::task::{FRONT_PIPELINE, parse_module, run_pipeline, tasks};
use tb_tune::{Database, Record, Status, TargetKey};

/// A stride-2 3x3 convolution (ResNet's downsampling) whose relu its kernel computes.
const STRIDED_CONV_RELU: &str = r#"
"func.func"() <{function_type = (tensor<1x16x28x28xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x14x14xf32>, sym_name = "down"}> ({
^bb0(%x: tensor<1x16x28x28xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<32xf32>):
  %0 = "graph.conv"(%x, %w, %b) <{auto_pad = "NOTSET", group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x16x28x28xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x14x14xf32>
  %1 = "graph.relu"(%0) : (tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  "func.return"(%1) : (tensor<1x32x14x14xf32>) -> ()
}) : () -> ()
"#;

/// The rest of the CPU pipeline, as `tb-run` runs it after applying records.
const REST: &str = "builtin.module(loop-matmul-microkernel, loop-int-matmul-microkernel, loop-conv-microkernel, loop-default-schedule, loop-apply-schedule, loop-fuse)";

/// Top-level kernels of the model compiled with `db` (or none), and what each got.
fn compile(db: Option<&Database>, target: &TargetKey) -> (usize, Vec<String>) {
    let (mut ctx, module) = parse_module(STRIDED_CONV_RELU).unwrap();
    run_pipeline(&mut ctx, module, FRONT_PIPELINE).unwrap();
    let explained = match db {
        Some(db) => apply_records(&mut ctx, module, db, target).unwrap(),
        None => vec![],
    };
    run_pipeline(&mut ctx, module, REST).unwrap();
    let kernels = tb_tune::task::function_nests(&ctx, module)
        .into_iter()
        .map(|(_, nests)| nests.len())
        .sum();
    (kernels, explained.into_iter().map(|e| e.choice).collect())
}

#[test]
fn a_convolution_record_never_splits_off_its_epilogue() {
    // An AVX2 device, so the space does not depend on the machine the test runs on (no
    // code is compiled).
    let target = TargetKey {
        cpu: "znver4".into(),
        features: "+sse,+sse2,+sse3,+ssse3,+sse4.1,+sse4.2,+avx,+avx2,+fma,-avx512f".into(),
        threads: 1,
    };
    let (heuristic_kernels, _) = compile(None, &target);
    let (mut ctx, module) = parse_module(STRIDED_CONV_RELU).unwrap();
    run_pipeline(&mut ctx, module, FRONT_PIPELINE).unwrap();
    let machine = target.machine().schedule_target();
    let conv = tasks(&mut ctx, module)
        .into_iter()
        .find(|t| matches!(Space::of(t, &machine).unwrap().0, Space::Conv(_)))
        .expect("a convolution task");
    let (space, summary) = Space::of(&conv, &machine).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut applied, mut refused) = (0, 0);
    // Every blocking of the space, each the only record of a fresh database.
    let sizes = space.knob_sizes();
    let mut decision = vec![0; sizes.len()];
    loop {
        if space.validate(&decision).is_ok() {
            let mut db =
                Database::open(&dir.path().join(format!("{applied}-{refused}.db"))).unwrap();
            let record = Record {
                target: target.clone(),
                task_key: conv.key.clone(),
                space: space.kind().into(),
                description: space.describe(&decision),
                decision: decision.clone(),
                status: Status::Ok,
                latency_s: Some(1e-4),
                runs_s: vec![1e-4],
                error: None,
                search: "random".into(),
            };
            db.add(&record, &summary, &conv.ir).unwrap();
            let (kernels, choices) = compile(Some(&db), &target);
            assert!(
                kernels <= heuristic_kernels,
                "{}: {kernels} kernels against the heuristic's {heuristic_kernels} ({choices:?})",
                record.description
            );
            if choices.iter().any(|c| c.starts_with("record ")) {
                applied += 1;
            } else {
                // A refused record says why.
                assert!(
                    choices
                        .iter()
                        .any(|c| c.contains("keeps") && c.contains("from fusing")),
                    "{choices:?}"
                );
                refused += 1;
            }
        }
        // The next decision, odometer style.
        let mut i = 0;
        while i < sizes.len() {
            decision[i] += 1;
            if decision[i] < sizes[i] {
                break;
            }
            decision[i] = 0;
            i += 1;
        }
        if i == sizes.len() {
            break;
        }
    }
    // Under the heuristic blocking the kernel computes the relu; the blockings of this
    // space leave it to a kernel of its own, so their records are refused here.
    assert_eq!(applied + refused, 88, "the AVX2 space's valid blockings");
}
