//! Reading and writing NumPy `.npy` files (format versions 1.0, 2.0 and 3.0).
//!
//! Supported dtypes: `b1`, `i1`..`i8`, `u1`..`u8`, `f2`, `f4`, `f8`, little- or big-endian,
//! C order only (a Fortran-order file is rejected with a clear error rather than silently
//! transposed).
//!
//! **bfloat16**: NumPy has no bfloat16; `ml_dtypes.bfloat16` arrays are saved by `np.save`
//! with the descriptor `'<V2'` (two opaque bytes). We follow that convention both ways: a
//! BF16 tensor is written as `'<V2'` holding the little-endian bf16 bits, and a 2-byte void
//! descriptor (`<V2`, `|V2`) is read as BF16. In Python, `np.load(f).view(ml_dtypes.bfloat16)`
//! recovers the values.
//!
//! Writing produces exactly the bytes `np.save` does (version 1.0 header padded with spaces to
//! a multiple of 64 bytes, including NumPy's spare room for growing the first axis), falling
//! back to version 2.0 for headers longer than 65535 bytes.

use std::fmt;
use std::io::Read;
use std::path::Path;

use half::{bf16, f16};

use crate::tensor::{DType, Tensor, TensorData, checked_numel};

const MAGIC: &[u8] = b"\x93NUMPY";
const ALIGN: usize = 64;
/// NumPy leaves room in the header for the first dimension to grow to this many digits.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// A malformed, unsupported or unreadable `.npy` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyError(pub String);

impl fmt::Display for NpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "npy: {}", self.0)
    }
}

impl std::error::Error for NpyError {}

fn bad<T>(msg: impl Into<String>) -> Result<T, NpyError> {
    Err(NpyError(msg.into()))
}

/// Reads a `.npy` file. Reads no more than its header says the file holds (plus one byte
/// to notice trailing data), so a device or an endless stream is refused, not exhausted.
pub fn read_npy(path: impl AsRef<Path>) -> Result<Tensor, NpyError> {
    let path = path.as_ref();
    let located = |e: NpyError| NpyError(format!("{}: {}", path.display(), e.0));
    let io_error = |e: std::io::Error| NpyError(format!("cannot read {}: {e}", path.display()));
    let mut file = std::fs::File::open(path).map_err(io_error)?;
    let mut bytes = Vec::new();
    let mut read_up_to = |bytes: &mut Vec<u8>, len: usize| {
        let missing = len.saturating_sub(bytes.len()) as u64;
        (&mut file)
            .take(missing)
            .read_to_end(bytes)
            .map_err(io_error)
    };
    read_up_to(&mut bytes, PREFIX_MAX)?;
    let header_end = header_end(&bytes).map_err(located)?;
    read_up_to(&mut bytes, header_end)?;
    let data_len = layout(&bytes).map_err(located)?.data_len;
    read_up_to(
        &mut bytes,
        header_end.saturating_add(data_len).saturating_add(1),
    )?;
    parse_npy(&bytes).map_err(located)
}

/// Writes a `.npy` file.
pub fn write_npy(path: impl AsRef<Path>, t: &Tensor) -> Result<(), NpyError> {
    // All or nothing, and a device, FIFO or symlink given as the path is written through.
    tb_support::output_file::write_output(path, &to_npy_bytes(t))
        .map_err(|e| NpyError(e.to_string()))
}

/// The longest fixed prefix: magic, version and a 4-byte header length.
const PREFIX_MAX: usize = 12;

/// Where the data of a `.npy` file starts and what it holds.
struct Layout {
    header: Header,
    dtype: DType,
    big_endian: bool,
    data_start: usize,
    data_len: usize,
}

/// The offset just past the header, from the fixed prefix (magic, version, header length).
fn header_end(bytes: &[u8]) -> Result<usize, NpyError> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return bad("not a .npy file (missing the \\x93NUMPY magic)");
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let len_size = match major {
        1 => 2,
        2 | 3 => 4,
        _ => return bad(format!("unsupported format version {major}.{minor}")),
    };
    if bytes.len() < 8 + len_size {
        return bad("truncated header length");
    }
    let header_len = if len_size == 2 {
        u16::from_le_bytes([bytes[8], bytes[9]]) as usize
    } else {
        u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize
    };
    Ok(8 + len_size + header_len)
}

