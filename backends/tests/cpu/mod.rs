//! The CPU backend, checked against the reference interpreter: every public function of a
//! module runs JIT-compiled and interpreted on the same seeded random arguments, and the
//! results must agree.

mod arith_extended;
mod errors;
mod harness;
mod iter_args;
mod jit;
mod math_approx;
mod ops;
mod soft_bf16;
mod te_to_loop;
