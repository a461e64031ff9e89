//! Running a library emitted by `tb-translate --emit=shared-lib` directly, as deployed: its
//! manifest (`lib.json`, next to `lib.so`) names the entry point and the name, element type
//! and shape of every input and output, so `tb-run lib.so --input x.npy` needs no model.
//!
//! The library is loaded with `dlopen` and its entry point called with one pointer per
//! buffer. Only entry points whose parameters are all buffers can be called this way (every
//! ONNX model's are: a 0-d tensor is a buffer of one element); a scalar input is refused.

use std::ffi::{CStr, CString, c_void};
use std::path::{Path, PathBuf};

use tb_interpreter::{Tensor, parse_npy, to_npy_bytes};

use crate::json::Json;

/// One input or output as the manifest describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    /// numpy's name of the element type (`float32`).
    pub dtype: String,
    pub shape: Vec<i64>,
}

impl Param {
    fn from_json(value: &Json, what: &str) -> Result<Param, String> {
        let field = |key: &str| {
            value
                .get(key)
                .ok_or_else(|| format!("the manifest's {what} has no \"{key}\""))
        };
        let name = field("name")?.as_str().unwrap_or_default().to_owned();
        let dtype = field("dtype")?.as_str().unwrap_or_default().to_owned();
        let shape = match field("shape")? {
            Json::Array(dims) => dims
                .iter()
                .map(|d| d.as_i64())
                .collect::<Option<Vec<i64>>>()
                .ok_or_else(|| format!("{what} '{name}' has a shape that is not integers"))?,
            _ => {
                return Err(format!(
                    "{what} '{name}' is a scalar, which tb-run cannot pass to a library \
                     (only buffers)"
                ));
            }
        };
        Ok(Param { name, dtype, shape })
    }

    fn elements(&self) -> Option<usize> {
        self.shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
    }

    /// The `.npy` descriptor of this element type.
    fn descr(&self) -> Result<&'static str, String> {
        Ok(match self.dtype.as_str() {
            "bool" => "|b1",
            "int8" => "|i1",
            "uint8" => "|u1",
            "int16" => "<i2",
            "uint16" => "<u2",
            "int32" => "<i4",
            "uint32" => "<u4",
            "int64" => "<i8",
            "uint64" => "<u8",
            "float16" => "<f2",
            "bfloat16" => "<V2",
            "float32" => "<f4",
            "float64" => "<f8",
            other => return Err(format!("'{}' has element type '{other}'", self.name)),
        })
    }

    fn element_bytes(&self) -> Result<usize, String> {
        self.descr()?[2..]
            .parse()
            .map_err(|_| format!("'{}': bad element size", self.name))
    }
}

/// The largest number of parameters an entry point may have to be called from here.
pub const MAX_PARAMS: usize = 16;

/// A loaded library and the entry point to call.
pub struct Artifact {
    handle: *mut c_void,
    entry: *mut c_void,
    pub function: String,
    pub inputs: Vec<Param>,
    pub outputs: Vec<Param>,
    /// The message of each non-zero status code the entry point returns (code `k` at
    /// `k - 1`).
    pub statuses: Vec<String>,
}

impl Drop for Artifact {
    fn drop(&mut self) {
        // SAFETY: the handle came from dlopen and nothing of the library is used after.
        unsafe { libc::dlclose(self.handle) };
    }
}

/// Whether `path` names a shared library (by its extension).
pub fn is_library(path: &str) -> bool {
    Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("so"))
}

fn dl_error() -> String {
    // SAFETY: dlerror returns null or a C string valid until the next dl call.
    let message = unsafe { libc::dlerror() };
    if message.is_null() {
        "unknown error".to_owned()
    } else {
        unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned()
    }
}