/// The header of a `.npy` file and the size of the data it announces.
fn layout(bytes: &[u8]) -> Result<Layout, NpyError> {
    let end = header_end(bytes)?;
    let start = if bytes[6] == 1 { 10 } else { 12 };
    let Some(header) = bytes.get(start..end) else {
        return bad(format!(
            "header claims {} bytes but the file has {}",
            end - start,
            bytes.len() - start
        ));
    };
    let header: String = if bytes[6] == 3 {
        std::str::from_utf8(header)
            .map_err(|_| NpyError("header is not valid UTF-8".into()))?
            .to_string()
    } else {
        header.iter().map(|&b| b as char).collect() // latin-1
    };
    let header = parse_header(&header)?;
    if header.fortran_order {
        return bad(
            "Fortran-order arrays are not supported (save a C-contiguous array, e.g. np.ascontiguousarray)",
        );
    }
    let (dtype, big_endian) = parse_descr(&header.descr)?;
    let n = checked_numel(&header.shape).map_err(|e| NpyError(e.0))?;
    let data_len = n
        .checked_mul(dtype.size_in_bytes())
        .ok_or_else(|| NpyError(format!("shape {:?} is too large", header.shape)))?;
    Ok(Layout {
        header,
        dtype,
        big_endian,
        data_start: end,
        data_len,
    })
}

/// Parses the bytes of a `.npy` file.
pub fn parse_npy(bytes: &[u8]) -> Result<Tensor, NpyError> {
    let layout = layout(bytes)?;
    let body = &bytes[layout.data_start..];
    if body.len() != layout.data_len {
        return bad(format!(
            "shape {:?} of {} needs {} data bytes but the file has {}",
            layout.header.shape,
            layout.header.descr,
            layout.data_len,
            body.len()
        ));
    }
    let data = decode(layout.dtype, layout.big_endian, body);
    Tensor::new(layout.header.shape, data).map_err(|e| NpyError(e.0))
}

