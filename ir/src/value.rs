//! SSA values: operation results and block arguments, with their use lists.

use smallvec::SmallVec;

use crate::block::BlockId;
use crate::location::Location;
use crate::operation::OpId;
use crate::types::Type;

/// An SSA value id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Value(pub(crate) u32);

/// Where a value is defined.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ValueDef {
    Result {
        op: OpId,
        index: u32,
    },
    BlockArgument {
        block: BlockId,
        index: u32,
    },
    /// A forward reference the parser has not resolved yet.
    Placeholder,
}

/// One use of a value: operand `index` of `op`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Use {
    pub op: OpId,
    pub index: u32,
}

#[derive(Clone, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
    /// Block arguments carry their own location; results use their op's.
    pub loc: Option<Location>,
    pub uses: SmallVec<[Use; 2]>,
}
