//! One call through MLIR's C interface (`llvm.emit_c_interface`) and the packed wrapper
//! MLIR's ExecutionEngine builds around it.
//!
//! `_mlir_ciface_<f>` takes each memref argument as a pointer to its strided descriptor
//! `{allocated, aligned, offset, sizes[r], strides[r]}` and each scalar by value. Its
//! results are packed the way MLIR's `func` to LLVM lowering packs them: one scalar result
//! is returned by value; one memref result (a descriptor struct) or several results (an
//! LLVM struct of the results, memrefs as descriptor structs, each field at its natural
//! alignment) are written through a pointer the wrapper takes as its first parameter. The
//! packed wrapper takes an array of pointers: one to each parameter's value in order, then,
//! for a function that returns a value, one to where that value is stored.

use std::alloc::{Layout, alloc_zeroed, dealloc};

use tb_tensor::{DType, Tensor, TensorData};

use super::signature::{Param, Signature};

/// The allocated pointer MLIR's lowering of `memref.get_global` puts in a descriptor: the
/// buffer is a global, never freed.
const NOT_OWNED: u64 = 0xdead_beef;

/// Zeroed bytes at a 64-byte alignment (a cache line; enough for any vector access), at
/// least one byte so that every buffer has its own address.
struct AlignedBytes {
    pointer: *mut u8,
    layout: Layout,
}

impl AlignedBytes {
    fn zeroed(len: usize) -> AlignedBytes {
        let layout = Layout::from_size_align(len.max(1), 64).expect("buffer size fits");
        // SAFETY: the layout has a non-zero size.
        let pointer = unsafe { alloc_zeroed(layout) };
        if pointer.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBytes { pointer, layout }
    }

    fn from_bytes(bytes: &[u8]) -> AlignedBytes {
        let buffer = AlignedBytes::zeroed(bytes.len());
        // SAFETY: the buffer holds at least `bytes.len()` bytes and does not overlap `bytes`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buffer.pointer, bytes.len()) };
        buffer
    }

    fn contains(&self, address: u64) -> bool {
        let start = self.pointer as u64;
        (start..start + self.layout.size() as u64).contains(&address)
    }
}

impl Drop for AlignedBytes {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { dealloc(self.pointer, self.layout) };
    }
}

unsafe extern "C" {
    /// The C library's `free`: MLIR's lowering of `memref.alloc` calls `malloc`.
    fn free(pointer: *mut std::ffi::c_void);
}

/// Whether a tensor of `given` can be passed where MLIR expects `expected`: the same bits
/// (integers of either signedness share MLIR's signless types).
fn same_bits(given: DType, expected: DType) -> bool {
    given == expected
        || (given.is_int()
            && expected.is_int()
            && given.size_in_bytes() == expected.size_in_bytes())
}

/// The elements of `data` as little-endian bytes (bool: one byte, 0 or 1).
fn bytes_of(data: &TensorData) -> Vec<u8> {
    tb_tensor::with_data!(data, v => {
        // SAFETY: every element type is plain data (half floats are `u16`s, bools one
        // byte), so its bytes can be read as they are.
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(&v[..])) }
            .to_vec()
    })
}

/// Elements of `dtype` from their little-endian bytes.
fn data_from_bytes(dtype: DType, bytes: &[u8]) -> TensorData {
    macro_rules! decode {
        ($variant:ident, $t:ty, $n:literal) => {
            TensorData::$variant(
                bytes
                    .chunks_exact($n)
                    .map(|c| <$t>::from_le_bytes(c.try_into().expect("chunk size")))
                    .collect(),
            )
        };
    }
    match dtype {
        DType::F32 => decode!(F32, f32, 4),
        DType::F64 => decode!(F64, f64, 8),
        DType::F16 => decode!(F16, half::f16, 2),
        DType::BF16 => decode!(BF16, half::bf16, 2),
        DType::I8 => decode!(I8, i8, 1),
        DType::I16 => decode!(I16, i16, 2),
        DType::I32 => decode!(I32, i32, 4),
        DType::I64 => decode!(I64, i64, 8),
        DType::U8 => TensorData::U8(bytes.to_vec()),
        DType::U16 => decode!(U16, u16, 2),
        DType::U32 => decode!(U32, u32, 4),
        DType::U64 => decode!(U64, u64, 8),
        DType::Bool => TensorData::Bool(bytes.iter().map(|&b| b & 1 != 0).collect()),
    }
}

/// Row-major strides of `shape`, in elements.
fn row_major_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1].max(1);
    }
    strides
}

/// Size and alignment in bytes of a parameter's value in an LLVM struct.
fn field_layout(param: &Param) -> (usize, usize) {
    match param {
        Param::MemRef { sizes, .. } => (8 * (3 + 2 * sizes.len()), 8),
        Param::Scalar(dtype) => (dtype.size_in_bytes(), dtype.size_in_bytes()),
    }
}

