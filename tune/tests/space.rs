//! Knob spaces of tasks: valid decisions only, transformations the pipeline accepts.

mod common;

use common::{MODEL, model_tasks};
use tb_passes::schedule::Rng;
use tb_tune::space::Space;
use tb_tune::task::parse_module;

fn matmul() -> tb_tune::TunableTask {
    model_tasks(MODEL)
        .into_iter()
        .find(|t| matches!(t.space, Space::MicroKernel(_)))
        .expect("a matmul task")
}

#[test]
fn samples_and_mutations_are_valid() {
    let t = matmul();
    let mut rng = Rng::seeded(3);
    for _ in 0..200 {
        let d = t.space.sample(&mut rng).expect("a sample");
        assert_eq!(t.space.validate(&d), Ok(()));
        let m = t.space.mutate(&d, &mut rng).expect("a mutation");
        assert_ne!(m, d);
        assert_eq!(t.space.validate(&m), Ok(()));
        let e = t.space.sample(&mut rng).expect("a sample");
        if let Some(c) = t.space.crossover(&d, &e, &mut rng) {
            assert_eq!(t.space.validate(&c), Ok(()));
        }
    }
}

#[test]
fn a_register_block_over_budget_is_invalid() {
    let t = matmul();
    let Space::MicroKernel(s) = &t.space else {
        unreachable!()
    };
    let mr8 = s.mr.iter().position(|&m| m == 8).unwrap();
    let mult4 = s.mult.iter().position(|&m| m == 4).unwrap();
    let err = t.space.validate(&[mr8, mult4, 0, 0, 0, 0]).unwrap_err();
    assert!(err.contains("vector registers"), "{err}");
    assert!(t.space.validate(&[0, 0]).is_err());
}

#[test]
fn a_decision_lowers_to_its_micro_kernel() {
    let t = matmul();
    let mut rng = Rng::seeded(5);
    for _ in 0..5 {
        let d = t.space.sample(&mut rng).unwrap();
        let (mut ctx, module) = parse_module(&t.task.ir).unwrap();
        t.space.lower(&mut ctx, module, Some(&d)).unwrap();
        tb_ir::verifier::verify(&ctx, module).unwrap();
        let text = tb_ir::printer::print_operation(&ctx, module, Default::default());
        assert!(text.contains("loop.fma"), "{}", t.space.describe(&d));
    }
}

#[test]
fn tokens_spell_the_decision() {
    let t = matmul();
    let Space::MicroKernel(s) = &t.space else {
        unreachable!()
    };
    let tokens = t.space.tokens(&[1, 1, 0, 0, 0, 0]);
    assert_eq!(
        tokens,
        vec![
            "space=microkernel".to_string(),
            "mr=2".into(),
            format!("nr={}", 2 * s.vector[0]),
            format!("vector={}", s.vector[0]),
            format!("kc={}", s.kc[0]),
            "nc=64".into(),
            "pack-rhs=true".into(),
        ]
    );
}

#[test]
fn features_tell_decisions_apart() {
    let t = matmul();
    let a = tb_tune::search::candidate_features(&t, &[0, 0, 0, 0, 0, 0]).unwrap();
    let b = tb_tune::search::candidate_features(&t, &[3, 1, 1, 0, 1, 1]).unwrap();
    assert_eq!(a.len(), tb_tune::FEATURE_COUNT);
    assert!(a.iter().all(|x| x.is_finite()));
    assert_ne!(
        a[..tb_tune::features::PROGRAM_FEATURES],
        b[..tb_tune::features::PROGRAM_FEATURES]
    );
}
