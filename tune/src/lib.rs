//! TensorBind tuning: the tasks of a model ([`task`]), their knobs ([`space`]), loop
//! features ([`features`]), a gradient-boosted-tree ranker ([`gbdt`]), model-guided search
//! with a task scheduler ([`search`]), a schedule generator that writes decisions knob by
//! knob for the search to measure ([`tlm`]), the tuning database ([`database`]) and applying its
//! best records when a model is compiled ([`apply`]); on PostgreSQL, a measurement job
//! queue ([`queue`]) with workers ([`worker`]) and a coordinator ([`coordinator`]) so many
//! machines measure for one search. Measuring (compiling and timing with
//! the CPU backend) lives with the tools, which link LLVM; this crate does not.

pub mod apply;
pub mod coordinator;
pub mod cost_model;
pub mod database;
pub mod dataset;
pub mod ensemble;
pub mod features;
pub mod gbdt;
pub mod isa;
pub mod queue;
pub mod search;
pub mod sentence;
pub mod space;
pub mod status;
pub mod stop;
pub mod synthetic;
pub mod target;
pub mod task;
pub mod tlm;
pub mod transfer;
pub mod transformer;
pub mod translate;
pub mod worker;

pub use database::{Database, Record, Status};
pub use features::{FEATURE_COUNT, FEATURE_SCHEMA_VERSION};
pub use search::{Measurement, Measurer, SearchOptions, tune};
pub use space::{Space, TunableTask};
pub use target::TargetKey;
pub use task::{FRONT_PIPELINE, Task};
