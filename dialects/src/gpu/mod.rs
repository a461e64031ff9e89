//! The `gpu` dialect: kernels launched over a grid of thread blocks, in MLIR's spirit and
//! with MLIR 22's syntax.
//!
//! ```mlir
//! gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
//!            threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
//!   %i = gpu.thread_id x
//!   gpu.barrier
//!   %r, %ok = gpu.shuffle xor %v, %c1_i32, %c32_i32 : f32
//!   gpu.terminator
//! }
//! ```
//!
//! The launch's body is the kernel: it runs once per thread of every block. Its entry
//! block's twelve `index` arguments are, in order, the block ids, the thread ids, the grid
//! size and the block size (x, y, z each); the id and dimension ops read the same values
//! anywhere inside. Values defined outside the launch are captured by it (the NVPTX backend
//! passes buffers as kernel parameters and rematerializes constants and views).

mod asm;
mod ops;
mod verify;

use tb_ir::attributes::AttrKind;
use tb_ir::ods::constraint::{ANY_TYPE, AttrConstraint, INDEX, TypeConstraint, is_i1};
use tb_ir::ods::{OpDef, attr, operand, optional, optional_attr, single_block_region, variadic};
use tb_ir::registry::OpTraits;
use tb_ir::{Attr, Context, OpId, TypeKind, Value};

pub use ops::GpuOp;

pub const LAUNCH: &str = "gpu.launch";
pub const TERMINATOR: &str = "gpu.terminator";
pub const BLOCK_ID: &str = "gpu.block_id";
pub const THREAD_ID: &str = "gpu.thread_id";
pub const BLOCK_DIM: &str = "gpu.block_dim";
pub const GRID_DIM: &str = "gpu.grid_dim";
pub const BARRIER: &str = "gpu.barrier";
pub const SHUFFLE: &str = "gpu.shuffle";

/// The discardable attribute MLIR keeps on `gpu.launch`: how many of the body's arguments
/// after the twelve ids and sizes are workgroup buffers.
pub const WORKGROUP_ATTRIBUTIONS: &str = "workgroup_attributions";

/// Threads that execute a shuffle together (a warp on NVIDIA GPUs).
pub const WARP_SIZE: u32 = 32;

/// The number of `index` arguments of a launch body: block ids, thread ids, grid size and
/// block size, three each.
pub const LAUNCH_BODY_ARGS: usize = 12;

/// One of the three dimensions of a grid or block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dimension {
    X,
    Y,
    Z,
}

impl Dimension {
    pub const ALL: [Dimension; 3] = [Dimension::X, Dimension::Y, Dimension::Z];

    pub fn name(self) -> &'static str {
        match self {
            Dimension::X => "x",
            Dimension::Y => "y",
            Dimension::Z => "z",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn parse(word: &str) -> Option<Dimension> {
        Dimension::ALL.into_iter().find(|d| d.name() == word)
    }
}

/// How `gpu.shuffle` picks the lane it reads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleMode {
    /// Lane `lane ^ offset`.
    Xor,
    /// Lane `lane - offset` (itself when that is below the segment).
    Up,
    /// Lane `lane + offset` (itself when that is past the width).
    Down,
    /// Lane `offset`.
    Idx,
}

impl ShuffleMode {
    pub const ALL: [ShuffleMode; 4] = [
        ShuffleMode::Xor,
        ShuffleMode::Up,
        ShuffleMode::Down,
        ShuffleMode::Idx,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ShuffleMode::Xor => "xor",
            ShuffleMode::Up => "up",
            ShuffleMode::Down => "down",
            ShuffleMode::Idx => "idx",
        }
    }

    pub fn parse(word: &str) -> Option<ShuffleMode> {
        ShuffleMode::ALL.into_iter().find(|m| m.name() == word)
    }

    /// The lane read by `lane` for `offset` within segments of `width` lanes, and whether
    /// that lane is inside the segment (otherwise a thread reads its own value).
    pub fn source_lane(self, lane: u32, offset: u32, width: u32) -> (u32, bool) {
        let segment = lane - lane % width.max(1);
        let source = match self {
            ShuffleMode::Xor => Some(lane ^ offset),
            ShuffleMode::Up => lane.checked_sub(offset).filter(|&s| s >= segment),
            ShuffleMode::Down => lane.checked_add(offset),
            ShuffleMode::Idx => Some(segment + offset),
        };
        match source {
            Some(s) if s >= segment && s < segment + width => (s, true),
            _ => (lane, false),
        }
    }
}

