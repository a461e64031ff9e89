//! TensorBind dialects (func, arith, math, buffers, graph, te, loop, gpu).
//!
//! The IR core in `tb-ir` knows only `builtin`; every other dialect registers itself here.
