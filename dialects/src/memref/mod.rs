//! The `memref` dialect: buffers and views of them, the part of MLIR 22's `memref` the
//! loop level and its lowering need: allocation, access, copies, casts, views
//! (subview, reinterpret_cast, expand/collapse_shape, view) and globals, with MLIR's
//! names, syntax, result names, verifiers, folds and canonical forms.

mod asm;
mod assumptions;
mod atomic;
mod buffer_reshape;
mod canonicalize;
mod canonicalize_reshape_casts;
mod canonicalize_views;
mod constraint;
mod dma;
mod fold;
mod generic_atomic;
mod index_list;
pub(crate) mod layout;
mod memory_space_cast;
mod metadata;
mod offsets;
mod ops;
mod prefetch;
mod reshape;
mod subview;
mod transpose;
mod verify;

use tb_ir::ods::constraint::{
    AFFINE_MAP_ATTR, ANY_ATTR, ANY_MEMREF, ANY_TYPE, DENSE_I64_ARRAY_ATTR, FLAT_SYMBOL_REF_ATTR,
    INDEX, STRING_ATTR, UNIT_ATTR,
};
use tb_ir::ods::{
    ArgDef, AttrDef, AttrSyntax, OpDef, PURE, attr, operand, optional_attr, region, variadic,
};
use tb_ir::registry::{DialectInfo, InferInput, OpTraits, ResultNamesFn};
use tb_ir::{Context, Type};

pub use ops::MemRefOp;

use constraint::{
    ALIGNMENT, BOOL, BYTES_1D, INDEX_LIST_ARRAY, MEMREF_1D, MEMREF_OF_INTEGER_OR_FLOAT,
    MEMREF_TYPE, NON_0_RANKED_OR_UNRANKED, RANKED_OR_UNRANKED, SHAPE_1D, SIGNLESS_INTEGER_OR_FLOAT,
    STATIC_SHAPE, STRIDED,
};

pub const ALLOC: &str = "memref.alloc";
pub const ALLOCA: &str = "memref.alloca";
pub const ASSUME_ALIGNMENT: &str = "memref.assume_alignment";
pub const ATOMIC_RMW: &str = "memref.atomic_rmw";
pub const ATOMIC_YIELD: &str = "memref.atomic_yield";
pub const CAST: &str = "memref.cast";
pub const COLLAPSE_SHAPE: &str = "memref.collapse_shape";
pub const COPY: &str = "memref.copy";
pub const DEALLOC: &str = "memref.dealloc";
pub const DIM: &str = "memref.dim";
pub const DISTINCT_OBJECTS: &str = "memref.distinct_objects";
pub const DMA_START: &str = "memref.dma_start";
pub const DMA_WAIT: &str = "memref.dma_wait";
pub const EXPAND_SHAPE: &str = "memref.expand_shape";
pub const EXTRACT_STRIDED_METADATA: &str = "memref.extract_strided_metadata";
pub const GENERIC_ATOMIC_RMW: &str = "memref.generic_atomic_rmw";
pub const GET_GLOBAL: &str = "memref.get_global";
pub const GLOBAL: &str = "memref.global";
pub const LOAD: &str = "memref.load";
pub const MEMORY_SPACE_CAST: &str = "memref.memory_space_cast";
pub const PREFETCH: &str = "memref.prefetch";
pub const RANK: &str = "memref.rank";
pub const REALLOC: &str = "memref.realloc";
pub const REINTERPRET_CAST: &str = "memref.reinterpret_cast";
pub const RESHAPE: &str = "memref.reshape";
pub const STORE: &str = "memref.store";
pub const SUBVIEW: &str = "memref.subview";
pub const TRANSPOSE: &str = "memref.transpose";
pub const VIEW: &str = "memref.view";