/// `#gpu<dim x>` and `#gpu<shuffle_mode xor>` are kept as the dialect's own spelling (the
/// form MLIR prints), read back through these helpers.
fn enum_attr_word<'a>(ctx: &'a Context, attr: Attr, mnemonic: &str) -> Option<&'a str> {
    let AttrKind::Opaque { dialect, body, .. } = ctx.attr_kind(attr) else {
        return None;
    };
    if dialect != "gpu" {
        return None;
    }
    let inner = body.strip_prefix('<')?.strip_suffix('>')?.trim();
    let rest = inner.strip_prefix(mnemonic)?;
    rest.starts_with(char::is_whitespace).then(|| rest.trim())
}

fn enum_attr(ctx: &mut Context, mnemonic: &str, word: &str) -> Attr {
    ctx.intern_attr(AttrKind::Opaque {
        dialect: "gpu".to_owned(),
        body: format!("<{mnemonic} {word}>"),
        ty: None,
    })
}

/// `#gpu.address_space<workgroup>`: the memory space of a block's shared buffers.
pub fn workgroup_space_attr(ctx: &mut Context) -> Attr {
    ctx.intern_attr(AttrKind::Opaque {
        dialect: "gpu".to_owned(),
        body: "address_space<workgroup>".to_owned(),
        ty: None,
    })
}

/// The word of a `#gpu.address_space<..>` attribute (`global`, `workgroup`, `private`);
/// `None` for any other attribute.
pub fn address_space(ctx: &Context, attr: Attr) -> Option<&str> {
    let AttrKind::Opaque { dialect, body, .. } = ctx.attr_kind(attr) else {
        return None;
    };
    let inner = body.strip_prefix("address_space<")?.strip_suffix('>')?;
    (dialect == "gpu").then(|| inner.trim())
}

/// Whether memref type `ty` lives in a block's shared memory: its memory space is
/// `#gpu.address_space<workgroup>` or NVVM's number for it, 3.
pub fn is_workgroup_memref(ctx: &Context, ty: tb_ir::Type) -> bool {
    let TypeKind::MemRef {
        memory_space: Some(space),
        ..
    } = ctx.type_kind(ty)
    else {
        return false;
    };
    address_space(ctx, *space) == Some("workgroup")
        || matches!(ctx.attr_kind(*space), AttrKind::Integer { value: 3, .. })
}

/// The workgroup buffers of a launch: its body's arguments after the twelve ids and sizes.
pub fn workgroup_buffers(ctx: &Context, op: OpId) -> Vec<Value> {
    launch_body(ctx, op)
        .map(|b| {
            ctx.block(b)
                .args
                .iter()
                .skip(LAUNCH_BODY_ARGS)
                .copied()
                .collect()
        })
        .unwrap_or_default()
}

/// `#gpu<dim x>`.
pub fn dimension_attr(ctx: &mut Context, dimension: Dimension) -> Attr {
    enum_attr(ctx, "dim", dimension.name())
}

/// `#gpu<shuffle_mode xor>`.
pub fn shuffle_mode_attr(ctx: &mut Context, mode: ShuffleMode) -> Attr {
    enum_attr(ctx, "shuffle_mode", mode.name())
}

/// The dimension an id or size op reads.
pub fn dimension(ctx: &Context, op: OpId) -> Option<Dimension> {
    let attr = ctx.op_inherent_or_attr(op, "dimension")?;
    Dimension::parse(enum_attr_word(ctx, attr, "dim")?)
}

/// The mode of a `gpu.shuffle`.
pub fn shuffle_mode(ctx: &Context, op: OpId) -> Option<ShuffleMode> {
    let attr = ctx.op_inherent_or_attr(op, "mode")?;
    ShuffleMode::parse(enum_attr_word(ctx, attr, "shuffle_mode")?)
}

/// The grid and block sizes a launch is given: `[gx, gy, gz, bx, by, bz]`.
pub fn launch_sizes(ctx: &Context, op: OpId) -> Option<[Value; 6]> {
    let sizes = tb_ir::ods::segment_sizes(ctx, op)?;
    let skip = *sizes.first()?;
    ctx.op(op).operands.get(skip..skip + 6)?.try_into().ok()
}

/// The kernel body of a launch.
pub fn launch_body(ctx: &Context, op: OpId) -> Option<tb_ir::BlockId> {
    ctx.entry_block(*ctx.op(op).regions.first()?)
}

const DIMENSION_ATTR: AttrConstraint = AttrConstraint {
    description: "dimension `#gpu<dim x|y|z>`",
    check: |c, a| enum_attr_word(c, a, "dim").is_some_and(|w| Dimension::parse(w).is_some()),
};

const SHUFFLE_MODE_ATTR: AttrConstraint = AttrConstraint {
    description: "shuffle mode `#gpu<shuffle_mode xor|up|down|idx>`",
    check: |c, a| {
        enum_attr_word(c, a, "shuffle_mode").is_some_and(|w| ShuffleMode::parse(w).is_some())
    },
};

