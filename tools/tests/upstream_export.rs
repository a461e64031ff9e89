//! `tb-translate --emit=mlir-upstream`, checked by MLIR itself: modules are lowered with
//! TensorBind's CPU pipeline, exported (which MLIR 22 parses and verifies in process), then
//! lowered by MLIR's own pipeline and run by its ExecutionEngine; the results must agree
//! with TensorBind's CPU backend on the same random inputs.

use std::collections::HashMap;

use tb_backends::cpu::{CompileOptions, CompiledModule};
use tb_backends::mlir_execution::JitModule;
use tb_interpreter::Tensor;
use tb_interpreter::check::random_arguments;
use tb_interpreter::exec::Interpreter;
use tb_tools::load::{Loaded, load_mlir, load_onnx};
use tb_tools::lower::{LowerOptions, lower};
use tb_tools::upstream::export;

/// Lowers `loaded` with the CPU pipeline, runs every public function compiled by
/// TensorBind and, exported, by MLIR, on `seeds` random argument sets.
fn check_against_mlir(mut loaded: Loaded, seeds: u64) {
    lower(
        &mut loaded,
        "cpu",
        LowerOptions::default(),
        "test",
        "--list-passes",
    )
    .unwrap();
    let compiled = CompiledModule::compile(&loaded.ctx, loaded.module, &CompileOptions::default())
        .unwrap_or_else(|d| panic!("{}", loaded.render(&d)));
    let interpreter = Interpreter::new(&loaded.ctx, loaded.module);
    let names = interpreter.public_function_names();
    let mut arguments: HashMap<String, Vec<Vec<Tensor>>> = HashMap::new();
    for name in &names {
        let func = interpreter.function(name).unwrap();
        let sets = (0..seeds)
            .map(|seed| random_arguments(&loaded.ctx, func, seed).unwrap())
            .collect();
        arguments.insert(name.clone(), sets);
    }
    let text =
        export(&mut loaded.ctx, loaded.module).unwrap_or_else(|e| panic!("export failed: {e:?}"));
    assert!(!text.contains("loop."), "no loop op is left:\n{text}");
    let jit = JitModule::compile(&text, 2).unwrap_or_else(|e| panic!("{e}\n{text}"));
    for name in &names {
        for args in &arguments[name] {
            let want = compiled.run(name, args).unwrap();
            let got = jit
                .run(name, args)
                .unwrap_or_else(|e| panic!("@{name}: {e}\n{text}"));
            assert_eq!(got.len(), want.len(), "@{name}: number of results");
            for (g, w) in got.iter().zip(&want) {
                // MLIR's integers are signless: read them with tb's signedness.
                let same_width_ints = g.dtype().is_int()
                    && w.dtype().is_int()
                    && g.dtype().size_in_bytes() == w.dtype().size_in_bytes();
                let g = if same_width_ints {
                    g.cast(w.dtype())
                } else {
                    g.clone()
                };
                let (rtol, atol) = if w.dtype().is_float() {
                    (1e-4, 1e-5)
                } else {
                    (0.0, 0.0)
                };
                g.allclose(w, rtol, atol)
                    .unwrap_or_else(|m| panic!("@{name}: MLIR's result differs from tb's: {m}"));
            }
        }
    }
}

fn graph(body: &str) -> Loaded {
    load_mlir(body, "test.mlir").unwrap()
}

#[test]
fn a_blocked_matmul_with_a_unit_batch_runs_in_mlir() {
    check_against_mlir(
        graph(
            "func.func @mm(%a: tensor<1x37x64xf32>, %b: tensor<64x40xf32>) -> tensor<1x37x40xf32> {\n\
             %c = graph.matmul %a, %b : (tensor<1x37x64xf32>, tensor<64x40xf32>) -> tensor<1x37x40xf32>\n\
             return %c : tensor<1x37x40xf32>\n}\n",
        ),
        2,
    );
}

