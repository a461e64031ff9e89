//! Support code below the IR: things every tool and library needs and none of them owns.
//!
//! - [`output_file`]: writing an output file the way LLVM's `ToolOutputFile` users expect:
//!   `-` is standard output, devices and FIFOs are written in place, symlinks are written
//!   through, and regular files are replaced all at once or not at all.
//! - [`test_gate`]: tests that skip when their environment is missing, except under
//!   `CI=true`, where they fail.

pub mod output_file;
pub mod test_gate;

pub use output_file::{OutputError, OutputFile, OutputSet, write_output};
