//! Knob spaces: the choices a schedule of one loop nest can make, with the constraints
//! that rule combinations out, so a heuristic, a test or a tuner can enumerate, sample,
//! mutate and validate decisions before anything is compiled.
//!
//! A *decision* is one index per knob into that knob's choices; [`KnobSpace::schedule`]
//! turns it into a [`Schedule`]. Choices are local (each knob alone is well formed);
//! constraints span knobs and are checked by [`KnobSpace::violations`]:
//!
//! - divisibility: each tile level divides the level outside it (only the outermost level
//!   of a loop may leave a partial tile), and the vector width divides the innermost tile
//!   of the innermost non-reduction dimension; in a nest with reductions that is not a
//!   contraction, the vector runs along the innermost reduction instead and must not be
//!   wider than its innermost tile;
//! - register budget: in a contraction, the innermost tiles of the non-reduction
//!   dimensions are the register block, whose accumulators (`product / vector` vectors)
//!   must leave two registers free for operands;
//! - threads: the parallel dimensions are the outermost of the loop order;
//! - order: only spatial dimensions are reordered; the reductions stay innermost, in their
//!   order (their accumulators live in registers inside the spatial loops);
//! - packing: only a contraction (a reduction and at least two other dimensions) packs.

use tb_dialects::loop_::{Packing, Schedule};

use super::rng::Rng;
use super::target::Target;

/// The loop nest a space is about: its trip counts, which dimensions are reductions and
/// the size of the elements it computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nest {
    pub extents: Vec<i64>,
    pub reduction: Vec<bool>,
    pub element_bytes: i64,
}

impl Nest {
    pub fn rank(&self) -> usize {
        self.extents.len()
    }

    fn spatial(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.rank()).filter(|&d| !self.reduction[d])
    }

    fn has_reduction(&self) -> bool {
        self.reduction.iter().any(|&r| r)
    }

    fn is_contraction(&self) -> bool {
        self.has_reduction() && self.spatial().count() >= 2
    }
}

/// One decision a schedule makes, with its choices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Knob {
    /// The tile size of `dim` at `level` (0: outermost); a size equal to the extent means
    /// no tile at that level.
    Tile {
        dim: usize,
        level: usize,
        choices: Vec<i64>,
    },
    Order(Vec<Vec<usize>>),
    Parallel(Vec<Vec<usize>>),
    Vector(Vec<i64>),
    Unroll(Vec<i64>),
    Pack(Vec<Packing>),
}

