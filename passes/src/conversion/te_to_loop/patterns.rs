//! The conversion patterns, one per family of ops that touch tensors: function
//! signatures, calls, returns, `te.compute` (with the reads and yield of its body),
//! `te.extract` and tensor constants, plus a fallback that explains why any other op on tensors cannot be
//! converted.

use std::cell::RefCell;
use std::rc::Rc;

use tb_dialects::{func, te};
use tb_ir::rewrite::conversion::{ConversionPattern, ConversionRewriter, PatternRoots};
use tb_ir::{Diagnostic, OpId, Value};

use super::builder::Builder;
use super::constants::Globals;
use super::{compute, constants, legality, signature};

/// `func.func`: its type and entry block arguments become buffers.
pub(super) struct FunctionSignature;

impl ConversionPattern for FunctionSignature {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec![func::FUNC])
    }

    fn match_and_rewrite(
        &self,
        function: OpId,
        _operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        legality::check_function(rewriter.ctx(), function)?;
        signature::bufferize_function_type(rewriter, function);
        Ok(())
    }
}

/// `func.call` and `func.return` take their operands converted; a call's results become
/// buffers in place.
pub(super) struct CallsAndReturns;

impl ConversionPattern for CallsAndReturns {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec![func::CALL, func::RETURN])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        legality::check_types(rewriter.ctx(), op)?;
        for (index, &value) in operands.iter().enumerate() {
            rewriter.set_operand(op, index, value);
        }
        let results = rewriter.ctx().op(op).results.to_vec();
        for result in results {
            let ty = rewriter.ctx().value_type(result);
            let converted = rewriter.convert_type(ty);
            rewriter.set_value_type(result, converted);
        }
        Ok(())
    }
}

/// `te.compute`: a buffer and the loop nest that fills it (see [`compute`]).
pub(super) struct Compute {
    /// The buffers made so far, in program order: the functions own them.
    pub allocations: Rc<RefCell<Vec<Value>>>,
}

impl ConversionPattern for Compute {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec![te::COMPUTE])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        _operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        legality::check_compute(rewriter.ctx(), op)?;
        let buffer = compute::lower(rewriter.ctx_mut(), op);
        rewriter.replace_op(op, &[buffer]);
        self.allocations.borrow_mut().push(buffer);
        Ok(())
    }
}

/// `te.extract`: a `loop.load` of the (converted) tensor at the indices.
pub(super) struct Extract;

impl ConversionPattern for Extract {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec![te::EXTRACT])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        legality::check_types(rewriter.ctx(), op)?;
        let loc = rewriter.ctx().op(op).loc;
        let (buffer, indices) = operands.split_first().expect("te.extract has a tensor");
        let map = tb_ir::affine::AffineMap::identity(indices.len() as u32);
        let at = Builder::before(op, loc);
        let value = at.load(rewriter.ctx_mut(), *buffer, map, indices);
        rewriter.replace_op(op, &[value]);
        Ok(())
    }
}

/// A tensor `arith.constant`: a `memref.get_global` of a constant global.
pub(super) struct TensorConstant {
    pub globals: Rc<RefCell<Globals>>,
}

impl ConversionPattern for TensorConstant {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Ops(vec!["arith.constant"])
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        _operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        let initializer = legality::check_constant(rewriter.ctx(), op)?;
        let mut globals = self.globals.borrow_mut();
        let (buffer, global) = constants::lower(rewriter.ctx_mut(), op, initializer, &mut globals);
        if let Some(global) = global {
            rewriter.notify_created(global);
        }
        rewriter.replace_op(op, &[buffer]);
        Ok(())
    }
}

/// Any other op on tensors: the reason it cannot be converted.
pub(super) struct Unconvertible;

impl ConversionPattern for Unconvertible {
    fn roots(&self) -> PatternRoots {
        PatternRoots::Any
    }

    fn benefit(&self) -> u16 {
        0
    }

    fn match_and_rewrite(
        &self,
        op: OpId,
        _operands: &[Value],
        rewriter: &mut ConversionRewriter,
    ) -> Result<(), Diagnostic> {
        Err(legality::not_convertible(rewriter.ctx(), op))
    }
}
