//! `loop-tile{sizes=...}`: tiles every outermost band of perfectly nested `loop.for`s by
//! the given sizes (0 leaves a loop untiled), with a partial last tile where a size does
//! not divide its loop. Bands that are too shallow, carry values or are not rectangular
//! are left as they are.

use tb_dialects::loop_::Schedule;
use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId};

use super::apply::apply_everywhere;

const OPTIONS: &[PassOptionInfo] = &[PassOptionInfo {
    name: "sizes",
    kind: OptionKind::IntList,
    default: "",
    help: "Tile size of each loop of a band, outermost first (0: not tiled)",
}];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "loop-tile",
        description: "Tile bands of perfectly nested loop.for loops",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(LoopTile {
                sizes: o.int_list("sizes"),
            })
        },
    }
}

struct LoopTile {
    sizes: Vec<i64>,
}

impl Pass for LoopTile {
    fn argument(&self) -> &'static str {
        "loop-tile"
    }

    fn display_name(&self) -> &'static str {
        "LoopTile"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        if let Some(bad) = self.sizes.iter().find(|&&s| s < 0) {
            return Err(Diagnostic::error(
                ctx.op(op).loc,
                format!("loop-tile: tile size {bad} is negative"),
            ));
        }
        if self.sizes.iter().all(|&s| s == 0) {
            return Ok(());
        }
        let schedule = Schedule {
            tiles: self
                .sizes
                .iter()
                .map(|&s| if s == 0 { vec![] } else { vec![s] })
                .collect(),
            ..Schedule::identity(self.sizes.len())
        };
        apply_everywhere(ctx, op, &schedule)
    }
}