const ASYNC_TOKEN: TypeConstraint = TypeConstraint {
    description: "async token",
    check: |c, t| matches!(c.type_kind(t), TypeKind::Opaque { dialect, body } if dialect == "gpu" && body == "async.token"),
    buildable: None,
};

const I32: TypeConstraint = TypeConstraint {
    description: "32-bit signless integer",
    check: |c, t| {
        matches!(
            c.type_kind(t),
            TypeKind::Integer {
                width: 32,
                signedness: tb_ir::Signedness::Signless
            }
        )
    },
    buildable: Some(|c| c.integer_type(32, tb_ir::Signedness::Signless)),
};

const I1: TypeConstraint = TypeConstraint {
    description: "1-bit signless integer",
    check: is_i1,
    buildable: Some(|c| c.integer_type(1, tb_ir::Signedness::Signless)),
};

static LAUNCH_DEF: OpDef = OpDef {
    name: LAUNCH,
    summary: "runs its body once per thread of a grid of thread blocks",
    operands: &[
        variadic("asyncDependencies", ASYNC_TOKEN),
        operand("gridSizeX", INDEX),
        operand("gridSizeY", INDEX),
        operand("gridSizeZ", INDEX),
        operand("blockSizeX", INDEX),
        operand("blockSizeY", INDEX),
        operand("blockSizeZ", INDEX),
        optional("clusterSizeX", INDEX),
        optional("clusterSizeY", INDEX),
        optional("clusterSizeZ", INDEX),
        optional("dynamicSharedMemorySize", I32),
    ],
    regions: &[single_block_region("body")],
    traits: OpTraits {
        automatic_allocation_scope: true,
        ..OpDef::EMPTY.traits
    },
    attr_sized_operand_segments: true,
    custom_assembly: Some((asm::parse_launch, asm::print_launch)),
    verify: Some(verify::launch),
    ..OpDef::EMPTY
};

static TERMINATOR_DEF: OpDef = OpDef {
    name: TERMINATOR,
    summary: "ends the body of a gpu.launch",
    traits: OpTraits {
        terminator: true,
        pure: true,
        ..OpDef::EMPTY.traits
    },
    format: Some("attr-dict"),
    verify: Some(verify::terminator),
    ..OpDef::EMPTY
};

const ID_RESULTS: &[tb_ir::ods::ArgDef] = &[operand("result", INDEX)];
const ID_ATTRIBUTES: &[tb_ir::ods::AttrDef] = &[
    attr("dimension", DIMENSION_ATTR),
    optional_attr("upper_bound", tb_ir::ods::constraint::INDEX_ATTR),
];

const fn id_def(name: &'static str, summary: &'static str) -> OpDef {
    OpDef {
        name,
        summary,
        results: ID_RESULTS,
        attributes: ID_ATTRIBUTES,
        traits: OpTraits {
            pure: true,
            ..OpDef::EMPTY.traits
        },
        custom_assembly: Some((asm::parse_dimension_op, asm::print_dimension_op)),
        ..OpDef::EMPTY
    }
}

static BLOCK_ID_DEF: OpDef = id_def(BLOCK_ID, "the id of the thread's block in the grid");
static THREAD_ID_DEF: OpDef = id_def(THREAD_ID, "the id of the thread in its block");
static BLOCK_DIM_DEF: OpDef = id_def(BLOCK_DIM, "the number of threads of a block");
static GRID_DIM_DEF: OpDef = id_def(GRID_DIM, "the number of blocks of the grid");

static BARRIER_DEF: OpDef = OpDef {
    name: BARRIER,
    summary: "waits until every thread of the block reaches it; memory writes before it are visible after it",
    format: Some("attr-dict"),
    ..OpDef::EMPTY
};

static SHUFFLE_DEF: OpDef = OpDef {
    name: SHUFFLE,
    summary: "exchanges a value between the threads of a warp",
    operands: &[
        operand("value", ANY_TYPE),
        operand("offset", I32),
        operand("width", I32),
    ],
    results: &[operand("shuffleResult", ANY_TYPE), operand("valid", I1)],
    attributes: &[attr("mode", SHUFFLE_MODE_ATTR)],
    traits: OpTraits {
        pure: true,
        ..OpDef::EMPTY.traits
    },
    custom_assembly: Some((asm::parse_shuffle, asm::print_shuffle)),
    verify: Some(verify::shuffle),
    ..OpDef::EMPTY
};

pub fn register(ctx: &mut Context) -> Result<(), String> {
    for def in [
        &LAUNCH_DEF,
        &TERMINATOR_DEF,
        &BLOCK_ID_DEF,
        &THREAD_ID_DEF,
        &BLOCK_DIM_DEF,
        &GRID_DIM_DEF,
        &BARRIER_DEF,
        &SHUFFLE_DEF,
    ] {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<GpuOp>()
}
