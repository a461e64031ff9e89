//! Knob spaces of loop nests: decisions spell schedules and back, the constraints
//! (divisibility, register budget, threads, packing) rule out what they should, and
//! enumeration, sampling and mutation only ever produce valid decisions. The default
//! heuristic's schedules are valid points of their space.

use tb_dialects::loop_::{Packing, Schedule};
use tb_passes::schedule::{KnobSpace, Nest, Rng, Target, default_schedule};

fn avx512() -> Target {
    Target {
        vector_bytes: 64,
        vector_registers: 32,
        cores: 2,
        l1_bytes: 32 << 10,
        l2_bytes: 1 << 20,
    }
}

fn avx2() -> Target {
    Target {
        vector_bytes: 32,
        vector_registers: 16,
        ..avx512()
    }
}

fn matmul(m: i64, n: i64, k: i64) -> Nest {
    Nest {
        extents: vec![m, n, k],
        reduction: vec![false, false, true],
        element_bytes: 4,
    }
}

fn elementwise(extents: &[i64]) -> Nest {
    Nest {
        extents: extents.to_vec(),
        reduction: vec![false; extents.len()],
        element_bytes: 4,
    }
}

fn messages(space: &KnobSpace, schedule: &Schedule) -> String {
    space
        .violations(schedule)
        .into_iter()
        .map(|v| v.0)
        .collect::<Vec<_>>()
        .join("; ")
}

#[test]
fn a_decision_spells_a_schedule_and_back() {
    let space = KnobSpace::new(matmul(64, 48, 32), avx512(), 2);
    let schedule = Schedule {
        tiles: vec![vec![32, 8], vec![16], vec![]],
        order: vec![1, 0, 2],
        parallel: vec![1],
        vector: 16,
        unroll: 4,
        pack: Packing::Rhs,
    };
    let decision = space
        .decision_of(&schedule)
        .expect("the space expresses it");
    assert_eq!(space.schedule(&decision).unwrap(), schedule);
    assert_eq!(space.validate(&decision), Ok(schedule));
}

#[test]
fn inner_tiles_must_divide_outer_tiles() {
    let space = KnobSpace::new(matmul(64, 64, 64), avx512(), 2);
    let schedule = Schedule {
        tiles: vec![vec![32, 12], vec![], vec![]],
        ..Schedule::identity(3)
    };
    assert!(messages(&space, &schedule).contains("does not divide the tile 32"));
}

#[test]
fn outermost_tiles_may_be_partial() {
    let space = KnobSpace::new(matmul(100, 64, 64), avx512(), 2);
    let schedule = Schedule {
        tiles: vec![vec![32, 4], vec![], vec![]],
        ..Schedule::identity(3)
    };
    assert_eq!(messages(&space, &schedule), "");
}

#[test]
fn the_vector_must_divide_the_innermost_tile() {
    let space = KnobSpace::new(elementwise(&[8, 24]), avx512(), 1);
    let schedule = Schedule {
        vector: 16,
        ..Schedule::identity(2)
    };
    assert!(
        messages(&space, &schedule)
            .contains("vector width 16 does not divide the innermost tile 24")
    );
    let schedule = Schedule {
        vector: 8,
        ..Schedule::identity(2)
    };
    assert_eq!(messages(&space, &schedule), "");
}

#[test]
fn the_register_block_must_fit_the_registers() {
    let schedule = Schedule {
        tiles: vec![vec![8], vec![32], vec![]],
        vector: 8,
        ..Schedule::identity(3)
    };
    // 8 x 32 floats in 8-lane vectors: 32 accumulators, over AVX2's 14 but not AVX-512's 30
    // once the vectors are 16 lanes wide.
    let space = KnobSpace::new(matmul(64, 64, 64), avx2(), 1);
    assert!(
        messages(&space, &schedule).contains("32 accumulator registers, over the budget of 14")
    );
    let wide = Schedule {
        vector: 16,
        ..schedule
    };
    let space = KnobSpace::new(matmul(64, 64, 64), avx512(), 1);
    assert_eq!(messages(&space, &wide), "");
}

#[test]
fn threads_run_the_outermost_loops_and_never_a_reduction() {
    let space = KnobSpace::new(matmul(64, 64, 64), avx512(), 1);
    let inner = Schedule {
        order: vec![0, 1, 2],
        parallel: vec![1],
        ..Schedule::identity(3)
    };
    assert!(messages(&space, &inner).contains("not the outermost"));
    let reduction = Schedule {
        order: vec![2, 0, 1],
        parallel: vec![2],
        ..Schedule::identity(3)
    };
    assert!(messages(&space, &reduction).contains("reduction"));
}

