//! Buffers: strided views of shared, mutable storage, as `memref` values are.
//!
//! New buffers are filled with NaN (floats) or a recognisable bit pattern (integers), not
//! zero: a lowering that reads memory it never wrote then shows up as a wrong result instead
//! of passing by luck.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::value::{Scalar, read_element, write_element};
use crate::tensor::{DType, Tensor, TensorData};

#[derive(Debug)]
struct Storage {
    data: RefCell<TensorData>,
    freed: Cell<bool>,
}

/// A strided view: element `[i0, i1, ...]` lives at `offset + sum(ik * strides[k])`.
#[derive(Clone, Debug)]
pub struct Buffer {
    storage: Rc<Storage>,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub offset: i64,
}

/// Row-major strides of `shape`.
pub fn contiguous_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1].max(1);
    }
    strides
}

impl Buffer {
    /// A fresh buffer of `shape`, filled with the poison pattern.
    pub fn alloc(dtype: DType, shape: Vec<i64>) -> Buffer {
        let n = shape.iter().product::<i64>().max(0) as usize;
        let mut data = TensorData::zeros(dtype, n);
        let fill = if dtype.is_float() {
            Scalar::Float(f64::NAN)
        } else {
            Scalar::Int(0x5a5a_5a5a_5a5a_5a5a)
        };
        if dtype != DType::Bool {
            for i in 0..n {
                write_element(&mut data, i, fill);
            }
        }
        Buffer::from_data(shape, data)
    }

    /// A buffer holding a copy of `tensor`.
    pub fn from_tensor(tensor: &Tensor) -> Buffer {
        Buffer::from_data(tensor.shape().to_vec(), tensor.data().clone())
    }

    fn from_data(shape: Vec<i64>, data: TensorData) -> Buffer {
        Buffer {
            strides: contiguous_strides(&shape),
            shape,
            offset: 0,
            storage: Rc::new(Storage {
                data: RefCell::new(data),
                freed: Cell::new(false),
            }),
        }
    }

    /// Another view of the same storage.
    pub fn view(&self, shape: Vec<i64>, strides: Vec<i64>, offset: i64) -> Buffer {
        Buffer {
            storage: self.storage.clone(),
            shape,
            strides,
            offset,
        }
    }

    pub fn dtype(&self) -> DType {
        self.storage.data.borrow().dtype()
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Whether both views share storage.
    pub fn aliases(&self, other: &Buffer) -> bool {
        Rc::ptr_eq(&self.storage, &other.storage)
    }

    /// An identity of the storage, the same for every view of it while it lives.
    pub fn storage_id(&self) -> usize {
        Rc::as_ptr(&self.storage) as usize
    }

    /// An error if the storage was freed.
    pub fn check_live(&self) -> Result<(), String> {
        if self.storage.freed.get() {
            return Err("access to a freed buffer".into());
        }
        Ok(())
    }

    pub fn free(&self) -> Result<(), String> {
        if self.storage.freed.replace(true) {
            return Err("buffer freed twice".into());
        }
        Ok(())
    }

    /// The storage position of `indices`, checked against the view's shape.
    pub fn position(&self, indices: &[i64]) -> Result<usize, String> {
        if self.storage.freed.get() {
            return Err("access to a freed buffer".into());
        }
        if indices.len() != self.shape.len() {
            return Err(format!(
                "{} indices for a rank-{} buffer",
                indices.len(),
                self.shape.len()
            ));
        }
        let mut at = self.offset;
        for (k, (&i, &extent)) in indices.iter().zip(&self.shape).enumerate() {
            if i < 0 || i >= extent {
                return Err(format!(
                    "index {i} out of bounds for dimension {k} of size {extent} (indices {indices:?}, shape {:?})",
                    self.shape
                ));
            }
            at += i * self.strides[k];
        }
        let len = self.storage.data.borrow().len();
        if at < 0 || at as usize >= len {
            return Err(format!(
                "view position {at} lies outside its storage of {len} elements"
            ));
        }
        Ok(at as usize)
    }

    pub fn load(&self, indices: &[i64]) -> Result<Scalar, String> {
        let at = self.position(indices)?;
        Ok(read_element(&self.storage.data.borrow(), at))
    }

    pub fn store(&self, indices: &[i64], value: Scalar) -> Result<(), String> {
        let at = self.position(indices)?;
        write_element(&mut self.storage.data.borrow_mut(), at, value);
        Ok(())
    }

    /// The elements of the view, in row-major order, as a new tensor.
    pub fn to_tensor(&self) -> Result<Tensor, String> {
        let n = self.shape.iter().product::<i64>().max(0) as usize;
        let mut out = TensorData::zeros(self.dtype(), n);
        let mut index = vec![0i64; self.rank()];
        for flat in 0..n {
            let v = self.load(&index)?;
            write_element(&mut out, flat, v);
            increment(&mut index, &self.shape);
        }
        Tensor::new(self.shape.clone(), out).map_err(|e| e.0)
    }

    /// Copies `source` (same shape) into this view.
    pub fn copy_from(&self, source: &Buffer) -> Result<(), String> {
        if source.shape != self.shape {
            return Err(format!(
                "copy between shapes {:?} and {:?}",
                source.shape, self.shape
            ));
        }
        // Read everything first: the two views may overlap.
        let values = source.to_tensor()?;
        self.write_tensor(&values)
    }

    /// Writes `tensor` (same number of elements, row-major) into this view.
    pub fn write_tensor(&self, tensor: &Tensor) -> Result<(), String> {
        let mut index = vec![0i64; self.rank()];
        for flat in 0..tensor.numel() {
            self.store(&index, read_element(tensor.data(), flat))?;
            increment(&mut index, &self.shape);
        }
        Ok(())
    }
}

/// Advances a row-major multi-index within `shape`.
pub fn increment(index: &mut [i64], shape: &[i64]) {
    for k in (0..index.len()).rev() {
        index[k] += 1;
        if index[k] < shape[k] {
            return;
        }
        index[k] = 0;
    }
}
