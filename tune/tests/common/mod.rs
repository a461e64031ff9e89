//! What the tuning tests share: a small model at the graph level and its tasks.

#![allow(dead_code)]

pub mod matmul_records;

use tb_passes::schedule::Target;
use tb_tune::space::{Space, TunableTask};
use tb_tune::task::{FRONT_PIPELINE, parse_module, run_pipeline, tasks};

/// Two matmuls of one shape (one task, weight 2), one of another shape, and a relu.
pub const MODEL: &str = r#"
"func.func"() <{function_type = (tensor<32x16xf32>, tensor<16x24xf32>, tensor<32x16xf32>, tensor<24x8xf32>) -> tensor<32x8xf32>, sym_name = "model"}> ({
^bb0(%a: tensor<32x16xf32>, %b: tensor<16x24xf32>, %c: tensor<32x16xf32>, %d: tensor<24x8xf32>):
  %0 = "graph.matmul"(%a, %b) : (tensor<32x16xf32>, tensor<16x24xf32>) -> tensor<32x24xf32>
  %1 = "graph.matmul"(%c, %b) : (tensor<32x16xf32>, tensor<16x24xf32>) -> tensor<32x24xf32>
  %2 = "graph.add"(%0, %1) : (tensor<32x24xf32>, tensor<32x24xf32>) -> tensor<32x24xf32>
  %3 = "graph.relu"(%2) : (tensor<32x24xf32>) -> tensor<32x24xf32>
  %4 = "graph.matmul"(%3, %d) : (tensor<32x24xf32>, tensor<24x8xf32>) -> tensor<32x8xf32>
  "func.return"(%4) : (tensor<32x8xf32>) -> ()
}) : () -> ()
"#;

/// A fixed target, so spaces do not depend on the machine the tests run on.
pub fn avx2() -> Target {
    Target {
        vector_bytes: 32,
        vector_registers: 16,
        cores: 2,
        l1_bytes: 32 << 10,
        l2_bytes: 1 << 20,
    }
}

/// A 3x3 convolution of 4 input channels into 16 output channels.
pub const CONV: &str = r#"
"func.func"() <{function_type = (tensor<1x4x10x10xf32>, tensor<16x4x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>, sym_name = "conv"}> ({
^bb0(%x: tensor<1x4x10x10xf32>, %w: tensor<16x4x3x3xf32>, %b: tensor<16xf32>):
  %0 = "graph.conv"(%x, %w, %b) <{auto_pad = "NOTSET", group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}> : (tensor<1x4x10x10xf32>, tensor<16x4x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  "func.return"(%0) : (tensor<1x16x8x8xf32>) -> ()
}) : () -> ()
"#;

/// One kernel of each kind the CPU pipeline leaves to `#loop.schedule` (a pooling window,
/// a global average, a layer normalization's and a softmax's reductions, elementwise nests)
/// and a matmul: every space kind but the convolution's.
pub const KINDS: &str = r#"
"func.func"() <{function_type = (tensor<1x8x12x12xf32>, tensor<6x40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40x20xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x8x1x1xf32>, tensor<6x40xf32>, tensor<6x20xf32>), sym_name = "kinds"}> ({
^bb0(%x: tensor<1x8x12x12xf32>, %y: tensor<6x40xf32>, %s: tensor<40xf32>, %b: tensor<40xf32>, %w: tensor<40x20xf32>):
  %0 = "graph.max_pool"(%x) <{auto_pad = "NOTSET", ceil_mode = false, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, storage_order = 0 : i64, strides = array<i64: 2, 2>}> : (tensor<1x8x12x12xf32>) -> tensor<1x8x6x6xf32>
  %1 = "graph.global_average_pool"(%x) : (tensor<1x8x12x12xf32>) -> tensor<1x8x1x1xf32>
  %2 = "graph.layer_normalization"(%y, %s, %b) <{axis = -1 : i64, epsilon = 9.99999974E-6 : f32, stash_type = 1 : i64}> : (tensor<6x40xf32>, tensor<40xf32>, tensor<40xf32>) -> tensor<6x40xf32>
  %3 = "graph.softmax"(%2) <{axis = -1 : i64}> : (tensor<6x40xf32>) -> tensor<6x40xf32>
  %4 = "graph.matmul"(%3, %w) : (tensor<6x40xf32>, tensor<40x20xf32>) -> tensor<6x20xf32>
  "func.return"(%0, %1, %3, %4) : (tensor<1x8x6x6xf32>, tensor<1x8x1x1xf32>, tensor<6x40xf32>, tensor<6x20xf32>) -> ()
}) : () -> ()
"#;

pub fn model_tasks(text: &str) -> Vec<TunableTask> {
    model_tasks_lowered_by(text, FRONT_PIPELINE)
}

/// The tasks of `text` lowered by `pipeline` instead of the tuner's front half.
pub fn model_tasks_lowered_by(text: &str, pipeline: &str) -> Vec<TunableTask> {
    let (mut ctx, module) = parse_module(text).expect("the model parses");
    run_pipeline(&mut ctx, module, pipeline).expect("the model lowers");
    tasks(&mut ctx, module)
        .into_iter()
        .map(|task| {
            let (space, summary) = Space::of(&task, &avx2()).expect("a space");
            TunableTask {
                task,
                space,
                summary,
            }
        })
        .collect()
}

pub fn target_key(cpu: &str, threads: usize) -> tb_tune::TargetKey {
    tb_tune::TargetKey {
        cpu: cpu.into(),
        features: "+avx2,+fma".into(),
        threads,
    }
}
