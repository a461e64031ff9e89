//! Knob spaces of tasks: valid decisions only, transformations the pipeline accepts.

mod common;

use common::{CONV, KINDS, MODEL, model_tasks};
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

fn conv() -> tb_tune::TunableTask {
    let tasks = model_tasks(CONV);
    let summaries: Vec<&str> = tasks.iter().map(|t| t.summary.as_str()).collect();
    tasks
        .iter()
        .find(|t| matches!(t.space, Space::Conv(_)))
        .unwrap_or_else(|| panic!("no convolution task among {summaries:?}"))
        .clone()
}

#[test]
fn a_convolution_is_tuned_through_its_register_blocking() {
    let t = conv();
    assert_eq!(t.summary, "conv 16x8x8 c4 k3x3");
    assert_eq!(t.space.kind(), "conv");
    let mut rng = Rng::seeded(7);
    for _ in 0..100 {
        let d = t.space.sample(&mut rng).expect("a sample");
        assert_eq!(t.space.validate(&d), Ok(()));
        let m = t.space.mutate(&d, &mut rng).expect("a mutation");
        assert_ne!(m, d);
        assert_eq!(t.space.validate(&m), Ok(()));
    }
}

#[test]
fn a_convolution_block_wider_than_its_channels_or_the_registers_is_invalid() {
    let t = conv();
    let Space::Conv(s) = &t.space else {
        unreachable!()
    };
    let at = |list: &[i64], v: i64| list.iter().position(|&x| x == v).unwrap();
    // 4 vectors of 8 lanes: 32 channels, over the 16 the convolution has.
    let wide = [0, at(&s.mult, 4), at(&s.vector, 8), 0];
    let err = t.space.validate(&wide).unwrap_err();
    assert!(err.contains("output channels"), "{err}");
    // 12 x 2 accumulators + 2 weight vectors + 1 broadcast: 27 of 16 registers.
    let big = [at(&s.mr, 12), at(&s.mult, 2), at(&s.vector, 4), 0];
    let err = t.space.validate(&big).unwrap_err();
    assert!(err.contains("vector registers"), "{err}");
    assert_eq!(
        t.space
            .validate(&[at(&s.mr, 4), at(&s.mult, 2), at(&s.vector, 4), 0]),
        Ok(())
    );
}

#[test]
fn a_convolution_decision_lowers_to_its_micro_kernel() {
    let t = conv();
    let mut rng = Rng::seeded(11);
    for _ in 0..5 {
        let d = t.space.sample(&mut rng).unwrap();
        let (mut ctx, module) = parse_module(&t.task.ir).unwrap();
        t.space.lower(&mut ctx, module, Some(&d)).unwrap();
        tb_ir::verifier::verify(&ctx, module).unwrap();
        let text = tb_ir::printer::print_operation(&ctx, module, Default::default());
        assert!(text.contains("loop.fma"), "{}", t.space.describe(&d));
        assert_eq!(t.space.tokens(&d).len(), 5);
    }
}

/// Every sampled decision of every space, its mutations and crossovers included, is one
/// the lowering accepts: the passes never refuse what a space offers.
#[test]
fn sampled_decisions_of_every_space_lower() {
    let tasks: Vec<tb_tune::TunableTask> = [MODEL, CONV, KINDS]
        .into_iter()
        .flat_map(model_tasks)
        .filter(|t| t.space.is_tunable())
        .collect();
    let kinds: std::collections::HashSet<&str> = tasks.iter().map(|t| t.space.kind()).collect();
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    let mut rng = Rng::seeded(13);
    for t in &tasks {
        for _ in 0..12 {
            let d = t.space.sample(&mut rng).expect("a sample");
            let mut candidates = vec![d.clone()];
            candidates.extend(t.space.mutate(&d, &mut rng));
            let e = t.space.sample(&mut rng).expect("a sample");
            candidates.extend(t.space.crossover(&d, &e, &mut rng));
            for c in candidates {
                if let Err(why) = t.lowers(&c) {
                    panic!(
                        "{} {}: {} is refused: {why}",
                        t.task.key,
                        t.summary,
                        t.space.describe(&c)
                    );
                }
            }
        }
    }
}

#[test]
fn a_decision_the_passes_refuse_does_not_lower() {
    let t = model_tasks(KINDS)
        .into_iter()
        .find(|t| matches!(t.space, Space::Schedule(_)))
        .expect("a scheduled nest");
    let sizes = t.space.knob_sizes();
    // One knob too many: no pass is ever run on it.
    let mut d = vec![0; sizes.len()];
    d.push(0);
    assert!(t.lowers(&d).is_err());
}
