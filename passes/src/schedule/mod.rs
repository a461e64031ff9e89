//! Loop scheduling: schedules as data ([`tb_dialects::loop_::Schedule`]), the knob space
//! of a nest ([`space`]), the target it is derived from ([`target`]) and the default
//! heuristic ([`heuristic`]), and the passes that transform loop bands: `loop-tile`,
//! `loop-interchange` and `loop-apply-schedule`, one mechanism underneath.

mod apply;
mod band;
pub(crate) mod build;
mod constant_pack;
mod conv_depthwise;
pub(crate) mod conv_epilogue;
mod conv_nest;
mod conv_pointwise;
mod conv_winograd;
pub mod heuristic;
pub(crate) mod loop_apply_schedule;
pub(crate) mod loop_conv_microkernel;
pub(crate) mod loop_default_schedule;
pub(crate) mod loop_int_matmul_microkernel;
pub(crate) mod loop_interchange;
pub(crate) mod loop_matmul_microkernel;
pub(crate) mod loop_tile;
mod nest;
mod padded_in_place;
mod pool_tap;
pub mod rng;
mod row_loop;
pub mod space;
mod strip_mine;
pub mod target;
pub(crate) mod vector_epilogue;

pub use heuristic::{default_schedule, loop_nest_schedule, reduction_vector, register_block};
pub use loop_conv_microkernel::{ConvBlocking, default_conv_blocking};
pub use loop_matmul_microkernel::set_bounds as set_parallel_bounds;
pub use rng::Rng;
pub use space::{Decision, Knob, KnobSpace, Nest, Violation};
pub use target::Target;