/// The bytes of a `.npy` file holding `t` (little-endian, C order).
pub fn to_npy_bytes(t: &Tensor) -> Vec<u8> {
    let descr = match t.dtype() {
        DType::Bool => "|b1",
        DType::I8 => "|i1",
        DType::U8 => "|u1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::U16 => "<u2",
        DType::U32 => "<u4",
        DType::U64 => "<u8",
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::BF16 => "<V2",
    };
    let shape = match t.shape() {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        s => format!(
            "({})",
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    if let Some(first) = t.shape().first() {
        header.extend(std::iter::repeat_n(
            ' ',
            GROWTH_AXIS_MAX_DIGITS.saturating_sub(first.to_string().len()),
        ));
    }
    // Pad with spaces so that magic + version + length + header + '\n' is 64-byte aligned.
    let mut out = Vec::with_capacity(header.len() + 80 + t.numel() * t.dtype().size_in_bytes());
    let v1 = {
        let total = MAGIC.len() + 4 + header.len() + 1;
        header.len() + 1 + (ALIGN - total % ALIGN) % ALIGN <= u16::MAX as usize
    };
    let prefix = MAGIC.len() + 2 + if v1 { 2 } else { 4 };
    let pad = (ALIGN - (prefix + header.len() + 1) % ALIGN) % ALIGN;
    header.extend(std::iter::repeat_n(' ', pad));
    header.push('\n');
    out.extend_from_slice(MAGIC);
    if v1 {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&[2, 0]);
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    encode(t.data(), &mut out);
    out
}

struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<i64>,
}

/// Parses the Python dict literal of the header, e.g.
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
fn parse_header(s: &str) -> Result<Header, NpyError> {
    let mut p = Lexer {
        s: s.as_bytes(),
        i: 0,
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    p.expect(b'{')?;
    loop {
        p.ws();
        if p.eat(b'}') {
            break;
        }
        let key = p.string()?;
        p.ws();
        p.expect(b':')?;
        p.ws();
        match key.as_str() {
            "descr" => {
                if p.peek() == Some(b'[') {
                    return bad("structured (record) dtypes are not supported");
                }
                descr = Some(p.string()?);
            }
            "fortran_order" => fortran = Some(p.boolean()?),
            "shape" => shape = Some(p.tuple()?),
            other => return bad(format!("unexpected header key '{other}'")),
        }
        p.ws();
        if !p.eat(b',') {
            p.ws();
            p.expect(b'}')?;
            break;
        }
    }
    let missing = |k: &str| NpyError(format!("header lacks '{k}'"));
    Ok(Header {
        descr: descr.ok_or_else(|| missing("descr"))?,
        fortran_order: fortran.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.i += 1;
        }
        hit
    }
    fn expect(&mut self, c: u8) -> Result<(), NpyError> {
        if self.eat(c) {
            return Ok(());
        }
        bad(format!(
            "malformed header: expected '{}' at byte {}",
            c as char, self.i
        ))
    }
    fn string(&mut self) -> Result<String, NpyError> {
        let q = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => {
                return bad(format!(
                    "malformed header: expected a string at byte {}",
                    self.i
                ));
            }
        };
        self.i += 1;
        let start = self.i;
        while self.peek().is_some_and(|c| c != q) {
            self.i += 1;
        }
        if self.peek().is_none() {
            return bad("malformed header: unterminated string");
        }
        let out = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        self.i += 1;
        Ok(out)
    }
    fn boolean(&mut self) -> Result<bool, NpyError> {
        for (word, v) in [(&b"True"[..], true), (&b"False"[..], false)] {
            if self.s[self.i..].starts_with(word) {
                self.i += word.len();
                return Ok(v);
            }
        }
        bad(format!(
            "malformed header: expected True or False at byte {}",
            self.i
        ))
    }
    fn tuple(&mut self) -> Result<Vec<i64>, NpyError> {
        self.expect(b'(')?;
        let mut dims = vec![];
        loop {
            self.ws();
            if self.eat(b')') {
                return Ok(dims);
            }
            let start = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
            let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
            let d: i64 = text.parse().map_err(|_| {
                NpyError(format!("malformed header: bad dimension at byte {start}"))
            })?;
            dims.push(d);
            self.ws();
            if !self.eat(b',') {
                self.ws();
                self.expect(b')')?;
                return Ok(dims);
            }
        }
    }
}

/// Maps a dtype descriptor such as `<f4` to (dtype, big-endian?).
fn parse_descr(d: &str) -> Result<(DType, bool), NpyError> {
    let (order, code) = match d.as_bytes().first() {
        Some(b'<' | b'|' | b'=') => (false, &d[1..]),
        Some(b'>') => (true, &d[1..]),
        _ => (false, d),
    };
    let dtype = match code {
        "b1" | "?" => DType::Bool,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "u1" => DType::U8,
        "u2" => DType::U16,
        "u4" => DType::U32,
        "u8" => DType::U64,
        "f2" | "e" => DType::F16,
        "f4" => DType::F32,
        "f8" => DType::F64,
        "V2" => DType::BF16,
        _ => return bad(format!("unsupported dtype '{d}'")),
    };
    Ok((dtype, order && dtype.size_in_bytes() > 1))
}

/// The elements stored in `b` (little-endian unless `be`), as many as whole elements fit.
pub fn decode(dtype: DType, be: bool, b: &[u8]) -> TensorData {
    macro_rules! words {
        ($n:literal, $conv:expr) => {
            b.chunks_exact($n)
                .map(|c| {
                    let mut a = [0u8; $n];
                    a.copy_from_slice(c);
                    if be {
                        a.reverse();
                    }
                    $conv(a)
                })
                .collect()
        };
    }
    match dtype {
        DType::Bool => TensorData::Bool(b.iter().map(|&x| x != 0).collect()),
        DType::I8 => TensorData::I8(b.iter().map(|&x| x as i8).collect()),
        DType::U8 => TensorData::U8(b.to_vec()),
        DType::I16 => TensorData::I16(words!(2, i16::from_le_bytes)),
        DType::U16 => TensorData::U16(words!(2, u16::from_le_bytes)),
        DType::F16 => TensorData::F16(words!(2, f16::from_le_bytes)),
        DType::BF16 => TensorData::BF16(words!(2, bf16::from_le_bytes)),
        DType::I32 => TensorData::I32(words!(4, i32::from_le_bytes)),
        DType::U32 => TensorData::U32(words!(4, u32::from_le_bytes)),
        DType::F32 => TensorData::F32(words!(4, f32::from_le_bytes)),
        DType::I64 => TensorData::I64(words!(8, i64::from_le_bytes)),
        DType::U64 => TensorData::U64(words!(8, u64::from_le_bytes)),
        DType::F64 => TensorData::F64(words!(8, f64::from_le_bytes)),
    }
}

/// Appends the elements of `data` to `out` in little-endian order.
pub fn encode(data: &TensorData, out: &mut Vec<u8>) {
    match data {
        TensorData::Bool(v) => out.extend(v.iter().map(|&x| x as u8)),
        TensorData::I8(v) => out.extend(v.iter().map(|&x| x as u8)),
        TensorData::U8(v) => out.extend_from_slice(v),
        TensorData::I16(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        TensorData::U16(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        TensorData::F16(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        TensorData::BF16(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        TensorData::I32(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        TensorData::U32(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        TensorData::F32(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        TensorData::I64(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        TensorData::U64(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        TensorData::F64(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/npy")
            .join(name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    const SIGNED: [i64; 6] = [-3, -2, -1, 0, 1, 127];
    const UNSIGNED: [u64; 6] = [0, 1, 2, 3, 100, 255];
    const FLOATS: [f64; 6] = [-1.5, 0.0, 0.25, 3.0, 1e-3, -7.75];

    fn expected(dtype: DType) -> Tensor {
        let t = match dtype {
            DType::Bool => Tensor::vector(vec![true, false, true, false, false, true]),
            d if d.is_signed_int() => Tensor::vector(SIGNED.to_vec()).cast(d),
            d if d.is_int() => Tensor::vector(UNSIGNED.to_vec()).cast(d),
            d => Tensor::vector(FLOATS.to_vec()).cast(d),
        };
        t.reshape(vec![2, 3]).unwrap()
    }

    /// Every dtype: numpy's bytes parse to the expected values, and we write the same bytes.
    #[test]
    fn matches_numpy_for_every_dtype() {
        let files = [
            ("b1", DType::Bool),
            ("i1", DType::I8),
            ("i2", DType::I16),
            ("i4", DType::I32),
            ("i8", DType::I64),
            ("u1", DType::U8),
            ("u2", DType::U16),
            ("u4", DType::U32),
            ("u8", DType::U64),
            ("f2", DType::F16),
            ("f4", DType::F32),
            ("f8", DType::F64),
            ("bf16", DType::BF16),
        ];
        for (name, dtype) in files {
            let bytes = fixture(&format!("{name}.npy"));
            let t = parse_npy(&bytes).unwrap();
            assert_eq!(t, expected(dtype), "{name}");
            assert_eq!(to_npy_bytes(&t), bytes, "{name}: bytes differ from numpy's");
        }
    }

    #[test]
    fn big_endian_and_other_versions() {
        for (name, dtype) in [
            ("be_f4", DType::F32),
            ("be_i8", DType::I64),
            ("be_u2", DType::U16),
        ] {
            assert_eq!(
                parse_npy(&fixture(&format!("{name}.npy"))).unwrap(),
                expected(dtype),
                "{name}"
            );
        }
        for name in ["v2_f4", "v3_f4"] {
            assert_eq!(
                parse_npy(&fixture(&format!("{name}.npy"))).unwrap(),
                expected(DType::F32),
                "{name}"
            );
        }
    }

    #[test]
    fn scalars_vectors_and_empty_arrays() {
        for (name, t) in [
            ("scalar_f8", Tensor::scalar(2.5f64)),
            ("vec_i4", Tensor::vector(vec![0i32, 1, 2, 3, 4])),
            ("empty_f4", Tensor::zeros(DType::F32, vec![0, 3]).unwrap()),
        ] {
            let bytes = fixture(&format!("{name}.npy"));
            assert_eq!(parse_npy(&bytes).unwrap(), t, "{name}");
            assert_eq!(to_npy_bytes(&t), bytes, "{name}");
        }
    }

    #[test]
    fn round_trips_through_a_file() {
        let dir = std::env::temp_dir().join(format!("tb-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for dtype in DType::ALL {
            let t = expected(dtype);
            let p = dir.join(format!("{dtype}.npy"));
            write_npy(&p, &t).unwrap();
            assert_eq!(read_npy(&p).unwrap(), t);
        }
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            read_npy(dir.join("missing.npy"))
                .unwrap_err()
                .0
                .contains("cannot read")
        );
    }

    #[test]
    fn reading_a_device_stops_at_the_missing_magic() {
        assert!(read_npy("/dev/zero").unwrap_err().0.contains("magic"));
    }

    #[test]
    fn reading_an_endless_stream_stops_after_the_announced_data() {
        use std::io::Write;
        let dir = tempfile_dir("stream");
        let fifo = dir.join("endless.npy");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
        let header = fixture("f4.npy");
        let writer_path = fifo.clone();
        // Writes a valid file, then zeros until the reader closes the pipe.
        let writer = std::thread::spawn(move || {
            let mut pipe = std::fs::OpenOptions::new()
                .write(true)
                .open(writer_path)
                .unwrap();
            if pipe.write_all(&header).is_err() {
                return;
            }
            while pipe.write_all(&[0; 4096]).is_ok() {}
        });
        let err = read_npy(&fifo).unwrap_err().0;
        assert!(
            err.contains("needs 24 data bytes but the file has 25"),
            "{err}"
        );
        writer.join().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("tb-npy-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn large_headers_use_version_2() {
        let t = Tensor::zeros(DType::U8, vec![1; 30000]).unwrap();
        let bytes = to_npy_bytes(&t);
        assert_eq!(&bytes[6..8], &[2, 0]);
        assert_eq!(parse_npy(&bytes).unwrap(), t);
    }

    #[test]
    fn corrupt_files_give_errors() {
        let err = |b: &[u8]| parse_npy(b).unwrap_err().0;
        assert!(err(&fixture("fortran_f4.npy")).contains("Fortran-order"));
        assert!(err(b"hello").contains("magic"));
        let good = fixture("f4.npy");
        let mut v = good.clone();
        v[6] = 9;
        assert!(err(&v).contains("version 9.0"));
        assert!(err(&good[..good.len() - 1]).contains("needs 24 data bytes but the file has 23"));
        assert!(err(&good[..40]).contains("header claims"));
        assert!(err(&good[..9]).contains("magic"));
        assert!(err(&good[..11]).contains("header claims"));
        let with_header = |h: &str| {
            let mut b = MAGIC.to_vec();
            b.extend_from_slice(&[1, 0]);
            b.extend_from_slice(&(h.len() as u16).to_le_bytes());
            b.extend_from_slice(h.as_bytes());
            b
        };
        assert!(
            err(&with_header(
                "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }"
            ))
            .contains("unsupported dtype '<c8'")
        );
        assert!(
            err(&with_header(
                "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"
            ))
            .contains("structured")
        );
        assert!(
            err(&with_header("{'descr': '<f4', 'shape': (1,), }"))
                .contains("lacks 'fortran_order'")
        );
        assert!(
            err(&with_header(
                "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }"
            ))
            .contains("True or False")
        );
        assert!(
            err(&with_header(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"
            ))
            .contains("bad dimension")
        );
        assert!(
            err(&with_header(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }"
            ))
            .contains("expected ')'")
        );
        assert!(err(&with_header("{'descr: '<f4'")).contains("expected ':'"));
        assert!(err(&with_header("{'descr")).contains("unterminated"));
        assert!(err(&with_header("{'x': 1}")).contains("unexpected header key 'x'"));
        assert!(err(&with_header("[")).contains("expected '{'"));
        let huge = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }";
        assert!(
            err(&with_header(huge)).contains("too many")
                || err(&with_header(huge)).contains("too large")
        );
        // A header without the trailing comma and with double quotes is still a valid dict.
        let mut b = with_header("{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": ()}\n");
        b.push(7);
        let t = parse_npy(&b).unwrap();
        assert_eq!(t, Tensor::scalar(7u8));
    }
}