/// Loads `library` and the entry point `function` (default: its only one) its manifest
/// (`library` with the extension `.json`) describes.
pub fn load(library: &Path, function: Option<&str>) -> Result<Artifact, String> {
    let manifest_path: PathBuf = library.with_extension("json");
    let text = std::fs::read_to_string(&manifest_path).map_err(|e| {
        format!(
            "cannot read the manifest '{}' of '{}': {e} (tb-translate --emit=shared-lib writes it)",
            manifest_path.display(),
            library.display()
        )
    })?;
    let manifest = crate::json::parse(&text)
        .map_err(|e| format!("'{}' is not JSON: {e}", manifest_path.display()))?;
    if manifest.get("format").and_then(Json::as_str) != Some("tensorbind-library")
        || manifest.get("version").and_then(Json::as_i64)
            != Some(i64::from(tb_backends::cpu::manifest::MANIFEST_VERSION))
    {
        return Err(format!(
            "'{}' is not a TensorBind library manifest of version {} (recompile the library with this tb-translate)",
            manifest_path.display(),
            tb_backends::cpu::manifest::MANIFEST_VERSION
        ));
    }
    let Some(Json::Array(functions)) = manifest.get("functions") else {
        return Err(format!("'{}' lists no functions", manifest_path.display()));
    };
    let name_of = |f: &Json| {
        f.get("name")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let chosen = match function {
        Some(wanted) => functions.iter().find(|f| name_of(f) == wanted),
        None if functions.len() == 1 => functions.first(),
        None => {
            let names: Vec<String> = functions
                .iter()
                .map(|f| format!("@{}", name_of(f)))
                .collect();
            return Err(format!(
                "the library has several functions ({}); choose one with --function",
                names.join(", ")
            ));
        }
    }
    .ok_or_else(|| format!("the library has no function @{}", function.unwrap_or("")))?;
    let params = |key: &str, what: &str| -> Result<Vec<Param>, String> {
        match chosen.get(key) {
            Some(Json::Array(list)) => list.iter().map(|p| Param::from_json(p, what)).collect(),
            _ => Err(format!("the manifest's function has no \"{key}\" list")),
        }
    };
    let inputs = params("inputs", "input")?;
    let outputs = params("outputs", "output")?;
    let statuses = match chosen.get("statuses") {
        Some(Json::Array(list)) => list
            .iter()
            .map(|s| {
                s.get("message")
                    .and_then(Json::as_str)
                    .unwrap_or("")
                    .to_owned()
            })
            .collect(),
        _ => return Err("the manifest's function has no \"statuses\" list".to_owned()),
    };
    if inputs.len() + outputs.len() > MAX_PARAMS {
        return Err(format!(
            "@{} has {} parameters; tb-run calls libraries with at most {MAX_PARAMS}",
            name_of(chosen),
            inputs.len() + outputs.len()
        ));
    }
    let symbol = chosen
        .get("symbol")
        .and_then(Json::as_str)
        .ok_or("the manifest's function has no \"symbol\"")?;
    // A path without a slash would be looked up on the library path, not here.
    let absolute = std::path::absolute(library)
        .map_err(|e| format!("cannot resolve '{}': {e}", library.display()))?;
    let c_path = CString::new(absolute.as_os_str().as_encoded_bytes())
        .map_err(|_| format!("'{}' contains a NUL byte", library.display()))?;
    // SAFETY: loading a library runs its initializers; ours only start nothing.
    let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(format!(
            "cannot load '{}': {}",
            library.display(),
            dl_error()
        ));
    }
    let c_symbol = CString::new(symbol).map_err(|_| "a symbol contains a NUL byte".to_owned())?;
    // SAFETY: handle is a live library handle.
    let entry = unsafe { libc::dlsym(handle, c_symbol.as_ptr()) };
    if entry.is_null() {
        let why = dl_error();
        unsafe { libc::dlclose(handle) };
        return Err(format!(
            "'{}' has no symbol {symbol}: {why}",
            library.display()
        ));
    }
    Ok(Artifact {
        handle,
        entry,
        function: name_of(chosen),
        inputs,
        outputs,
        statuses,
    })
}

/// The raw data of `tensor`, after checking its element type and shape against `param`.
fn input_bytes(param: &Param, tensor: &Tensor) -> Result<Vec<u8>, String> {
    if tensor.shape() != param.shape.as_slice() {
        return Err(format!(
            "input '{}' has shape {:?}, the library takes {:?}",
            param.name,
            tensor.shape(),
            param.shape
        ));
    }
    let npy = to_npy_bytes(tensor);
    let data_len = tensor.numel() * tensor.dtype().size_in_bytes();
    let header = String::from_utf8_lossy(&npy[..npy.len() - data_len]);
    let descr = param.descr()?;
    if !header.contains(&format!("'descr': '{descr}'")) {
        return Err(format!(
            "input '{}' has element type {:?}, the library takes {}",
            param.name,
            tensor.dtype(),
            param.dtype
        ));
    }
    Ok(npy[npy.len() - data_len..].to_vec())
}