#[test]
fn only_contractions_pack() {
    let space = KnobSpace::new(elementwise(&[64, 64]), avx512(), 1);
    let packed = Schedule {
        pack: Packing::Both,
        ..Schedule::identity(2)
    };
    assert!(messages(&space, &packed).contains("needs a contraction"));
    assert!(space.decision_of(&packed).is_none());
}

#[test]
fn a_decision_outside_the_space_is_refused() {
    let space = KnobSpace::new(elementwise(&[4]), avx512(), 1);
    assert!(space.schedule(&[0]).is_err());
    let mut too_far = vec![0; space.knobs().len()];
    too_far[0] = 99;
    assert!(
        space.validate(&too_far).unwrap_err()[0]
            .0
            .contains("out of its")
    );
}

#[test]
fn enumeration_yields_every_valid_decision_once() {
    let space = KnobSpace::new(elementwise(&[4, 6]), avx2(), 1);
    let all: Vec<_> = space.enumerate().collect();
    let mut distinct = all.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), all.len());
    assert!(all.iter().all(|d| space.validate(d).is_ok()));
    // Brute force over the whole product agrees.
    let mut valid = 0;
    let sizes: Vec<usize> = space.knobs().iter().map(|k| k.len()).collect();
    let total: usize = sizes.iter().product();
    assert_eq!(total as u128, space.size());
    for mut index in 0..total {
        let mut decision = vec![0; sizes.len()];
        for i in (0..sizes.len()).rev() {
            decision[i] = index % sizes[i];
            index /= sizes[i];
        }
        valid += usize::from(space.validate(&decision).is_ok());
    }
    assert_eq!(all.len(), valid);
    assert!(valid > 0 && (valid as u128) < space.size());
}

#[test]
fn samples_and_mutations_are_valid_and_reproducible() {
    let space = KnobSpace::new(matmul(128, 96, 80), avx512(), 2);
    let draw = |seed| {
        let mut rng = Rng::seeded(seed);
        (0..20)
            .map(|_| space.sample(&mut rng, 1000).expect("valid points exist"))
            .collect::<Vec<_>>()
    };
    let samples = draw(7);
    assert_eq!(samples, draw(7));
    let mut rng = Rng::seeded(11);
    for decision in &samples {
        assert!(space.validate(decision).is_ok());
        let mutated = space
            .mutate(decision, &mut rng, 1000)
            .expect("a neighbour exists");
        assert!(space.validate(&mutated).is_ok());
        let changed = decision
            .iter()
            .zip(&mutated)
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(changed, 1, "{decision:?} -> {mutated:?}");
    }
}

#[test]
fn default_matmul_schedules_are_register_blocked_and_valid() {
    for target in [avx512(), avx2()] {
        for (m, n, k) in [
            (1024, 1024, 1024),
            (128, 768, 3072),
            (5, 7, 3),
            (100, 33, 300),
        ] {
            let nest = matmul(m, n, k);
            let schedule = default_schedule(&nest, &target);
            let space = KnobSpace::new(nest, target.clone(), 2);
            assert_eq!(messages(&space, &schedule), "", "{m}x{n}x{k}: {schedule:?}");
            assert!(space.decision_of(&schedule).is_some(), "{schedule:?}");
        }
    }
    let big = default_schedule(&matmul(1024, 1024, 1024), &avx512());
    assert_eq!(big.tiles, vec![vec![128, 8], vec![256, 32], vec![256]]);
    assert_eq!(
        (big.vector, big.pack, big.parallel.clone()),
        (16, Packing::Both, vec![0])
    );
}

#[test]
fn default_elementwise_schedules_vectorize_what_divides() {
    let target = avx512();
    for extents in [vec![256, 256], vec![3, 7], vec![1 << 20]] {
        let nest = elementwise(&extents);
        let schedule = default_schedule(&nest, &target);
        let space = KnobSpace::new(nest, target.clone(), 1);
        assert_eq!(messages(&space, &schedule), "", "{extents:?}");
    }
    assert_eq!(
        default_schedule(&elementwise(&[256, 256]), &target).vector,
        16
    );
    assert_eq!(default_schedule(&elementwise(&[3, 7]), &target).vector, 1);
    assert!(
        default_schedule(&elementwise(&[3, 7]), &target)
            .parallel
            .is_empty()
    );
}