#[test]
fn a_convolution_with_bias_and_relu_runs_in_mlir() {
    check_against_mlir(
        graph(
            "func.func @conv(%x: tensor<1x8x12x12xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x12x12xf32> {\n\
             %y = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x12x12xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x12x12xf32>\n\
             %r = graph.relu %y : tensor<1x16x12x12xf32>\n\
             return %r : tensor<1x16x12x12xf32>\n}\n",
        ),
        2,
    );
}

#[test]
fn softmax_and_gelu_run_in_mlir() {
    check_against_mlir(
        graph(
            "func.func @sm(%x: tensor<4x33xf32>) -> tensor<4x33xf32> {\n\
             %s = graph.softmax %x {axis = 1 : i64} : tensor<4x33xf32>\n\
             %e = graph.erf %s : tensor<4x33xf32>\n\
             return %e : tensor<4x33xf32>\n}\n",
        ),
        2,
    );
}

#[test]
fn several_results_of_integer_bool_and_float_types_run_in_mlir() {
    check_against_mlir(
        graph(
            "func.func @mixed(%x: tensor<3x4xf32>, %n: tensor<3x4xi64>, %u: tensor<3x4xui8>) -> (tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xf64>, tensor<3x4xui8>) {\n\
             %b = graph.cast %x {to = i1} : (tensor<3x4xf32>) -> tensor<3x4xi1>\n\
             %i = graph.cast %n {to = i32} : (tensor<3x4xi64>) -> tensor<3x4xi32>\n\
             %d = graph.cast %x {to = f64} : (tensor<3x4xf32>) -> tensor<3x4xf64>\n\
             %v = graph.add %u, %u : (tensor<3x4xui8>, tensor<3x4xui8>) -> tensor<3x4xui8>\n\
             return %b, %i, %d, %v : tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xf64>, tensor<3x4xui8>\n}\n",
        ),
        2,
    );
}

/// `loop.dot` (the integer micro-kernels' step), spelled out in upstream ops by the export,
/// computes what the CPU backend's instruction sequence does: unsigned and signed 8-bit
/// groups of 4, and signed 16-bit pairs.
#[test]
fn integer_dot_products_run_in_mlir() {
    check_against_mlir(
        graph(
            "func.func @dots(%acc: memref<4xi32>, %a: memref<4xui8>, %b: memref<16xi8>, %c: memref<2xi16>, %d: memref<8xi16>) -> memref<8xi32> {\n\
             %c0 = arith.constant 0 : index\n\
             %c4 = arith.constant 4 : index\n\
             %out = loop.alloc() : memref<8xi32>\n\
             %s = loop.vector_load %acc[%c0] : memref<4xi32>, vector<4xi32>\n\
             %va = loop.vector_load %a[%c0] : memref<4xui8>, vector<4xi8>\n\
             %vb = loop.vector_load %b[%c0] : memref<16xi8>, vector<16xi8>\n\
             %vc = loop.vector_load %c[%c0] : memref<2xi16>, vector<2xi16>\n\
             %vd = loop.vector_load %d[%c0] : memref<8xi16>, vector<8xi16>\n\
             %u = loop.dot %s, %va, %vb {unsigned_lhs} : vector<4xi32>, vector<4xi8>, vector<16xi8>\n\
             %w = loop.dot %s, %vc, %vd : vector<4xi32>, vector<2xi16>, vector<8xi16>\n\
             loop.vector_store %u, %out[%c0] : memref<8xi32>, vector<4xi32>\n\
             loop.vector_store %w, %out[%c4] : memref<8xi32>, vector<4xi32>\n\
             return %out : memref<8xi32>\n}\n",
        ),
        3,
    );
}

#[test]
fn the_bundled_examples_run_in_mlir() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mlp = std::fs::read_to_string(format!("{root}/examples/mlp.mlir")).unwrap();
    check_against_mlir(load_mlir(&mlp, "mlp.mlir").unwrap(), 1);
    check_against_mlir(
        load_onnx(&format!("{root}/examples/cnn.onnx"), HashMap::new()).unwrap(),
        1,
    );
}