/// The byte offset of each result in the struct that packs `results`, and its size.
fn struct_layout(results: &[Param]) -> (Vec<usize>, usize) {
    let mut offsets = Vec::with_capacity(results.len());
    let (mut end, mut align) = (0usize, 1usize);
    for result in results {
        let (size, field_align) = field_layout(result);
        end = end.next_multiple_of(field_align);
        offsets.push(end);
        end += size;
        align = align.max(field_align);
    }
    (offsets, end.next_multiple_of(align))
}

/// Calls `invoke` with the packed arguments of `signature` for `args` and returns the
/// results as tensors (a scalar result as a rank-0 tensor). Buffers the callee allocated
/// for its results are freed once each; a result that is (a view of) an argument or a
/// global is not freed.
///
/// # Safety
///
/// `invoke` must call the packed wrapper of a function with exactly this signature: it
/// reads and writes through the pointers it is given as that function does.
pub(crate) unsafe fn call(
    signature: &Signature,
    args: &[Tensor],
    invoke: impl FnOnce(&mut [*mut ()]) -> Result<(), String>,
) -> Result<Vec<Tensor>, String> {
    if args.len() != signature.arguments.len() {
        return Err(format!(
            "{} arguments given, the function takes {}",
            args.len(),
            signature.arguments.len()
        ));
    }
    // Arguments are copied, so the callee cannot write into the caller's tensors.
    let mut storage: Vec<AlignedBytes> = Vec::with_capacity(args.len());
    let mut descriptors: Vec<Vec<u64>> = Vec::new();
    for (i, (arg, param)) in args.iter().zip(&signature.arguments).enumerate() {
        if !same_bits(arg.dtype(), param.element()) {
            return Err(format!(
                "argument #{i} holds {}, the function takes {}",
                arg.dtype(),
                param.element()
            ));
        }
        let bytes = bytes_of(arg.data());
        match param {
            Param::MemRef { sizes, strides, .. } => {
                let shape = arg.shape();
                let fits = shape.len() == sizes.len()
                    && sizes
                        .iter()
                        .zip(shape)
                        .all(|(s, &n)| s.is_none_or(|s| s == n));
                if !fits {
                    return Err(format!(
                        "argument #{i} has shape {shape:?}, the function takes {sizes:?}"
                    ));
                }
                let contiguous = row_major_strides(shape);
                let layout_fits = strides
                    .iter()
                    .zip(&contiguous)
                    .zip(shape)
                    .all(|((s, &c), &n)| n <= 1 || s.is_none_or(|s| s == c));
                if !layout_fits {
                    return Err(format!(
                        "argument #{i}: the function's memref layout (strides {strides:?}) is \
                         not row-major; only contiguous arguments are passed"
                    ));
                }
                let buffer = AlignedBytes::from_bytes(&bytes);
                let address = buffer.pointer as u64;
                storage.push(buffer);
                let mut words = vec![address, address, 0];
                words.extend(shape.iter().map(|&n| n as u64));
                words.extend(contiguous.iter().map(|&s| s as u64));
                descriptors.push(words);
            }
            Param::Scalar(_) => {
                if arg.numel() != 1 {
                    return Err(format!(
                        "argument #{i} is a scalar, given a tensor of shape {:?}",
                        arg.shape()
                    ));
                }
                storage.push(AlignedBytes::from_bytes(&bytes));
            }
        }
    }
    let mut descriptor_pointers: Vec<*mut u64> =
        descriptors.iter_mut().map(|d| d.as_mut_ptr()).collect();

    // Where the results go: one scalar result is the wrapper's return value; otherwise
    // the results are a struct written through a pointer passed first.
    let (offsets, results_size) = struct_layout(&signature.results);
    let results_area = AlignedBytes::zeroed(results_size);
    let mut results_pointer = results_area.pointer;
    let returned_by_value = matches!(signature.results.as_slice(), [Param::Scalar(_)]);

    let mut packed: Vec<*mut ()> = Vec::with_capacity(args.len() + 1);
    if !signature.results.is_empty() && !returned_by_value {
        packed.push(&mut results_pointer as *mut *mut u8 as *mut ());
    }
    let mut next_descriptor = 0;
    for (param, buffer) in signature.arguments.iter().zip(&storage) {
        match param {
            Param::MemRef { .. } => {
                packed.push(&mut descriptor_pointers[next_descriptor] as *mut *mut u64 as *mut ());
                next_descriptor += 1;
            }
            Param::Scalar(_) => packed.push(buffer.pointer as *mut ()),
        }
    }
    if returned_by_value {
        packed.push(results_area.pointer as *mut ());
    }
    invoke(&mut packed)?;

    let mut results = Vec::with_capacity(signature.results.len());
    let mut owned: Vec<u64> = Vec::new();
    for (param, &offset) in signature.results.iter().zip(&offsets) {
        // SAFETY: the callee wrote every result into the struct laid out by
        // `struct_layout`, as the C interface does.
        let field = unsafe { results_area.pointer.add(offset) };
        match param {
            Param::Scalar(dtype) => {
                // SAFETY: the field holds one value of `dtype`.
                let bytes = unsafe { std::slice::from_raw_parts(field, dtype.size_in_bytes()) };
                results.push(Tensor::new(vec![], data_from_bytes(*dtype, bytes)).map_err(|e| e.0)?);
            }
            Param::MemRef { element, sizes, .. } => {
                let rank = sizes.len();
                // SAFETY: the field is a descriptor of `3 + 2 * rank` words, 8-aligned.
                let words =
                    unsafe { std::slice::from_raw_parts(field as *const u64, 3 + 2 * rank) };
                let tensor = read_memref(*element, words)?;
                results.push(tensor);
                if words[0] != 0
                    && words[0] != NOT_OWNED
                    && !storage.iter().any(|b| b.contains(words[0]))
                    && !owned.contains(&words[0])
                {
                    owned.push(words[0]);
                }
            }
        }
    }
    for pointer in owned {
        // SAFETY: an allocated pointer the callee returned that is no argument's and no
        // global's came from `malloc`, and results sharing it are freed once.
        unsafe { free(pointer as *mut std::ffi::c_void) };
    }
    Ok(results)
}

