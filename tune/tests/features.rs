//! Loop features of scheduled candidates: what a tile loop counts, and how the innermost
//! loop's features tell a contiguous walk from a strided one.

mod common;

use common::{KINDS, model_tasks_lowered_by};
use tb_dialects::loop_::Schedule;
use tb_passes::schedule::Nest;
use tb_passes::schedule::{Knob, KnobSpace};
use tb_tune::features::SUMMED_FEATURES;
use tb_tune::search::candidate_features;
use tb_tune::space::{Space, TunableTask, schedule_features};

/// Index of feature 14 of the table: the iterations a statement runs, summed.
const ITERATIONS: usize = 14;
/// Indices of the innermost-loop features (see `features/innermost.rs`).
const CONTIGUOUS: usize = SUMMED_FEATURES + 2;
const STRIDED: usize = SUMMED_FEATURES + 3;
const CLEAN_VECTOR: usize = SUMMED_FEATURES + 6;
const GATHER_VECTOR: usize = SUMMED_FEATURES + 7;
const MEAN_RUN: usize = SUMMED_FEATURES + 17;
const VECTOR_SHARE: usize = SUMMED_FEATURES + 19;
const LANES: usize = SUMMED_FEATURES + 20;

/// The test model lowered without fusion: its first elementwise nest of two dimensions is
/// then layer normalization's `y - mean`, one row-major operand and one per-row buffer.
const UNFUSED: &str =
    "builtin.module(canonicalize, convert-graph-to-te, convert-te-to-loop, canonicalize)";