const ALLOC_OPERANDS: &[ArgDef] = &[
    variadic("dynamicSizes", INDEX),
    variadic("symbolOperands", INDEX),
];
const ALLOC_RESULTS: &[ArgDef] = &[operand("memref", ANY_MEMREF)];
const OPTIONAL_ALIGNMENT: AttrDef = optional_attr("alignment", ALIGNMENT);
const ACCESS_ATTRS: &[AttrDef] = &[
    optional_attr("nontemporal", BOOL).with_optional_default("false"),
    OPTIONAL_ALIGNMENT,
];
const VIEW_OPERANDS: &[ArgDef] = &[
    operand("source", ANY_MEMREF),
    variadic("offsets", INDEX),
    variadic("sizes", INDEX),
    variadic("strides", INDEX),
];
const VIEW_ATTRS: &[AttrDef] = &[
    attr("static_offsets", DENSE_I64_ARRAY_ATTR),
    attr("static_sizes", DENSE_I64_ARRAY_ATTR),
    attr("static_strides", DENSE_I64_ARRAY_ATTR),
];
const INDEX_RESULT: &[ArgDef] = &[operand("result", INDEX)];
const MEMREF_RESULT: &[ArgDef] = &[operand("result", ANY_MEMREF)];
const STRIDED_RESULT: &[ArgDef] = &[operand("result", STRIDED)];

/// Suggests `%<name>` for an op's one result, as MLIR's `getAsmResultNames` does.
macro_rules! named {
    ($name:literal) => {
        Some((|_, _| vec![Some($name.to_string())]) as ResultNamesFn)
    };
}

const fn alloc_like(
    name: &'static str,
    verify: tb_ir::registry::VerifyFn,
    canonicalize: tb_ir::registry::CanonicalizeFn,
    result_names: Option<ResultNamesFn>,
) -> OpDef {
    OpDef {
        name,
        operands: ALLOC_OPERANDS,
        results: ALLOC_RESULTS,
        attributes: &[OPTIONAL_ALIGNMENT],
        traits: OpTraits {
            removable_if_unused: true,
            ..OpDef::EMPTY.traits
        },
        attr_sized_operand_segments: true,
        format: Some(
            "`(`$dynamicSizes`)` (`` `[` $symbolOperands^ `]`)? attr-dict `:` type($memref)",
        ),
        verify: Some(verify),
        canonicalize: Some(canonicalize),
        result_names,
        ..OpDef::EMPTY
    }
}