/// The elements the strided descriptor `words` addresses, row-major.
fn read_memref(element: DType, words: &[u64]) -> Result<Tensor, String> {
    let rank = (words.len() - 3) / 2;
    let aligned = words[1] as *const u8;
    let offset = words[2] as i64;
    let shape: Vec<i64> = words[3..3 + rank].iter().map(|&w| w as i64).collect();
    let strides: Vec<i64> = words[3 + rank..].iter().map(|&w| w as i64).collect();
    if shape.iter().any(|&n| n < 0) {
        return Err(format!("the callee returned a memref of sizes {shape:?}"));
    }
    let count: i64 = shape.iter().product();
    let size = element.size_in_bytes();
    let mut bytes = Vec::with_capacity(count as usize * size);
    let mut index = vec![0i64; rank];
    for _ in 0..count {
        let position = offset + index.iter().zip(&strides).map(|(i, s)| i * s).sum::<i64>();
        // SAFETY: the callee returned this descriptor; its offset and strides address
        // elements inside the buffer it describes.
        let element_bytes = unsafe {
            std::slice::from_raw_parts(aligned.offset((position * size as i64) as isize), size)
        };
        bytes.extend_from_slice(element_bytes);
        // The next index in row-major order.
        for d in (0..rank).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Tensor::new(shape, data_from_bytes(element, &bytes)).map_err(|e| e.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_packed_at_their_natural_alignment() {
        let memref = |rank| Param::MemRef {
            element: DType::F32,
            sizes: vec![Some(2); rank],
            strides: vec![None; rank],
        };
        // {i8, desc(rank 1) at 8, f32 at 48, i64 at 56}: 64 bytes.
        let results = [
            Param::Scalar(DType::I8),
            memref(1),
            Param::Scalar(DType::F32),
            Param::Scalar(DType::I64),
        ];
        assert_eq!(struct_layout(&results), (vec![0, 8, 48, 56], 64));
        // {f32, i16}: 8 bytes, rounded to the struct's 4-byte alignment.
        let results = [Param::Scalar(DType::F32), Param::Scalar(DType::I16)];
        assert_eq!(struct_layout(&results), (vec![0, 4], 8));
    }

    #[test]
    fn signless_integers_take_either_signedness() {
        assert!(same_bits(DType::U8, DType::I8));
        assert!(same_bits(DType::I64, DType::U64));
        assert!(!same_bits(DType::I32, DType::F32));
        assert!(!same_bits(DType::Bool, DType::I8));
        assert!(!same_bits(DType::F16, DType::BF16));
    }

    #[test]
    fn bytes_round_trip_for_every_element_type() {
        for dtype in DType::ALL {
            let data = TensorData::zeros(dtype, 3);
            assert_eq!(data_from_bytes(dtype, &bytes_of(&data)), data);
        }
        let data = TensorData::Bool(vec![true, false, true]);
        assert_eq!(bytes_of(&data), vec![1, 0, 1]);
        assert_eq!(data_from_bytes(DType::Bool, &[1, 0, 1]), data);
    }
}