/// The elementwise nest of two dimensions among the test model's tasks, with its space.
fn elementwise() -> (TunableTask, KnobSpace) {
    let tasks = model_tasks_lowered_by(KINDS, UNFUSED);
    let summaries: Vec<String> = tasks.iter().map(|t| t.summary.clone()).collect();
    tasks
        .into_iter()
        .find_map(|t| match &t.space {
            Space::Schedule(s)
                if s.nest().rank() == 2
                    && !s.nest().reduction.iter().any(|&r| r)
                    && s.nest().extents.iter().all(|&e| e > 4) =>
            {
                let s = s.clone();
                Some((t, s))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no 2-d elementwise nest among {summaries:?}"))
}

/// The decision of `space` that tiles dimension `tile.0` by `tile.1` at the outer level
/// (no other tiles), runs the dimensions in `order`, vectorizes by `vector`, and neither
/// parallelizes nor unrolls.
fn decision(
    space: &KnobSpace,
    tile: Option<(usize, i64)>,
    order: &[usize],
    vector: i64,
) -> Vec<usize> {
    let extents = &space.nest().extents;
    space
        .knobs()
        .iter()
        .map(|knob| {
            let position = match knob {
                Knob::Tile {
                    dim,
                    level,
                    choices,
                } => {
                    let size = match tile {
                        Some((d, t)) if d == *dim && *level == 0 => t,
                        _ => extents[*dim],
                    };
                    choices.iter().position(|&c| c == size)
                }
                Knob::Order(c) => c.iter().position(|o| o == order),
                Knob::Parallel(c) => c.iter().position(|p| p.is_empty()),
                Knob::Vector(c) => c.iter().position(|&w| w == vector),
                Knob::Unroll(c) => c.iter().position(|&u| u == 1),
                Knob::Pack(_) => Some(0),
            };
            position.unwrap_or_else(|| panic!("knob {} has no such choice", knob.name()))
        })
        .collect()
}

fn features_of(task: &TunableTask, d: &[usize]) -> Vec<f64> {
    task.space.validate(d).expect("a valid decision");
    candidate_features(task, d).expect("the candidate transforms")
}

#[test]
fn a_tile_loop_counts_the_iterations_of_one_tile() {
    let (task, space) = elementwise();
    let extent = space.nest().extents[1];
    let tile = (2..extent).find(|t| extent % t == 0).expect("a divisor");
    let plain = features_of(&task, &decision(&space, None, &[0, 1], 1));
    let tiled = features_of(&task, &decision(&space, Some((1, tile)), &[0, 1], 1));
    assert!(
        (plain[ITERATIONS] - tiled[ITERATIONS]).abs() < 1e-9,
        "tiling by {tile} changed the iterations counted: {} -> {}",
        plain[ITERATIONS],
        tiled[ITERATIONS]
    );
}

#[test]
fn the_innermost_loop_walking_rows_is_contiguous_and_across_them_strided() {
    let (task, space) = elementwise();
    let rows = features_of(&task, &decision(&space, None, &[0, 1], 1));
    let columns = features_of(&task, &decision(&space, None, &[1, 0], 1));
    assert!(rows[CONTIGUOUS] > 0.0 && rows[STRIDED] == 0.0, "{rows:?}");
    // Across rows, the row-major buffers stride (a per-row buffer may walk contiguously).
    assert!(
        columns[STRIDED] > 0.0 && columns[CONTIGUOUS] < rows[CONTIGUOUS],
        "{columns:?}"
    );
}

#[test]
fn vectorizing_a_strided_loop_counts_as_a_gather() {
    let (task, space) = elementwise();
    let width = space
        .knobs()
        .iter()
        .find_map(|k| match k {
            Knob::Vector(c) => c.iter().copied().filter(|&w| w > 1).min(),
            _ => None,
        })
        .expect("a vector width");
    // The vector runs along the innermost dimension of the order; the tile of the other
    // dimension keeps the decision valid whichever dimension that is.
    let along_rows = features_of(&task, &decision(&space, None, &[0, 1], width));
    let along_columns = features_of(&task, &decision(&space, None, &[1, 0], width));
    assert!(
        along_rows[CLEAN_VECTOR] > 0.0 && along_rows[GATHER_VECTOR] == 0.0,
        "{along_rows:?}"
    );
    assert!(
        along_columns[GATHER_VECTOR] > 0.0 && along_columns[CLEAN_VECTOR] == 0.0,
        "{along_columns:?}"
    );
}

#[test]
fn walking_rows_makes_longer_contiguous_runs_than_walking_columns() {
    let (task, space) = elementwise();
    let rows = features_of(&task, &decision(&space, None, &[0, 1], 1));
    let columns = features_of(&task, &decision(&space, None, &[1, 0], 1));
    // Along rows the row-major operand runs on for a whole row at least (log2 of its bytes).
    let row_bytes = (space.nest().extents[1] * 4) as f64;
    assert!(
        rows[MEAN_RUN] > columns[MEAN_RUN],
        "{rows:?} vs {columns:?}"
    );
    assert!(rows[MEAN_RUN] >= row_bytes.log2() / 2.0, "{rows:?}");
}

#[test]
fn vectorizing_makes_the_arithmetic_run_on_vectors() {
    let (task, space) = elementwise();
    let width = space
        .knobs()
        .iter()
        .find_map(|k| match k {
            Knob::Vector(c) => c.iter().copied().filter(|&w| w > 1).max(),
            _ => None,
        })
        .expect("a vector width");
    let scalar = features_of(&task, &decision(&space, None, &[0, 1], 1));
    let vector = features_of(&task, &decision(&space, None, &[0, 1], width));
    assert_eq!((scalar[VECTOR_SHARE], scalar[LANES]), (0.0, 0.0));
    assert_eq!(vector[VECTOR_SHARE], 1.0);
    assert!(
        (vector[LANES] - (width as f64).log2()).abs() < 1e-9,
        "{vector:?}"
    );
}

#[test]
fn schedule_features_mean_the_same_in_nests_of_any_rank() {
    let flat = Nest {
        extents: vec![64, 20],
        reduction: vec![false, false],
        element_bytes: 4,
    };
    let deep = Nest {
        extents: vec![4, 64, 20],
        reduction: vec![false, false, false],
        element_bytes: 4,
    };
    let schedule = |rank: usize| {
        let mut s = Schedule::identity(rank);
        // The last dimension tiled by 8 (20 leaves a partial tile), vector 4, unroll 2.
        s.tiles[rank - 1] = vec![8];
        s.vector = 4;
        s.unroll = 2;
        s
    };
    let a = schedule_features(&flat, &schedule(2));
    let b = schedule_features(&deep, &schedule(3));
    assert_eq!(a.len(), b.len());
    // vector, unroll, parallel, reordered, loops inside the last, its point trip and
    // extent, vector steps per point loop, a partial vector step, lanes per body.
    for i in [0, 1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15] {
        assert_eq!(a[i], b[i], "feature {i}: {a:?} vs {b:?}");
    }
    assert_eq!((a[0], a[1], a[5], a[11]), (2.0, 1.0, 3.0, 1.0));
    // One dimension of two leaves a partial tile; one of three.
    assert_eq!((a[7], b[7]), (0.5, 1.0 / 3.0));
    // Moving the last dimension's tile loop outward is seen as such.
    let mut reordered = schedule(2);
    reordered.order = vec![1, 0];
    let c = schedule_features(&flat, &reordered);
    assert_eq!((c[3], c[4]), (1.0, 1.0));
}
