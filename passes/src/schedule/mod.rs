//! Loop scheduling: schedules as data ([`tb_dialects::loop_::Schedule`]), the knob space
//! of a nest ([`space`]), the target it is derived from ([`target`]) and the default
//! heuristic ([`heuristic`]).

pub mod heuristic;
pub mod rng;
pub mod space;
pub mod target;

pub use heuristic::default_schedule;
pub use rng::Rng;
pub use space::{Decision, Knob, KnobSpace, Nest, Violation};
pub use target::Target;