impl Knob {
    pub fn len(&self) -> usize {
        match self {
            Knob::Tile { choices, .. } => choices.len(),
            Knob::Order(c) | Knob::Parallel(c) => c.len(),
            Knob::Vector(c) | Knob::Unroll(c) => c.len(),
            Knob::Pack(c) => c.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn name(&self) -> String {
        match self {
            Knob::Tile { dim, level, .. } => format!("tile[{dim}][{level}]"),
            Knob::Order(_) => "order".into(),
            Knob::Parallel(_) => "parallel".into(),
            Knob::Vector(_) => "vector".into(),
            Knob::Unroll(_) => "unroll".into(),
            Knob::Pack(_) => "pack".into(),
        }
    }
}

/// A constraint a schedule breaks, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation(pub String);

/// One index per knob into its choices.
pub type Decision = Vec<usize>;

/// The knobs of one nest on one target.
#[derive(Clone, Debug)]
pub struct KnobSpace {
    nest: Nest,
    target: Target,
    levels: usize,
    knobs: Vec<Knob>,
}

/// Orders of up to this many spatial dimensions are enumerated in full; deeper nests keep
/// their loop order.
const MAX_PERMUTED_RANK: usize = 5;

impl KnobSpace {
    /// The space of `levels`-level tilings and the other knobs of `nest` on `target`.
    pub fn new(nest: Nest, target: Target, levels: usize) -> KnobSpace {
        let rank = nest.rank();
        let mut knobs = Vec::new();
        for dim in 0..rank {
            let choices = tile_choices(nest.extents[dim]);
            for level in 0..levels {
                knobs.push(Knob::Tile {
                    dim,
                    level,
                    choices: choices.clone(),
                });
            }
        }
        // Reductions carry their accumulators in registers inside the spatial loops, so
        // only the spatial dimensions are reordered.
        let spatial: Vec<usize> = nest.spatial().collect();
        let reductions: Vec<usize> = (0..rank).filter(|&d| nest.reduction[d]).collect();
        let orders = if spatial.len() <= MAX_PERMUTED_RANK {
            permutations(spatial.len())
                .into_iter()
                .map(|p| {
                    p.iter()
                        .map(|&i| spatial[i])
                        .chain(reductions.iter().copied())
                        .collect()
                })
                .collect()
        } else {
            vec![spatial.iter().chain(&reductions).copied().collect()]
        };
        knobs.push(Knob::Order(orders));
        let mut parallel = vec![Vec::new()];
        parallel.extend(spatial.iter().map(|&d| vec![d]));
        if spatial.len() >= 2 {
            parallel.push(spatial[..2].to_vec());
        }
        knobs.push(Knob::Parallel(parallel));
        let lanes = target.lanes(nest.element_bytes);
        let mut widths = vec![1];
        let mut w = 2;
        while w <= lanes {
            widths.push(w);
            w *= 2;
        }
        knobs.push(Knob::Vector(widths));
        knobs.push(Knob::Unroll(vec![1, 2, 4, 8]));
        knobs.push(Knob::Pack(if nest.is_contraction() {
            Packing::ALL.to_vec()
        } else {
            vec![Packing::None]
        }));
        KnobSpace {
            nest,
            target,
            levels,
            knobs,
        }
    }

    pub fn knobs(&self) -> &[Knob] {
        &self.knobs
    }

    pub fn nest(&self) -> &Nest {
        &self.nest
    }

    /// The number of decisions, valid or not (saturating).
    pub fn size(&self) -> u128 {
        self.knobs
            .iter()
            .fold(1u128, |n, k| n.saturating_mul(k.len() as u128))
    }

    /// The schedule a decision spells, or why the decision is not one of this space.
    pub fn schedule(&self, decision: &[usize]) -> Result<Schedule, Violation> {
        if decision.len() != self.knobs.len() {
            return Err(Violation(format!(
                "decision has {} entries but the space has {} knobs",
                decision.len(),
                self.knobs.len()
            )));
        }
        let mut schedule = Schedule::identity(self.nest.rank());
        for (knob, &choice) in self.knobs.iter().zip(decision) {
            if choice >= knob.len() {
                return Err(Violation(format!(
                    "choice {choice} of knob {} is out of its {} choices",
                    knob.name(),
                    knob.len()
                )));
            }
            match knob {
                Knob::Tile { dim, choices, .. } => {
                    if choices[choice] < self.nest.extents[*dim] {
                        schedule.tiles[*dim].push(choices[choice]);
                    }
                }
                Knob::Order(c) => schedule.order = c[choice].clone(),
                Knob::Parallel(c) => schedule.parallel = c[choice].clone(),
                Knob::Vector(c) => schedule.vector = c[choice],
                Knob::Unroll(c) => schedule.unroll = c[choice],
                Knob::Pack(c) => schedule.pack = c[choice],
            }
        }
        Ok(schedule)
    }

    /// The decision that spells `schedule`, if the space can express it.
    pub fn decision_of(&self, schedule: &Schedule) -> Option<Decision> {
        if schedule.tiles.len() != self.nest.rank() {
            return None;
        }
        let order = schedule.effective_order();
        self.knobs
            .iter()
            .map(|knob| match knob {
                Knob::Tile {
                    dim,
                    level,
                    choices,
                } => {
                    let size = schedule.tiles[*dim]
                        .get(*level)
                        .copied()
                        .unwrap_or(self.nest.extents[*dim]);
                    choices.iter().position(|&c| c == size)
                }
                Knob::Order(c) => c.iter().position(|o| *o == order),
                Knob::Parallel(c) => c.iter().position(|p| *p == schedule.parallel),
                Knob::Vector(c) => c.iter().position(|&v| v == schedule.vector),
                Knob::Unroll(c) => c.iter().position(|&u| u == schedule.unroll),
                Knob::Pack(c) => c.iter().position(|&p| p == schedule.pack),
            })
            .collect::<Option<Decision>>()
            .filter(|d| self.schedule(d).is_ok_and(|s| s == *schedule))
    }

    /// Every constraint `schedule` breaks on this nest and target (none: it is valid).
    pub fn violations(&self, schedule: &Schedule) -> Vec<Violation> {
        let nest = &self.nest;
        if let Err(why) = schedule.verify(nest.rank(), &nest.reduction) {
            return vec![Violation(why)];
        }
        let mut out = Vec::new();
        if schedule.tiles.iter().any(|t| t.len() > self.levels) {
            out.push(Violation(format!(
                "more than {} tile levels in one dimension",
                self.levels
            )));
        }
        for (d, levels) in schedule.tiles.iter().enumerate() {
            for w in levels.windows(2) {
                if w[0] % w[1] != 0 {
                    out.push(Violation(format!(
                        "tile {} of dimension {d} does not divide the tile {} outside it",
                        w[1], w[0]
                    )));
                }
            }
        }
        let innermost =
            |d: usize| -> i64 { schedule.tiles[d].last().copied().unwrap_or(nest.extents[d]) };
        // A contraction's vectors run along its innermost spatial dimension (the
        // micro-kernels'); another nest with reductions vectorizes its innermost reduction
        // (the reduction's terms are then combined in another order).
        let reduction_vector = nest.has_reduction() && !nest.is_contraction();
        if schedule.vector > 1 && reduction_vector {
            let d = (0..nest.rank()).rev().find(|&d| nest.reduction[d]);
            if let Some(d) = d
                && innermost(d) < schedule.vector
            {
                out.push(Violation(format!(
                    "vector width {} is wider than the innermost reduction tile {} of dimension {d}",
                    schedule.vector,
                    innermost(d)
                )));
            }
        } else if schedule.vector > 1 {
            match nest.spatial().last() {
                Some(d) if innermost(d) % schedule.vector == 0 => {}
                Some(d) => out.push(Violation(format!(
                    "vector width {} does not divide the innermost tile {} of dimension {d}",
                    schedule.vector,
                    innermost(d)
                ))),
                None => out.push(Violation(format!(
                    "vector width {} but the nest has no dimension to vectorize",
                    schedule.vector
                ))),
            }
        }
        if nest.has_reduction() && !reduction_vector {
            let block: i64 = nest
                .spatial()
                .filter(|&d| !schedule.tiles[d].is_empty())
                .map(innermost)
                .product();
            let accumulators = (block + schedule.vector - 1) / schedule.vector;
            let budget = self.target.vector_registers - 2;
            if accumulators > budget {
                out.push(Violation(format!(
                    "register block of {block} elements needs {accumulators} accumulator registers, over the budget of {budget}"
                )));
            }
        }
        let order = schedule.effective_order();
        let reductions: Vec<usize> = (0..nest.rank()).filter(|&d| nest.reduction[d]).collect();
        if order[order.len() - reductions.len()..] != reductions[..] {
            out.push(Violation(format!(
                "order {order:?} moves a reduction dimension; reductions stay innermost, in their order"
            )));
        }
        if !schedule
            .parallel
            .iter()
            .all(|d| order[..schedule.parallel.len()].contains(d))
        {
            out.push(Violation(format!(
                "parallel dimensions {:?} are not the outermost of the order {order:?}",
                schedule.parallel
            )));
        }
        if schedule.pack != Packing::None && !nest.is_contraction() {
            out.push(Violation(format!(
                "packing {} needs a contraction",
                schedule.pack.keyword()
            )));
        }
        out
    }

    /// The schedule of a decision if it is valid, else every violation.
    pub fn validate(&self, decision: &[usize]) -> Result<Schedule, Vec<Violation>> {
        let schedule = self.schedule(decision).map_err(|v| vec![v])?;
        let violations = self.violations(&schedule);
        if violations.is_empty() {
            Ok(schedule)
        } else {
            Err(violations)
        }
    }

    /// Every valid decision, in lexicographic order of the decision vector.
    pub fn enumerate(&self) -> impl Iterator<Item = Decision> + '_ {
        let mut next = if self.knobs.iter().any(Knob::is_empty) {
            None
        } else {
            Some(vec![0; self.knobs.len()])
        };
        std::iter::from_fn(move || {
            loop {
                let current = next.take()?;
                next = self.successor(&current);
                if self.validate(&current).is_ok() {
                    return Some(current);
                }
            }
        })
    }

    fn successor(&self, decision: &[usize]) -> Option<Decision> {
        let mut next = decision.to_vec();
        for i in (0..next.len()).rev() {
            next[i] += 1;
            if next[i] < self.knobs[i].len() {
                return Some(next);
            }
            next[i] = 0;
        }
        None
    }

    /// A random valid decision (`None` after `tries` invalid draws). Knobs are drawn in
    /// order, each uniformly among the choices consistent with those drawn before it
    /// (an inner tile among the divisors of the outer one, threads among the outermost
    /// loops of the drawn order, a vector width that divides the innermost tile), so most
    /// draws are valid even where valid points are a sliver of the product.
    pub fn sample(&self, rng: &mut Rng, tries: usize) -> Option<Decision> {
        (0..tries).find_map(|_| {
            let mut decision = Decision::with_capacity(self.knobs.len());
            for (i, knob) in self.knobs.iter().enumerate() {
                let fits: Vec<usize> = (0..knob.len())
                    .filter(|&c| self.consistent(&decision, i, c))
                    .collect();
                if fits.is_empty() {
                    return None;
                }
                decision.push(fits[rng.below(fits.len())]);
            }
            self.validate(&decision).is_ok().then_some(decision)
        })
    }

    /// Whether choice `choice` of knob `knob` agrees with the choices of the knobs before
    /// it (`prefix`); only the constraints between a knob and earlier ones are checked.
    fn consistent(&self, prefix: &[usize], knob: usize, choice: usize) -> bool {
        let tile_of = |dim: usize, level: usize| -> Option<i64> {
            self.knobs[..prefix.len()]
                .iter()
                .zip(prefix)
                .find_map(|(k, &c)| match k {
                    Knob::Tile {
                        dim: d,
                        level: l,
                        choices,
                    } if *d == dim && *l == level => Some(choices[c]),
                    _ => None,
                })
        };
        match &self.knobs[knob] {
            Knob::Tile {
                dim,
                level,
                choices,
            } => {
                let extent = self.nest.extents[*dim];
                // The nearest real tile outside this level.
                let outer = (0..*level)
                    .rev()
                    .filter_map(|l| tile_of(*dim, l))
                    .find(|&t| t < extent);
                let size = choices[choice];
                size >= extent || outer.is_none_or(|o| o % size == 0)
            }
            Knob::Parallel(options) => {
                let order =
                    self.knobs[..prefix.len()]
                        .iter()
                        .zip(prefix)
                        .find_map(|(k, &c)| match k {
                            Knob::Order(orders) => Some(&orders[c]),
                            _ => None,
                        });
                let dims = &options[choice];
                order.is_none_or(|o| dims.iter().all(|d| o[..dims.len()].contains(d)))
            }
            Knob::Vector(widths) => match self.nest.spatial().last() {
                Some(d) => {
                    let innermost = (0..self.levels)
                        .rev()
                        .filter_map(|l| tile_of(d, l))
                        .find(|&t| t < self.nest.extents[d])
                        .unwrap_or(self.nest.extents[d]);
                    innermost % widths[choice] == 0
                }
                None => widths[choice] == 1,
            },
            _ => true,
        }
    }

    /// A valid decision that differs from `decision` in one knob (`None` after `tries`
    /// invalid attempts, or when no knob has a second choice).
    pub fn mutate(&self, decision: &[usize], rng: &mut Rng, tries: usize) -> Option<Decision> {
        let movable: Vec<usize> = (0..self.knobs.len())
            .filter(|&i| self.knobs[i].len() > 1)
            .collect();
        if movable.is_empty() || decision.len() != self.knobs.len() {
            return None;
        }
        (0..tries).find_map(|_| {
            let knob = movable[rng.below(movable.len())];
            let mut mutated = decision.to_vec();
            let other = rng.below(self.knobs[knob].len() - 1);
            mutated[knob] = if other >= decision[knob] {
                other + 1
            } else {
                other
            };
            self.validate(&mutated).is_ok().then_some(mutated)
        })
    }
}

/// Tile sizes worth trying for a loop of `extent` iterations, ascending: register-block
/// sizes up to 16, the extent's divisors, powers of two and multiples of 16 up to 512
/// (the last two may leave a partial tile); the extent itself means "untiled".
fn tile_choices(extent: i64) -> Vec<i64> {
    let mut sizes: Vec<i64> = (1..=extent.min(4096))
        .filter(|&t| {
            t <= 16 || extent % t == 0 || (t as u64).is_power_of_two() || (t <= 512 && t % 16 == 0)
        })
        .collect();
    if !sizes.contains(&extent) {
        sizes.push(extent.max(1));
    }
    sizes
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current: Vec<usize> = (0..n).collect();
    permute(&mut current, 0, &mut out);
    out.sort();
    out
}

fn permute(items: &mut Vec<usize>, from: usize, out: &mut Vec<Vec<usize>>) {
    if from + 1 >= items.len() {
        out.push(items.clone());
        return;
    }
    for i in from..items.len() {
        items.swap(from, i);
        permute(items, from + 1, out);
        items.swap(from, i);
    }
}