/// A tensor of `param`'s element type and shape holding `data`.
fn output_tensor(param: &Param, data: &[u8]) -> Result<Tensor, String> {
    let shape = match param.shape.as_slice() {
        [] => "()".to_owned(),
        [d] => format!("({d},)"),
        dims => format!(
            "({})",
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        param.descr()?
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let length = u16::try_from(header.len()).map_err(|_| "header too long".to_owned())?;
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    npy.extend_from_slice(&length.to_le_bytes());
    npy.extend_from_slice(header.as_bytes());
    npy.extend_from_slice(data);
    parse_npy(&npy).map_err(|e| format!("output '{}': {e}", param.name))
}

type P = *mut c_void;

impl Artifact {
    /// Calls the entry point on `inputs` (in order) and returns its outputs.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
        if inputs.len() != self.inputs.len() {
            return Err(format!(
                "@{} takes {} inputs, {} were given",
                self.function,
                self.inputs.len(),
                inputs.len()
            ));
        }
        let mut buffers: Vec<Vec<u8>> = Vec::new();
        for (param, tensor) in self.inputs.iter().zip(inputs) {
            buffers.push(input_bytes(param, tensor)?);
        }
        for param in &self.outputs {
            let bytes = param
                .elements()
                .and_then(|n| n.checked_mul(param.element_bytes().ok()?))
                .ok_or_else(|| format!("output '{}' is too large", param.name))?;
            buffers.push(vec![0u8; bytes]);
        }
        let pointers: Vec<P> = buffers
            .iter_mut()
            .map(|b| b.as_mut_ptr().cast::<c_void>())
            .collect();
        // SAFETY: the manifest describes the entry point as taking one pointer per
        // parameter, each to a buffer of the size allocated above.
        let code = unsafe { call(self.entry, &pointers) };
        if code != 0 {
            let message = usize::try_from(code - 1)
                .ok()
                .and_then(|i| self.statuses.get(i))
                .map_or("a status code the manifest does not list", String::as_str);
            return Err(format!("@{}: {message} (status {code})", self.function));
        }
        self.outputs
            .iter()
            .zip(&buffers[self.inputs.len()..])
            .map(|(param, data)| output_tensor(param, data))
            .collect()
    }
}

/// Calls `entry` with `args` as its pointer arguments.
///
/// # Safety
/// `entry` must be a C function taking exactly `args.len()` pointers and returning an
/// `int32_t` status.
unsafe fn call(entry: P, args: &[P]) -> i32 {
    macro_rules! call_with {
        ($($i:literal)*) => {{
            let f: unsafe extern "C" fn($(call_with!(@ty $i)),*) -> i32 =
                unsafe { std::mem::transmute(entry) };
            unsafe { f($(args[$i]),*) }
        }};
        (@ty $i:literal) => { P };
    }
    match args.len() {
        0 => call_with!(),
        1 => call_with!(0),
        2 => call_with!(0 1),
        3 => call_with!(0 1 2),
        4 => call_with!(0 1 2 3),
        5 => call_with!(0 1 2 3 4),
        6 => call_with!(0 1 2 3 4 5),
        7 => call_with!(0 1 2 3 4 5 6),
        8 => call_with!(0 1 2 3 4 5 6 7),
        9 => call_with!(0 1 2 3 4 5 6 7 8),
        10 => call_with!(0 1 2 3 4 5 6 7 8 9),
        11 => call_with!(0 1 2 3 4 5 6 7 8 9 10),
        12 => call_with!(0 1 2 3 4 5 6 7 8 9 10 11),
        13 => call_with!(0 1 2 3 4 5 6 7 8 9 10 11 12),
        14 => call_with!(0 1 2 3 4 5 6 7 8 9 10 11 12 13),
        15 => call_with!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14),
        16 => call_with!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15),
        n => unreachable!("{n} parameters: load refuses more than {MAX_PARAMS}"),
    }
}
