//! Custom assembly: the parser and printer APIs op syntax is written against, and
//! declarative formats in MLIR's directive syntax interpreted by shared code.

mod format;
mod format_parse;
mod format_print;
mod parser;
mod printer;

pub use format::{Anchor, Element, Format, TypeRef};
pub use format_parse::parse_with_format;
pub use format_print::print_with_format;
pub use parser::{OpAsmParser, OperationParseState, RegionArgument, UnresolvedOperand};
pub use printer::OpAsmPrinter;

use crate::operation::OpId;
use crate::parser::PResult;

/// A hand-written custom parser: fills `state` from the text after the op name.
pub type CustomParseFn = fn(&mut OpAsmParser, &mut OperationParseState) -> PResult<()>;

/// A hand-written custom printer: writes what follows the op name.
pub type CustomPrintFn = fn(&mut OpAsmPrinter, OpId);