static DEFS: &[OpDef] = &[
    alloc_like(ALLOC, verify::alloc, canonicalize::alloc, named!("alloc")),
    alloc_like(
        ALLOCA,
        verify::alloca,
        canonicalize::alloca,
        named!("alloca"),
    ),
    OpDef {
        name: REALLOC,
        summary: "a 1-D buffer of a new size holding the old one's elements",
        operands: &[
            operand("source", MEMREF_1D),
            variadic("dynamicResultSize", INDEX),
        ],
        results: &[operand("result", MEMREF_1D)],
        attributes: &[OPTIONAL_ALIGNMENT],
        format: Some(
            "$source (`(` $dynamicResultSize^ `)`)? attr-dict `:` type($source) `to` type($result)",
        ),
        verify: Some(buffer_reshape::verify_realloc),
        canonicalize: Some(canonicalize::realloc),
        ..OpDef::EMPTY
    },
    OpDef {
        name: RESHAPE,
        summary: "a memref's buffer with the shape held in a 1-D memref",
        operands: &[
            operand("source", RANKED_OR_UNRANKED),
            operand("shape", SHAPE_1D),
        ],
        results: &[operand("result", RANKED_OR_UNRANKED)],
        traits: PURE,
        format: Some("$source `(` $shape `)` attr-dict `:` functional-type(operands, results)"),
        verify: Some(buffer_reshape::verify_reshape),
        result_names: named!("reshape"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: DEALLOC,
        summary: "frees a buffer from memref.alloc",
        operands: &[operand("memref", RANKED_OR_UNRANKED)],
        format: Some("$memref attr-dict `:` type($memref)"),
        canonicalize: Some(canonicalize::dealloc),
        ..OpDef::EMPTY
    },
    OpDef {
        name: LOAD,
        summary: "reads one element",
        operands: &[operand("memref", ANY_MEMREF), variadic("indices", INDEX)],
        results: &[operand("result", ANY_TYPE)],
        attributes: ACCESS_ATTRS,
        traits: OpTraits {
            removable_if_unused: true,
            ..OpDef::EMPTY.traits
        },
        format: Some("$memref `[` $indices `]` attr-dict `:` type($memref)"),
        verify: Some(verify::load),
        infer_types: Some(infer_element),
        canonicalize: Some(canonicalize::load),
        ..OpDef::EMPTY
    },
    OpDef {
        name: STORE,
        summary: "writes one element",
        operands: &[
            operand("value", ANY_TYPE),
            operand("memref", ANY_MEMREF),
            variadic("indices", INDEX),
        ],
        attributes: ACCESS_ATTRS,
        custom_assembly: Some((asm::parse_store, asm::print_store)),
        verify: Some(verify::store),
        canonicalize: Some(canonicalize::store),
        ..OpDef::EMPTY
    },
    OpDef {
        name: CAST,
        summary: "changes how much of a memref's type is static",
        operands: &[operand("source", RANKED_OR_UNRANKED)],
        results: &[operand("dest", RANKED_OR_UNRANKED)],
        traits: PURE,
        format: Some("$source attr-dict `:` type($source) `to` type($dest)"),
        verify: Some(verify::cast),
        fold: Some(fold::cast),
        canonicalize: Some(canonicalize::cast),
        result_names: named!("cast"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: COPY,
        summary: "copies every element of one memref to another",
        operands: &[
            operand("source", RANKED_OR_UNRANKED),
            operand("target", RANKED_OR_UNRANKED),
        ],
        format: Some("$source `,` $target attr-dict `:` type($source) `to` type($target)"),
        verify: Some(verify::copy),
        canonicalize: Some(canonicalize::copy),
        ..OpDef::EMPTY
    },
    OpDef {
        name: DIM,
        summary: "the size of one dimension",
        operands: &[
            operand("source", NON_0_RANKED_OR_UNRANKED),
            operand("index", INDEX),
        ],
        results: INDEX_RESULT,
        traits: PURE,
        format: Some("attr-dict $source `,` $index `:` type($source)"),
        fold: Some(fold::dim),
        canonicalize: Some(canonicalize::dim),
        result_names: named!("dim"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: RANK,
        summary: "the rank of a memref",
        operands: &[operand("memref", RANKED_OR_UNRANKED)],
        results: INDEX_RESULT,
        traits: PURE,
        format: Some("$memref attr-dict `:` type($memref)"),
        fold: Some(fold::rank),
        ..OpDef::EMPTY
    },
    OpDef {
        name: GLOBAL,
        summary: "a global buffer, constant or not, defined or external",
        attributes: &[
            attr("sym_name", STRING_ATTR),
            optional_attr("sym_visibility", STRING_ATTR),
            attr("type", MEMREF_TYPE),
            optional_attr("initial_value", ANY_ATTR),
            optional_attr("constant", UNIT_ATTR),
            OPTIONAL_ALIGNMENT,
        ],
        custom_assembly: Some((asm::parse_global, asm::print_global)),
        verify: Some(verify::global),
        ..OpDef::EMPTY
    },
    OpDef {
        name: GET_GLOBAL,
        summary: "the buffer of a memref.global",
        attributes: &[attr("name", FLAT_SYMBOL_REF_ATTR)],
        results: &[operand("result", STATIC_SHAPE)],
        traits: PURE,
        format: Some("$name `:` type($result) attr-dict"),
        verify: Some(verify::get_global),
        ..OpDef::EMPTY
    },
    OpDef {
        name: SUBVIEW,
        summary: "a strided slice of a memref",
        operands: VIEW_OPERANDS,
        results: MEMREF_RESULT,
        attributes: VIEW_ATTRS,
        traits: PURE,
        attr_sized_operand_segments: true,
        custom_assembly: Some((asm::parse_subview, asm::print_subview)),
        verify: Some(subview::verify),
        fold: Some(fold::subview),
        canonicalize: Some(canonicalize_views::subview),
        result_names: named!("subview"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: REINTERPRET_CAST,
        summary: "a memref's buffer with another offset, sizes and strides",
        operands: &[
            operand("source", RANKED_OR_UNRANKED),
            variadic("offsets", INDEX),
            variadic("sizes", INDEX),
            variadic("strides", INDEX),
        ],
        results: STRIDED_RESULT,
        attributes: VIEW_ATTRS,
        traits: PURE,
        attr_sized_operand_segments: true,
        custom_assembly: Some((asm::parse_reinterpret_cast, asm::print_reinterpret_cast)),
        verify: Some(verify::reinterpret_cast),
        fold: Some(fold::reinterpret_cast),
        canonicalize: Some(canonicalize_views::reinterpret_cast),
        result_names: named!("reinterpret_cast"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: EXPAND_SHAPE,
        summary: "splits dimensions of a memref",
        operands: &[operand("src", STRIDED), variadic("output_shape", INDEX)],
        results: STRIDED_RESULT,
        attributes: &[
            attr("reassociation", INDEX_LIST_ARRAY),
            attr("static_output_shape", DENSE_I64_ARRAY_ATTR),
        ],
        traits: PURE,
        custom_assembly: Some((asm::parse_expand_shape, asm::print_expand_shape)),
        verify: Some(reshape::verify_expand),
        fold: Some(fold::reshape),
        canonicalize: Some(canonicalize_views::expand_shape),
        result_names: named!("expand_shape"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: COLLAPSE_SHAPE,
        summary: "merges contiguous dimensions of a memref",
        operands: &[operand("src", STRIDED)],
        results: STRIDED_RESULT,
        attributes: &[attr("reassociation", INDEX_LIST_ARRAY)],
        traits: PURE,
        format: Some("$src $reassociation attr-dict `:` type($src) `into` type($result)"),
        verify: Some(reshape::verify_collapse),
        fold: Some(fold::reshape),
        canonicalize: Some(canonicalize_views::collapse_shape),
        result_names: named!("collapse_shape"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: VIEW,
        summary: "a typed view at a byte offset into a byte buffer",
        operands: &[
            operand("source", BYTES_1D),
            operand("byte_shift", INDEX),
            variadic("sizes", INDEX),
        ],
        results: MEMREF_RESULT,
        traits: PURE,
        format: Some(
            "$source `[` $byte_shift `]` `` `[` $sizes `]` attr-dict `:` type($source) `to` type(results)",
        ),
        verify: Some(verify::view),
        fold: Some(fold::view),
        canonicalize: Some(canonicalize_views::view),
        result_names: named!("view"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: EXTRACT_STRIDED_METADATA,
        summary: "the base buffer, offset, sizes and strides of a strided memref",
        operands: &[operand("source", STRIDED)],
        // MLIR's `sizes` and `strides` (as many as the rank each) are one group here.
        results: &[
            operand("base_buffer", ANY_MEMREF),
            operand("offset", INDEX),
            variadic("sizes_and_strides", INDEX),
        ],
        traits: PURE,
        format: Some("$source `:` type($source) `->` type(results) attr-dict"),
        verify: Some(metadata::verify),
        infer_types: Some(metadata::infer),
        canonicalize: Some(metadata::extract_strided_metadata),
        ..OpDef::EMPTY
    },
    OpDef {
        name: MEMORY_SPACE_CAST,
        summary: "the same buffer in another memory space",
        operands: &[operand("source", RANKED_OR_UNRANKED)],
        results: &[operand("dest", RANKED_OR_UNRANKED)],
        traits: PURE,
        format: Some("$source attr-dict `:` type($source) `to` type($dest)"),
        verify: Some(memory_space_cast::verify),
        fold: Some(memory_space_cast::fold),
        canonicalize: Some(memory_space_cast::canonicalize),
        result_names: named!("memspacecast"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: TRANSPOSE,
        summary: "a memref with its dimensions permuted (sizes and strides only)",
        operands: &[operand("in", STRIDED)],
        results: &[operand("result", STRIDED)],
        attributes: &[attr("permutation", AFFINE_MAP_ATTR)],
        traits: PURE,
        custom_assembly: Some((transpose::parse, transpose::print)),
        verify: Some(transpose::verify),
        fold: Some(transpose::fold),
        canonicalize: Some(transpose::canonicalize),
        result_names: named!("transpose"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: ASSUME_ALIGNMENT,
        summary: "its operand, assumed aligned to a power of two",
        operands: &[operand("memref", ANY_MEMREF)],
        results: &[operand("result", ANY_MEMREF)],
        attributes: &[attr("alignment", assumptions::POSITIVE_I32)],
        traits: PURE,
        same_operands_and_result_type: true,
        custom_assembly: Some((
            assumptions::parse_assume_alignment,
            assumptions::print_assume_alignment,
        )),
        verify: Some(assumptions::verify_assume_alignment),
        fold: Some(assumptions::fold_assume_alignment),
        result_names: named!("assume_align"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: DISTINCT_OBJECTS,
        summary: "its operands, assumed never to alias each other",
        operands: &[variadic("operands", ANY_MEMREF)],
        results: &[variadic("results", ANY_MEMREF)],
        traits: PURE,
        format: Some("$operands attr-dict `:` type($operands)"),
        verify: Some(assumptions::verify_distinct_objects),
        infer_types: Some(assumptions::infer_distinct_objects),
        ..OpDef::EMPTY
    },
    OpDef {
        name: ATOMIC_RMW,
        summary: "an atomic read-modify-write of one element",
        operands: &[
            operand("value", SIGNLESS_INTEGER_OR_FLOAT),
            operand("memref", MEMREF_OF_INTEGER_OR_FLOAT),
            variadic("indices", INDEX),
        ],
        results: &[operand("result", SIGNLESS_INTEGER_OR_FLOAT)],
        attributes: &[attr("kind", atomic::KIND_ATTR)
            .with_syntax(AttrSyntax::Enum(crate::affine::REDUCTION_KINDS))],
        format: Some(
            "$kind $value `,` $memref `[` $indices `]` attr-dict `:` `(` type($value) `,` type($memref) `)` `->` type($result)",
        ),
        verify: Some(atomic::verify),
        canonicalize: Some(canonicalize::atomic_rmw),
        ..OpDef::EMPTY
    },
    OpDef {
        name: GENERIC_ATOMIC_RMW,
        summary: "an atomic read-modify-write of one element whose new value a region computes",
        operands: &[
            operand("memref", MEMREF_OF_INTEGER_OR_FLOAT),
            variadic("indices", INDEX),
        ],
        results: &[operand("result", SIGNLESS_INTEGER_OR_FLOAT)],
        regions: &[region("atomic_body")],
        traits: OpTraits {
            single_block: true,
            ..OpDef::EMPTY.traits
        },
        custom_assembly: Some((generic_atomic::parse, generic_atomic::print)),
        verify: Some(generic_atomic::verify),
        ..OpDef::EMPTY
    },
    OpDef {
        name: ATOMIC_YIELD,
        summary: "gives the new value of a memref.generic_atomic_rmw",
        operands: &[operand("result", ANY_TYPE)],
        traits: OpTraits {
            terminator: true,
            ..PURE
        },
        format: Some("$result attr-dict `:` type($result)"),
        verify: Some(generic_atomic::verify_yield),
        ..OpDef::EMPTY
    },
    OpDef {
        name: DMA_START,
        summary: "starts a transfer between memrefs, completed at a tag",
        operands: &[variadic("operands", ANY_TYPE)],
        custom_assembly: Some((dma::parse_start, dma::print_start)),
        verify: Some(dma::verify_start),
        canonicalize: Some(canonicalize::dma_start),
        ..OpDef::EMPTY
    },
    OpDef {
        name: DMA_WAIT,
        summary: "waits for the transfer of a tag to complete",
        operands: &[
            operand("tagMemRef", ANY_MEMREF),
            variadic("tagIndices", INDEX),
            operand("numElements", INDEX),
        ],
        format: Some(
            "$tagMemRef `[` $tagIndices `]` `,` $numElements attr-dict `:` type($tagMemRef)",
        ),
        verify: Some(dma::verify_wait),
        canonicalize: Some(canonicalize::dma_wait),
        ..OpDef::EMPTY
    },
    OpDef {
        name: PREFETCH,
        summary: "a hint to fetch the cache line of one element",
        operands: &[operand("memref", ANY_MEMREF), variadic("indices", INDEX)],
        attributes: &[
            attr("isWrite", BOOL),
            attr("localityHint", prefetch::LOCALITY),
            attr("isDataCache", BOOL),
        ],
        custom_assembly: Some((prefetch::parse, prefetch::print)),
        verify: Some(prefetch::verify),
        canonicalize: Some(canonicalize::prefetch),
        ..OpDef::EMPTY
    },
];

/// A load yields the memref's element type.
fn infer_element(ctx: &mut Context, input: &InferInput) -> Result<Vec<Type>, String> {
    let memref = *input.operand_types.first().ok_or("load needs a memref")?;
    match ctx.type_kind(memref).element() {
        Some(element) => Ok(vec![element]),
        None => Err(format!(
            "invalid kind of type specified: expected builtin.memref, but found '{}'",
            tb_ir::printer::type_to_string(ctx, memref)
        )),
    }
}

pub fn register(ctx: &mut Context) -> Result<(), String> {
    // Folded sizes are `arith.constant`s of index type, as MLIR's memref dialect builds.
    ctx.register_dialect_info(DialectInfo {
        namespace: "memref",
        materialize_constant: Some(crate::arith::materialize_constant),
        print_attr: None,
    });
    for def in DEFS {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<MemRefOp>()
}
