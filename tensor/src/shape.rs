//! Static shape inference for the ONNX operators of the `graph` dialect (opsets 13–21).
//!
//! Every rule is a pure function from input shapes (`&[i64]`, all dimensions known and
//! non-negative) and a plain attribute struct to the output shape, or a [`ShapeError`] that
//! names the operator and says what is inconsistent. Rules whose kernels need more than the
//! output shape (resolved pads, slice starts, reduced axes ...) return a "geometry" struct, so
//! that the interpreter and the lowerings never re-derive them differently.
//!
//! Attribute lists follow ONNX defaults: an empty `strides`/`dilations`/`pads` means "all
//! ones"/"all ones"/"all zeros", exactly as when the attribute is absent from the node.

use std::fmt;

/// Why a shape rule rejected its inputs: the operator and a human-readable reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    pub op: &'static str,
    pub message: String,
}

impl ShapeError {
    pub fn new(op: &'static str, message: impl Into<String>) -> Self {
        ShapeError {
            op,
            message: message.into(),
        }
    }
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.op, self.message)
    }
}

impl std::error::Error for ShapeError {}

pub type ShapeResult<T = Vec<i64>> = Result<T, ShapeError>;

fn fail<T>(op: &'static str, message: impl Into<String>) -> ShapeResult<T> {
    Err(ShapeError::new(op, message))
}

fn fmt_shape(s: &[i64]) -> String {
    let dims: Vec<String> = s.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

fn check_dims(op: &'static str, what: &str, shape: &[i64]) -> ShapeResult<()> {
    if shape.iter().any(|&d| d < 0) {
        return fail(
            op,
            format!("{what} has a negative dimension: {}", fmt_shape(shape)),
        );
    }
    Ok(())
}

/// Number of elements of a shape (1 for a scalar). For shapes that passed a shape rule,
/// whose element counts are checked; [`checked_num_elements`] for any other shape.
pub fn num_elements(shape: &[i64]) -> i64 {
    shape.iter().product()
}

/// Number of elements of a shape, `None` if it does not fit in `i64`.
pub fn checked_num_elements(shape: &[i64]) -> Option<i64> {
    shape.iter().try_fold(1i64, |n, &d| n.checked_mul(d))
}

/// Number of elements of `what` (a shape of `op`), or an error when it does not fit in
/// `i64`, as onnxruntime reports the overflow.
fn element_count(op: &'static str, what: &str, shape: &[i64]) -> ShapeResult<i64> {
    checked_num_elements(shape).ok_or_else(|| {
        ShapeError::new(
            op,
            format!(
                "{what} {} has more than 2^63 - 1 elements",
                fmt_shape(shape)
            ),
        )
    })
}

/// `value`, a size `op` computed exactly in 128 bits, as a dimension: an error naming
/// `what` when it does not fit in `i64` (onnxruntime reports the same integer overflow).
fn dimension(op: &'static str, what: impl fmt::Display, value: i128) -> ShapeResult<i64> {
    i64::try_from(value).map_err(|_| {
        ShapeError::new(
            op,
            format!("{what} is {value}, which overflows a 64-bit dimension"),
        )
    })
}

/// Maps `axis` in `[-rank, rank)` to `[0, rank)`.
pub fn normalize_axis(op: &'static str, axis: i64, rank: usize) -> ShapeResult<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return fail(op, format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

/// Normalizes a list of axes and rejects repeats.
fn normalize_axes(op: &'static str, axes: &[i64], rank: usize) -> ShapeResult<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = normalize_axis(op, a, rank)?;
        if out.contains(&n) {
            return fail(op, format!("axis {a} is repeated in {}", fmt_shape(axes)));
        }
        out.push(n);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Broadcasting and elementwise
// ---------------------------------------------------------------------------------------------

/// Numpy multidirectional broadcasting of any number of shapes (Add, Mul, Where, Max, ...).
pub fn broadcast(op: &'static str, shapes: &[&[i64]]) -> ShapeResult {
    if shapes.is_empty() {
        return fail(op, "needs at least one input");
    }
    for s in shapes {
        check_dims(op, "input", s)?;
    }
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1i64; rank];
    for (i, o) in out.iter_mut().enumerate() {
        for s in shapes {
            // Align trailing dimensions; missing leading ones count as 1.
            let Some(k) = (i + s.len()).checked_sub(rank) else {
                continue;
            };
            let d = s[k];
            if d == 1 {
                continue;
            }
            if *o == 1 {
                *o = d;
            } else if *o != d {
                let all: Vec<String> = shapes.iter().map(|s| fmt_shape(s)).collect();
                return fail(
                    op,
                    format!(
                        "shapes {} are not broadcastable (dimension {i} of the result: {} vs {d})",
                        all.join(", "),
                        *o
                    ),
                );
            }
        }
    }
    Ok(out)
}

/// Whether `from` broadcasts to exactly `to` (ONNX unidirectional broadcasting).
pub fn unidirectional_broadcast(op: &'static str, from: &[i64], to: &[i64]) -> ShapeResult<()> {
    let ok = from.len() <= to.len()
        && from
            .iter()
            .rev()
            .zip(to.iter().rev())
            .all(|(&f, &t)| f == t || f == 1);
    if !ok {
        return fail(
            op,
            format!(
                "shape {} does not broadcast to {}",
                fmt_shape(from),
                fmt_shape(to)
            ),
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// MatMul, Gemm
// ---------------------------------------------------------------------------------------------

/// Numpy `matmul`: 1-D operands are promoted and the added dimension removed afterwards; the
/// batch dimensions broadcast.
pub fn matmul(a: &[i64], b: &[i64]) -> ShapeResult {
    const OP: &str = "MatMul";
    check_dims(OP, "A", a)?;
    check_dims(OP, "B", b)?;
    if a.is_empty() || b.is_empty() {
        return fail(OP, "operands must have rank >= 1 (got a scalar)");
    }
    let (m, ka) = if a.len() == 1 {
        (None, a[0])
    } else {
        (Some(a[a.len() - 2]), a[a.len() - 1])
    };
    let (kb, n) = if b.len() == 1 {
        (b[0], None)
    } else {
        (b[b.len() - 2], Some(b[b.len() - 1]))
    };
    if ka != kb {
        return fail(
            OP,
            format!(
                "inner dimensions differ: A {} has K={ka} but B {} has K={kb}",
                fmt_shape(a),
                fmt_shape(b)
            ),
        );
    }
    let batch_a = if a.len() > 2 {
        &a[..a.len() - 2]
    } else {
        &[][..]
    };
    let batch_b = if b.len() > 2 {
        &b[..b.len() - 2]
    } else {
        &[][..]
    };
    let mut out = broadcast(OP, &[batch_a, batch_b])?;
    out.extend(m);
    out.extend(n);
    Ok(out)
}

/// Gemm: `alpha * A' * B' + beta * C` with 2-D A and B; C broadcasts to `[M, N]`.
pub fn gemm(a: &[i64], b: &[i64], c: Option<&[i64]>, trans_a: bool, trans_b: bool) -> ShapeResult {
    const OP: &str = "Gemm";
    if a.len() != 2 || b.len() != 2 {
        return fail(
            OP,
            format!(
                "A and B must be 2-D, got {} and {}",
                fmt_shape(a),
                fmt_shape(b)
            ),
        );
    }
    check_dims(OP, "A", a)?;
    check_dims(OP, "B", b)?;
    let (m, k) = if trans_a { (a[1], a[0]) } else { (a[0], a[1]) };
    let (k2, n) = if trans_b { (b[1], b[0]) } else { (b[0], b[1]) };
    if k != k2 {
        return fail(
            OP,
            format!(
                "inner dimensions differ: A' is {m}x{k} but B' is {k2}x{n} (transA={trans_a}, transB={trans_b})"
            ),
        );
    }
    let out = vec![m, n];
    if let Some(c) = c {
        unidirectional_broadcast(OP, c, &out)
            .map_err(|e| ShapeError::new(OP, format!("C: {}", e.message)))?;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Convolution and pooling
// ---------------------------------------------------------------------------------------------

/// ONNX `auto_pad`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AutoPad {
    #[default]
    NotSet,
    SameUpper,
    SameLower,
    Valid,
}

impl AutoPad {
    /// Parses the ONNX attribute string.
    pub fn parse(s: &str) -> Result<AutoPad, String> {
        match s {
            "" | "NOTSET" => Ok(AutoPad::NotSet),
            "SAME_UPPER" => Ok(AutoPad::SameUpper),
            "SAME_LOWER" => Ok(AutoPad::SameLower),
            "VALID" => Ok(AutoPad::Valid),
            _ => Err(format!(
                "unknown auto_pad '{s}' (expected NOTSET, SAME_UPPER, SAME_LOWER or VALID)"
            )),
        }
    }
}

/// Attributes of Conv.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvAttrs {
    /// Checked against the weight when given; taken from the weight otherwise.
    pub kernel_shape: Option<Vec<i64>>,
    pub strides: Vec<i64>,
    /// `[x1_begin, x2_begin, ..., x1_end, x2_end, ...]`, used only with `AutoPad::NotSet`.
    pub pads: Vec<i64>,
    pub dilations: Vec<i64>,
    pub group: i64,
    pub auto_pad: AutoPad,
}

impl Default for ConvAttrs {
    fn default() -> Self {
        ConvAttrs {
            kernel_shape: None,
            strides: vec![],
            pads: vec![],
            dilations: vec![],
            group: 1,
            auto_pad: AutoPad::NotSet,
        }
    }
}

/// Everything a convolution or pooling kernel needs about its spatial dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowGeometry {
    pub kernel: Vec<i64>,
    pub strides: Vec<i64>,
    pub dilations: Vec<i64>,
    /// Resolved begin pads per spatial dimension (auto_pad applied). ConvTranspose may have
    /// negative pads, which extend the output instead of cropping it.
    pub pads_begin: Vec<i64>,
    pub pads_end: Vec<i64>,
    pub input_spatial: Vec<i64>,
    pub output_spatial: Vec<i64>,
    /// Full output shape.
    pub output: Vec<i64>,
}

/// Reads an optional per-spatial-dimension list with a default and a positivity check.
fn spatial_list(
    op: &'static str,
    name: &str,
    v: &[i64],
    n: usize,
    default: i64,
    min: i64,
) -> ShapeResult {
    if v.is_empty() {
        return Ok(vec![default; n]);
    }
    if v.len() != n {
        return fail(
            op,
            format!(
                "{name} has {} values but there are {n} spatial dimensions",
                v.len()
            ),
        );
    }
    if let Some(x) = v.iter().find(|&&x| x < min) {
        return fail(op, format!("{name} must be >= {min}, got {x}"));
    }
    Ok(v.to_vec())
}

/// Explicit pads as (begin, end) lists.
fn explicit_pads(
    op: &'static str,
    pads: &[i64],
    n: usize,
    allow_negative: bool,
) -> ShapeResult<(Vec<i64>, Vec<i64>)> {
    if pads.is_empty() {
        return Ok((vec![0; n], vec![0; n]));
    }
    if pads.len() != 2 * n {
        return fail(
            op,
            format!(
                "pads has {} values but needs 2 x {n} spatial dimensions",
                pads.len()
            ),
        );
    }
    if !allow_negative && let Some(p) = pads.iter().find(|&&p| p < 0) {
        return fail(op, format!("pads must be non-negative, got {p}"));
    }
    Ok((pads[..n].to_vec(), pads[n..].to_vec()))
}

/// Splits the total SAME padding: SAME_UPPER puts the odd extra at the end, SAME_LOWER at the
/// beginning. Floor division keeps the ConvTranspose rule right for negative totals.
fn split_same(total: i128, auto_pad: AutoPad) -> (i128, i128) {
    let half = total.div_euclid(2);
    if auto_pad == AutoPad::SameUpper {
        (half, total - half)
    } else {
        (total - half, half)
    }
}

/// Checks the common `[N, C, spatial...]` layout of convolution and pooling inputs.
fn check_nc_input(op: &'static str, x: &[i64]) -> ShapeResult<usize> {
    if x.len() < 3 {
        return fail(
            op,
            format!(
                "input must be [N, C, D1, ...] with at least one spatial dimension, got {}",
                fmt_shape(x)
            ),
        );
    }
    check_dims(op, "input", x)?;
    Ok(x.len() - 2)
}

/// Output sizes and resolved pads of a sliding window (Conv, MaxPool, AveragePool).
#[allow(clippy::too_many_arguments)]
fn window(
    op: &'static str,
    input: &[i64],
    kernel: &[i64],
    strides: &[i64],
    dilations: &[i64],
    pads: &[i64],
    auto_pad: AutoPad,
    ceil_mode: bool,
) -> ShapeResult<(Vec<i64>, Vec<i64>, Vec<i64>)> {
    let n = input.len();
    let (mut begin, mut end) = explicit_pads(op, pads, n, false)?;
    let mut out = vec![0; n];
    // Sizes are computed in 128 bits, where no sum or product of two dimensions overflows,
    // and must fit in 64 bits at the end.
    for i in 0..n {
        let wide = |v: &[i64]| i128::from(v[i]);
        let (x, s) = (wide(input), wide(strides));
        let eff_k = (wide(kernel) - 1) * wide(dilations) + 1;
        let o = match auto_pad {
            AutoPad::SameUpper | AutoPad::SameLower => {
                let o = (x + s - 1) / s;
                let total = ((o - 1) * s + eff_k - x).max(0);
                let (b, e) = split_same(total, auto_pad);
                begin[i] = dimension(
                    op,
                    format_args!("the begin pad of spatial dimension {i}"),
                    b,
                )?;
                end[i] = dimension(op, format_args!("the end pad of spatial dimension {i}"), e)?;
                o
            }
            AutoPad::Valid | AutoPad::NotSet => {
                if auto_pad == AutoPad::Valid {
                    begin[i] = 0;
                    end[i] = 0;
                }
                let start = x + wide(&begin);
                let padded = start + wide(&end);
                let span = padded - eff_k;
                if span < 0 {
                    return fail(
                        op,
                        format!(
                            "spatial dimension {i}: the (dilated) kernel of size {eff_k} is larger than the padded input of size {padded}"
                        ),
                    );
                }
                let mut o = if ceil_mode {
                    (span + s - 1) / s + 1
                } else {
                    span / s + 1
                };
                // In ceil mode the last window must start inside the input or the begin pad
                // (the PyTorch rule that ONNX adopted), never wholly in the end pad.
                if ceil_mode && (o - 1) * s >= start {
                    o -= 1;
                }
                o
            }
        };
        out[i] = dimension(
            op,
            format_args!("the output size of spatial dimension {i}"),
            o,
        )?;
    }
    Ok((out, begin, end))
}

fn check_kernel(op: &'static str, kernel: &[i64]) -> ShapeResult<()> {
    if kernel.iter().any(|&k| k < 1) {
        return fail(
            op,
            format!(
                "the weight's kernel dimensions {} must be >= 1",
                fmt_shape(kernel)
            ),
        );
    }
    Ok(())
}

/// Conv geometry: `x` is `[N, C, D1...]`, `w` is `[M, C/group, k1...]`, `b` is `[M]`.
pub fn conv_geometry(
    x: &[i64],
    w: &[i64],
    b: Option<&[i64]>,
    attrs: &ConvAttrs,
) -> ShapeResult<WindowGeometry> {
    const OP: &str = "Conv";
    let nsp = check_nc_input(OP, x)?;
    check_dims(OP, "weight", w)?;
    if w.len() != x.len() {
        return fail(
            OP,
            format!(
                "weight {} must have the rank of the input {}",
                fmt_shape(w),
                fmt_shape(x)
            ),
        );
    }
    let kernel = w[2..].to_vec();
    check_kernel(OP, &kernel)?;
    if let Some(ks) = &attrs.kernel_shape
        && ks != &kernel
    {
        return fail(
            OP,
            format!(
                "kernel_shape {} does not match the weight's spatial dims {}",
                fmt_shape(ks),
                fmt_shape(&kernel)
            ),
        );
    }
    let g = attrs.group;
    if g < 1 {
        return fail(OP, format!("group must be >= 1, got {g}"));
    }
    let channels = i128::from(w[1]) * i128::from(g);
    if i128::from(x[1]) != channels {
        return fail(
            OP,
            format!(
                "input has {} channels but weight expects {channels} (group={g})",
                x[1]
            ),
        );
    }
    if w[0] % g != 0 {
        return fail(
            OP,
            format!("{} output channels are not divisible by group={g}", w[0]),
        );
    }
    if let Some(b) = b
        && b != [w[0]]
    {
        return fail(OP, format!("bias must be [{}], got {}", w[0], fmt_shape(b)));
    }
    let strides = spatial_list(OP, "strides", &attrs.strides, nsp, 1, 1)?;
    let dilations = spatial_list(OP, "dilations", &attrs.dilations, nsp, 1, 1)?;
    let input = x[2..].to_vec();
    let (out_sp, pads_begin, pads_end) = window(
        OP,
        &input,
        &kernel,
        &strides,
        &dilations,
        &attrs.pads,
        attrs.auto_pad,
        false,
    )?;
    let mut output = vec![x[0], w[0]];
    output.extend(&out_sp);
    Ok(WindowGeometry {
        kernel,
        strides,
        dilations,
        pads_begin,
        pads_end,
        input_spatial: input,
        output_spatial: out_sp,
        output,
    })
}

/// Conv output shape.
pub fn conv(x: &[i64], w: &[i64], b: Option<&[i64]>, attrs: &ConvAttrs) -> ShapeResult {
    conv_geometry(x, w, b, attrs).map(|g| g.output)
}

/// Attributes of ConvTranspose.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvTransposeAttrs {
    pub conv: ConvAttrs,
    pub output_padding: Vec<i64>,
    /// Spatial output shape (a full `[N, M, ...]` shape is also accepted); pads are then derived.
    pub output_shape: Option<Vec<i64>>,
}

/// ConvTranspose geometry: `x` is `[N, C, D1...]`, `w` is `[C, M/group, k1...]`. The pads
/// are those of the equivalent forward convolution: output index `o = i*stride + k*dilation -
/// pads_begin`.
pub fn conv_transpose_geometry(
    x: &[i64],
    w: &[i64],
    b: Option<&[i64]>,
    attrs: &ConvTransposeAttrs,
) -> ShapeResult<WindowGeometry> {
    const OP: &str = "ConvTranspose";
    let c = &attrs.conv;
    let nsp = check_nc_input(OP, x)?;
    check_dims(OP, "weight", w)?;
    if w.len() != x.len() {
        return fail(
            OP,
            format!(
                "weight {} must have the rank of the input {}",
                fmt_shape(w),
                fmt_shape(x)
            ),
        );
    }
    let kernel = w[2..].to_vec();
    check_kernel(OP, &kernel)?;
    if let Some(ks) = &c.kernel_shape
        && ks != &kernel
    {
        return fail(
            OP,
            format!(
                "kernel_shape {} does not match the weight's spatial dims {}",
                fmt_shape(ks),
                fmt_shape(&kernel)
            ),
        );
    }
    let g = c.group;
    if g < 1 {
        return fail(OP, format!("group must be >= 1, got {g}"));
    }
    if x[1] != w[0] {
        return fail(
            OP,
            format!("input has {} channels but weight expects {}", x[1], w[0]),
        );
    }
    if w[0] % g != 0 {
        return fail(
            OP,
            format!("{} input channels are not divisible by group={g}", w[0]),
        );
    }
    let m = dimension(
        OP,
        "the output channel count",
        i128::from(w[1]) * i128::from(g),
    )?;
    if let Some(b) = b
        && b != [m]
    {
        return fail(OP, format!("bias must be [{m}], got {}", fmt_shape(b)));
    }
    let strides = spatial_list(OP, "strides", &c.strides, nsp, 1, 1)?;
    let dilations = spatial_list(OP, "dilations", &c.dilations, nsp, 1, 1)?;
    let out_pad = spatial_list(OP, "output_padding", &attrs.output_padding, nsp, 0, 0)?;
    let input = x[2..].to_vec();
    // Size of the full (unpadded) transposed convolution, in 128 bits: no sum or product of
    // two dimensions overflows there; what becomes a dimension must fit in 64 bits.
    let wide = |v: &[i64], i: usize| i128::from(v[i]);
    let full: Vec<i128> = (0..nsp)
        .map(|i| {
            wide(&strides, i) * (wide(&input, i) - 1)
                + wide(&out_pad, i)
                + (wide(&kernel, i) - 1) * wide(&dilations, i)
                + 1
        })
        .collect();
    let same = matches!(c.auto_pad, AutoPad::SameUpper | AutoPad::SameLower);
    let target: Option<Vec<i64>> = match &attrs.output_shape {
        Some(s) if s.len() == nsp => Some(s.clone()),
        Some(s) if s.len() == nsp + 2 => Some(s[2..].to_vec()),
        Some(s) => {
            return fail(
                OP,
                format!(
                    "output_shape {} must list the {nsp} spatial dimensions",
                    fmt_shape(s)
                ),
            );
        }
        None if same => Some(
            (0..nsp)
                .map(|i| {
                    dimension(
                        OP,
                        format_args!("the output size of spatial dimension {i}"),
                        wide(&input, i) * wide(&strides, i),
                    )
                })
                .collect::<ShapeResult>()?,
        ),
        None => None,
    };
    let (pads_begin, pads_end, out_sp) = match target {
        Some(t) => {
            check_dims(OP, "output_shape", &t)?;
            let mut pb = vec![0; nsp];
            let mut pe = vec![0; nsp];
            for i in 0..nsp {
                // Without SAME, the spec's "else" branch puts the odd extra at the beginning.
                let mode = if c.auto_pad == AutoPad::SameUpper {
                    AutoPad::SameUpper
                } else {
                    AutoPad::SameLower
                };
                let (b, e) = split_same(full[i] - i128::from(t[i]), mode);
                pb[i] = dimension(
                    OP,
                    format_args!("the begin pad of spatial dimension {i}"),
                    b,
                )?;
                pe[i] = dimension(OP, format_args!("the end pad of spatial dimension {i}"), e)?;
            }
            (pb, pe, t)
        }
        None => {
            let (pb, pe) = explicit_pads(OP, &c.pads, nsp, false)?;
            let mut out = Vec::with_capacity(nsp);
            for i in 0..nsp {
                let o = full[i] - wide(&pb, i) - wide(&pe, i);
                if o < 0 {
                    return fail(
                        OP,
                        format!(
                            "spatial dimension {i}: pads {} + {} exceed the output size {}",
                            pb[i], pe[i], full[i]
                        ),
                    );
                }
                out.push(dimension(
                    OP,
                    format_args!("the output size of spatial dimension {i}"),
                    o,
                )?);
            }
            (pb, pe, out)
        }
    };
    let mut output = vec![x[0], m];
    output.extend(&out_sp);
    Ok(WindowGeometry {
        kernel,
        strides,
        dilations,
        pads_begin,
        pads_end,
        input_spatial: input,
        output_spatial: out_sp,
        output,
    })
}

/// ConvTranspose output shape.
pub fn conv_transpose(
    x: &[i64],
    w: &[i64],
    b: Option<&[i64]>,
    attrs: &ConvTransposeAttrs,
) -> ShapeResult {
    conv_transpose_geometry(x, w, b, attrs).map(|g| g.output)
}

/// Attributes of MaxPool and AveragePool (`count_include_pad` and `storage_order` do not
/// affect shapes and live with the kernels).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolAttrs {
    pub kernel_shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub pads: Vec<i64>,
    pub dilations: Vec<i64>,
    pub ceil_mode: bool,
    pub auto_pad: AutoPad,
}

/// MaxPool/AveragePool geometry for `x` = `[N, C, D1...]`.
pub fn pool_geometry(
    op: &'static str,
    x: &[i64],
    attrs: &PoolAttrs,
) -> ShapeResult<WindowGeometry> {
    let nsp = check_nc_input(op, x)?;
    if attrs.kernel_shape.len() != nsp {
        return fail(
            op,
            format!(
                "kernel_shape has {} values but the input has {nsp} spatial dimensions",
                attrs.kernel_shape.len()
            ),
        );
    }
    let kernel = spatial_list(op, "kernel_shape", &attrs.kernel_shape, nsp, 1, 1)?;
    let strides = spatial_list(op, "strides", &attrs.strides, nsp, 1, 1)?;
    let dilations = spatial_list(op, "dilations", &attrs.dilations, nsp, 1, 1)?;
    let input = x[2..].to_vec();
    let (out_sp, pads_begin, pads_end) = window(
        op,
        &input,
        &kernel,
        &strides,
        &dilations,
        &attrs.pads,
        attrs.auto_pad,
        attrs.ceil_mode,
    )?;
    let mut output = x[..2].to_vec();
    output.extend(&out_sp);
    Ok(WindowGeometry {
        kernel,
        strides,
        dilations,
        pads_begin,
        pads_end,
        input_spatial: input,
        output_spatial: out_sp,
        output,
    })
}

/// MaxPool/AveragePool output shape.
pub fn pool(op: &'static str, x: &[i64], attrs: &PoolAttrs) -> ShapeResult {
    pool_geometry(op, x, attrs).map(|g| g.output)
}

/// GlobalAveragePool/GlobalMaxPool: `[N, C, D...]` to `[N, C, 1...]`.
pub fn global_pool(op: &'static str, x: &[i64]) -> ShapeResult {
    check_nc_input(op, x)?;
    let mut out = x[..2].to_vec();
    out.resize(x.len(), 1);
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Softmax and normalizations
// ---------------------------------------------------------------------------------------------

/// Softmax/LogSoftmax (opset 13: along one axis, default -1): the shape is unchanged.
pub fn softmax(op: &'static str, x: &[i64], axis: i64) -> ShapeResult {
    check_dims(op, "input", x)?;
    if x.is_empty() {
        return fail(op, "input must have rank >= 1");
    }
    normalize_axis(op, axis, x.len())?;
    Ok(x.to_vec())
}

fn check_channel_param(op: &'static str, name: &str, p: &[i64], c: i64) -> ShapeResult<()> {
    if p != [c] {
        return fail(
            op,
            format!(
                "{name} must be [{c}] (one value per channel), got {}",
                fmt_shape(p)
            ),
        );
    }
    Ok(())
}

/// BatchNormalization (inference): `x` is `[N, C, ...]`; scale, bias, mean and var are `[C]`.
pub fn batch_norm(
    x: &[i64],
    scale: &[i64],
    bias: &[i64],
    mean: &[i64],
    var: &[i64],
) -> ShapeResult {
    const OP: &str = "BatchNormalization";
    check_dims(OP, "input", x)?;
    if x.len() < 2 {
        return fail(
            OP,
            format!("input must be [N, C, ...], got {}", fmt_shape(x)),
        );
    }
    for (name, p) in [
        ("scale", scale),
        ("B", bias),
        ("input_mean", mean),
        ("input_var", var),
    ] {
        check_channel_param(OP, name, p, x[1])?;
    }
    Ok(x.to_vec())
}

/// InstanceNormalization: `x` is `[N, C, D...]`, scale and bias are `[C]`.
pub fn instance_norm(x: &[i64], scale: &[i64], bias: &[i64]) -> ShapeResult {
    const OP: &str = "InstanceNormalization";
    check_nc_input(OP, x)?;
    check_channel_param(OP, "scale", scale, x[1])?;
    check_channel_param(OP, "B", bias, x[1])?;
    Ok(x.to_vec())
}

/// LayerNormalization shapes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerNormShapes {
    /// Normalized axis in `[0, rank)`: dimensions `axis..` are normalized together.
    pub axis: usize,
    pub y: Vec<i64>,
    /// Shape of the optional Mean and InvStdDev outputs: `x[..axis]` followed by ones.
    pub stats: Vec<i64>,
}

/// LayerNormalization: scale and bias must broadcast to X (normally they are shaped like
/// `x[axis..]`).
pub fn layer_norm(
    x: &[i64],
    scale: &[i64],
    bias: Option<&[i64]>,
    axis: i64,
) -> ShapeResult<LayerNormShapes> {
    const OP: &str = "LayerNormalization";
    check_dims(OP, "input", x)?;
    if x.is_empty() {
        return fail(OP, "input must have rank >= 1");
    }
    let axis = normalize_axis(OP, axis, x.len())?;
    unidirectional_broadcast(OP, scale, x)
        .map_err(|e| ShapeError::new(OP, format!("Scale: {}", e.message)))?;
    if let Some(b) = bias {
        unidirectional_broadcast(OP, b, x)
            .map_err(|e| ShapeError::new(OP, format!("B: {}", e.message)))?;
    }
    let mut stats = x[..axis].to_vec();
    stats.resize(x.len(), 1);
    Ok(LayerNormShapes {
        axis,
        y: x.to_vec(),
        stats,
    })
}

// ---------------------------------------------------------------------------------------------
// Shape manipulation
// ---------------------------------------------------------------------------------------------

/// Reshape: `0` copies the input dimension (unless `allowzero`), `-1` is inferred.
pub fn reshape(x: &[i64], shape: &[i64], allowzero: bool) -> ShapeResult {
    const OP: &str = "Reshape";
    check_dims(OP, "input", x)?;
    let mut out = Vec::with_capacity(shape.len());
    let mut infer = None;
    for (i, &d) in shape.iter().enumerate() {
        match d {
            -1 => {
                if infer.replace(i).is_some() {
                    return fail(
                        OP,
                        format!("shape {} has more than one -1", fmt_shape(shape)),
                    );
                }
                out.push(1);
            }
            0 if !allowzero => match x.get(i) {
                Some(&v) => out.push(v),
                None => {
                    return fail(
                        OP,
                        format!(
                            "shape {} copies dimension {i} (0) but the input {} has rank {}",
                            fmt_shape(shape),
                            fmt_shape(x),
                            x.len()
                        ),
                    );
                }
            },
            d if d < 0 => {
                return fail(
                    OP,
                    format!("shape {} has invalid dimension {d}", fmt_shape(shape)),
                );
            }
            d => out.push(d),
        }
    }
    let total = element_count(OP, "input", x)?;
    if let Some(i) = infer {
        if allowzero && shape.contains(&0) {
            return fail(
                OP,
                format!(
                    "shape {} has both 0 and -1 with allowzero=1",
                    fmt_shape(shape)
                ),
            );
        }
        let known = element_count(OP, "shape", &out)?;
        if known == 0 || total % known != 0 {
            return fail(
                OP,
                format!(
                    "cannot infer -1 in {}: {total} elements of {} do not divide by {known}",
                    fmt_shape(shape),
                    fmt_shape(x)
                ),
            );
        }
        out[i] = total / known;
    }
    if element_count(OP, "shape", &out)? != total {
        return fail(
            OP,
            format!(
                "cannot reshape {} ({total} elements) to {}",
                fmt_shape(x),
                fmt_shape(&out)
            ),
        );
    }
    Ok(out)
}

/// Flatten to 2-D at `axis` in `[-rank, rank]`.
pub fn flatten(x: &[i64], axis: i64) -> ShapeResult {
    const OP: &str = "Flatten";
    check_dims(OP, "input", x)?;
    let r = x.len() as i64;
    if axis < -r || axis > r {
        return fail(OP, format!("axis {axis} is out of range [-{r}, {r}]"));
    }
    let a = if axis < 0 { axis + r } else { axis } as usize;
    Ok(vec![
        element_count(OP, "input", &x[..a])?,
        element_count(OP, "input", &x[a..])?,
    ])
}

/// Resolves Transpose's `perm` (default: reverse the dimensions).
pub fn transpose_perm(x: &[i64], perm: Option<&[i64]>) -> ShapeResult<Vec<usize>> {
    const OP: &str = "Transpose";
    let r = x.len();
    let Some(perm) = perm else {
        return Ok((0..r).rev().collect());
    };
    if perm.len() != r {
        return fail(
            OP,
            format!(
                "perm {} has {} entries but the input has rank {r}",
                fmt_shape(perm),
                perm.len()
            ),
        );
    }
    let mut seen = vec![false; r];
    let mut out = Vec::with_capacity(r);
    for &p in perm {
        if p < 0 || p as usize >= r || seen[p as usize] {
            return fail(
                OP,
                format!("perm {} is not a permutation of 0..{r}", fmt_shape(perm)),
            );
        }
        seen[p as usize] = true;
        out.push(p as usize);
    }
    Ok(out)
}

/// Transpose output shape.
pub fn transpose(x: &[i64], perm: Option<&[i64]>) -> ShapeResult {
    check_dims("Transpose", "input", x)?;
    Ok(transpose_perm(x, perm)?.iter().map(|&p| x[p]).collect())
}

/// Squeeze: removes the listed size-1 axes, or every size-1 axis when `axes` is absent.
pub fn squeeze(x: &[i64], axes: Option<&[i64]>) -> ShapeResult {
    const OP: &str = "Squeeze";
    check_dims(OP, "input", x)?;
    let Some(axes) = axes else {
        return Ok(x.iter().copied().filter(|&d| d != 1).collect());
    };
    let axes = normalize_axes(OP, axes, x.len())?;
    for &a in &axes {
        if x[a] != 1 {
            return fail(
                OP,
                format!(
                    "cannot squeeze axis {a} of {}: its size is {}, not 1",
                    fmt_shape(x),
                    x[a]
                ),
            );
        }
    }
    Ok(x.iter()
        .enumerate()
        .filter(|(i, _)| !axes.contains(i))
        .map(|(_, &d)| d)
        .collect())
}

/// Unsqueeze: inserts size-1 axes at the listed positions of the output.
pub fn unsqueeze(x: &[i64], axes: &[i64]) -> ShapeResult {
    const OP: &str = "Unsqueeze";
    check_dims(OP, "input", x)?;
    let rank = x.len() + axes.len();
    let axes = normalize_axes(OP, axes, rank)?;
    let mut src = x.iter();
    Ok((0..rank)
        .map(|i| {
            if axes.contains(&i) {
                1
            } else {
                *src.next().unwrap_or(&1)
            }
        })
        .collect())
}

/// Concat along `axis`; the other dimensions must agree.
pub fn concat(inputs: &[&[i64]], axis: i64) -> ShapeResult {
    const OP: &str = "Concat";
    let Some(first) = inputs.first() else {
        return fail(OP, "needs at least one input");
    };
    if first.is_empty() {
        return fail(OP, "inputs must have rank >= 1");
    }
    let a = normalize_axis(OP, axis, first.len())?;
    let mut out = first.to_vec();
    out[a] = 0;
    for (k, s) in inputs.iter().enumerate() {
        check_dims(OP, "input", s)?;
        let same = s.len() == first.len()
            && s.iter()
                .zip(first.iter())
                .enumerate()
                .all(|(i, (x, y))| i == a || x == y);
        if !same {
            return fail(
                OP,
                format!(
                    "input {k} {} does not match input 0 {} outside axis {a}",
                    fmt_shape(s),
                    fmt_shape(first)
                ),
            );
        }
        out[a] = out[a].checked_add(s[a]).ok_or_else(|| {
            ShapeError::new(
                OP,
                format!("the sizes along axis {a} add up to more than 2^63 - 1"),
            )
        })?;
    }
    Ok(out)
}

/// Split sizes along `axis`, from the `split` input or the `num_outputs` attribute (opset 18:
/// equal chunks of `ceil(dim / n)`, the last one smaller).
pub fn split_sizes(
    x: &[i64],
    axis: i64,
    split: Option<&[i64]>,
    num_outputs: Option<i64>,
) -> ShapeResult<(usize, Vec<i64>)> {
    const OP: &str = "Split";
    check_dims(OP, "input", x)?;
    let a = normalize_axis(OP, axis, x.len())?;
    let dim = x[a];
    let sizes = match (split, num_outputs) {
        (Some(s), _) => {
            if s.iter().any(|&v| v < 0)
                || s.iter().map(|&v| i128::from(v)).sum::<i128>() != i128::from(dim)
            {
                return fail(
                    OP,
                    format!(
                        "split {} must be non-negative and sum to the axis size {dim}",
                        fmt_shape(s)
                    ),
                );
            }
            s.to_vec()
        }
        (None, Some(n)) => {
            if n < 1 {
                return fail(OP, format!("num_outputs must be >= 1, got {n}"));
            }
            // At most `dim`, so it fits.
            let chunk = ((i128::from(dim) + i128::from(n) - 1) / i128::from(n)) as i64;
            let last = i128::from(dim) - i128::from(chunk) * i128::from(n - 1);
            if last < 0 {
                return fail(
                    OP,
                    format!("cannot split a dimension of {dim} into {n} chunks of {chunk}"),
                );
            }
            let mut v = vec![chunk; n as usize];
            v[n as usize - 1] = last as i64;
            v
        }
        (None, None) => return fail(OP, "needs either the split input or num_outputs"),
    };
    Ok((a, sizes))
}

/// Split output shapes.
pub fn split(
    x: &[i64],
    axis: i64,
    split: Option<&[i64]>,
    num_outputs: Option<i64>,
) -> ShapeResult<Vec<Vec<i64>>> {
    let (a, sizes) = split_sizes(x, axis, split, num_outputs)?;
    Ok(sizes
        .iter()
        .map(|&s| {
            let mut o = x.to_vec();
            o[a] = s;
            o
        })
        .collect())
}

/// Resolved Slice: per input axis, the first index and the step (1 for untouched axes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceGeometry {
    pub starts: Vec<i64>,
    pub steps: Vec<i64>,
    pub output: Vec<i64>,
}

/// Slice with ONNX clamping: negative starts/ends count from the end, then clamp to
/// `[0, dim]` (positive step) or `[0, dim-1]` / `[-1, dim-1]` (negative step).
pub fn slice_geometry(
    x: &[i64],
    starts: &[i64],
    ends: &[i64],
    axes: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> ShapeResult<SliceGeometry> {
    const OP: &str = "Slice";
    check_dims(OP, "input", x)?;
    let n = starts.len();
    if ends.len() != n {
        return fail(
            OP,
            format!("starts has {n} values but ends has {}", ends.len()),
        );
    }
    let axes = match axes {
        Some(a) if a.len() != n => {
            return fail(
                OP,
                format!("starts has {n} values but axes has {}", a.len()),
            );
        }
        Some(a) => normalize_axes(OP, a, x.len())?,
        None if n > x.len() => {
            return fail(OP, format!("{n} starts for an input of rank {}", x.len()));
        }
        None => (0..n).collect(),
    };
    let steps: Vec<i64> = match steps {
        Some(s) if s.len() != n => {
            return fail(
                OP,
                format!("starts has {n} values but steps has {}", s.len()),
            );
        }
        Some(s) => s.to_vec(),
        None => vec![1; n],
    };
    let mut g = SliceGeometry {
        starts: vec![0; x.len()],
        steps: vec![1; x.len()],
        output: x.to_vec(),
    };
    for i in 0..n {
        let (a, step, dim) = (axes[i], steps[i], x[axes[i]]);
        if step == 0 {
            return fail(OP, format!("step for axis {a} is 0"));
        }
        let resolve = |v: i64| if v < 0 { v.saturating_add(dim) } else { v };
        let (mut s, mut e) = (resolve(starts[i]), resolve(ends[i]));
        let len = if step > 0 {
            s = s.clamp(0, dim);
            e = e.clamp(0, dim);
            if e > s { (e - s - 1) / step + 1 } else { 0 }
        } else {
            s = s.clamp(0, (dim - 1).max(0));
            e = e.clamp(-1, dim - 1);
            if s > e && dim > 0 {
                (s - e - 1) / (-step) + 1
            } else {
                0
            }
        };
        g.starts[a] = s;
        g.steps[a] = step;
        g.output[a] = len;
    }
    Ok(g)
}

/// Slice output shape.
pub fn slice(
    x: &[i64],
    starts: &[i64],
    ends: &[i64],
    axes: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> ShapeResult {
    slice_geometry(x, starts, ends, axes, steps).map(|g| g.output)
}

/// Gather: `data[..axis] ++ indices ++ data[axis+1..]`.
pub fn gather(data: &[i64], indices: &[i64], axis: i64) -> ShapeResult {
    const OP: &str = "Gather";
    check_dims(OP, "data", data)?;
    check_dims(OP, "indices", indices)?;
    if data.is_empty() {
        return fail(OP, "data must have rank >= 1");
    }
    let a = normalize_axis(OP, axis, data.len())?;
    let mut out = data[..a].to_vec();
    out.extend_from_slice(indices);
    out.extend_from_slice(&data[a + 1..]);
    Ok(out)
}

/// GatherElements: the output has the indices' shape; indices may not exceed data outside
/// `axis`.
pub fn gather_elements(data: &[i64], indices: &[i64], axis: i64) -> ShapeResult {
    const OP: &str = "GatherElements";
    check_dims(OP, "data", data)?;
    check_dims(OP, "indices", indices)?;
    if data.is_empty() || indices.len() != data.len() {
        return fail(
            OP,
            format!(
                "data {} and indices {} must have the same rank >= 1",
                fmt_shape(data),
                fmt_shape(indices)
            ),
        );
    }
    let a = normalize_axis(OP, axis, data.len())?;
    if let Some(i) = (0..data.len()).find(|&i| i != a && indices[i] > data[i]) {
        return fail(
            OP,
            format!(
                "indices {} exceed data {} in dimension {i}",
                fmt_shape(indices),
                fmt_shape(data)
            ),
        );
    }
    Ok(indices.to_vec())
}

/// Expand: multidirectional broadcast of the input with the `shape` input.
pub fn expand(x: &[i64], shape: &[i64]) -> ShapeResult {
    broadcast("Expand", &[x, shape])
}

/// Resolved Pad: begin/end pads per input axis (negative pads crop).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PadGeometry {
    pub begin: Vec<i64>,
    pub end: Vec<i64>,
    pub output: Vec<i64>,
}

/// Pad (opset 18): `pads` is `[begins..., ends...]` over `axes` (default: all axes).
pub fn pad_geometry(x: &[i64], pads: &[i64], axes: Option<&[i64]>) -> ShapeResult<PadGeometry> {
    const OP: &str = "Pad";
    check_dims(OP, "input", x)?;
    let axes = match axes {
        Some(a) => normalize_axes(OP, a, x.len())?,
        None => (0..x.len()).collect(),
    };
    let n = axes.len();
    if pads.len() != 2 * n {
        return fail(
            OP,
            format!("pads has {} values but needs 2 x {n} axes", pads.len()),
        );
    }
    let mut g = PadGeometry {
        begin: vec![0; x.len()],
        end: vec![0; x.len()],
        output: x.to_vec(),
    };
    for (i, &a) in axes.iter().enumerate() {
        g.begin[a] = pads[i];
        g.end[a] = pads[n + i];
        let size = i128::from(x[a]) + i128::from(pads[i]) + i128::from(pads[n + i]);
        g.output[a] = dimension(OP, format_args!("the padded size of axis {a}"), size)?;
        if size < 0 {
            return fail(
                OP,
                format!(
                    "pads {} and {} crop more than axis {a} of size {}",
                    pads[i],
                    pads[n + i],
                    x[a]
                ),
            );
        }
    }
    Ok(g)
}

/// Pad output shape.
pub fn pad(x: &[i64], pads: &[i64], axes: Option<&[i64]>) -> ShapeResult {
    pad_geometry(x, pads, axes).map(|g| g.output)
}

/// Tile: each dimension times its repeat count.
pub fn tile(x: &[i64], repeats: &[i64]) -> ShapeResult {
    const OP: &str = "Tile";
    check_dims(OP, "input", x)?;
    if repeats.len() != x.len() {
        return fail(
            OP,
            format!(
                "repeats has {} values but the input has rank {}",
                repeats.len(),
                x.len()
            ),
        );
    }
    if let Some(r) = repeats.iter().find(|&&r| r < 0) {
        return fail(OP, format!("repeats must be non-negative, got {r}"));
    }
    x.iter()
        .zip(repeats)
        .enumerate()
        .map(|(i, (&d, &r))| {
            dimension(
                OP,
                format_args!("axis {i} repeated {r} times"),
                i128::from(d) * i128::from(r),
            )
        })
        .collect()
}

/// DepthToSpace: `[N, C, H, W]` to `[N, C/b², H·b, W·b]`.
pub fn depth_to_space(x: &[i64], blocksize: i64) -> ShapeResult {
    const OP: &str = "DepthToSpace";
    check_dims(OP, "input", x)?;
    if x.len() != 4 || blocksize < 1 {
        return fail(
            OP,
            format!(
                "needs a 4-D input and blocksize >= 1, got {} and {blocksize}",
                fmt_shape(x)
            ),
        );
    }
    let b = i128::from(blocksize);
    let bb = b * b;
    if i128::from(x[1]) % bb != 0 {
        return fail(
            OP,
            format!("{} channels are not divisible by blocksize² = {bb}", x[1]),
        );
    }
    Ok(vec![
        x[0],
        (i128::from(x[1]) / bb) as i64,
        dimension(OP, "the output height", i128::from(x[2]) * b)?,
        dimension(OP, "the output width", i128::from(x[3]) * b)?,
    ])
}

/// SpaceToDepth: `[N, C, H, W]` to `[N, C·b², H/b, W/b]`.
pub fn space_to_depth(x: &[i64], blocksize: i64) -> ShapeResult {
    const OP: &str = "SpaceToDepth";
    check_dims(OP, "input", x)?;
    if x.len() != 4 || blocksize < 1 {
        return fail(
            OP,
            format!(
                "needs a 4-D input and blocksize >= 1, got {} and {blocksize}",
                fmt_shape(x)
            ),
        );
    }
    if x[2] % blocksize != 0 || x[3] % blocksize != 0 {
        return fail(
            OP,
            format!(
                "spatial dims {}x{} are not divisible by blocksize {blocksize}",
                x[2], x[3]
            ),
        );
    }
    let b = i128::from(blocksize);
    Ok(vec![
        x[0],
        dimension(OP, "the output channel count", i128::from(x[1]) * b * b)?,
        x[2] / blocksize,
        x[3] / blocksize,
    ])
}

// ---------------------------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------------------------

/// Resolved reduction: the reduced axes (sorted; empty means the identity) and output shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceGeometry {
    pub axes: Vec<usize>,
    pub output: Vec<i64>,
}

/// Reduce* (opset 18, axes as an input): no axes reduce everything, unless
/// `noop_with_empty_axes`, which makes the op the identity.
pub fn reduce_geometry(
    op: &'static str,
    x: &[i64],
    axes: &[i64],
    keepdims: bool,
    noop_with_empty_axes: bool,
) -> ShapeResult<ReduceGeometry> {
    check_dims(op, "input", x)?;
    let mut axes = if axes.is_empty() {
        if noop_with_empty_axes {
            vec![]
        } else {
            (0..x.len()).collect()
        }
    } else {
        normalize_axes(op, axes, x.len())?
    };
    axes.sort_unstable();
    let mut output = Vec::with_capacity(x.len());
    for (i, &d) in x.iter().enumerate() {
        if !axes.contains(&i) {
            output.push(d);
        } else if keepdims {
            output.push(1);
        }
    }
    Ok(ReduceGeometry { axes, output })
}

/// Reduce* output shape.
pub fn reduce(
    op: &'static str,
    x: &[i64],
    axes: &[i64],
    keepdims: bool,
    noop_with_empty_axes: bool,
) -> ShapeResult {
    reduce_geometry(op, x, axes, keepdims, noop_with_empty_axes).map(|g| g.output)
}

/// ArgMax/ArgMin along one axis.
pub fn arg_reduce(op: &'static str, x: &[i64], axis: i64, keepdims: bool) -> ShapeResult {
    check_dims(op, "input", x)?;
    if x.is_empty() {
        return fail(op, "input must have rank >= 1");
    }
    let a = normalize_axis(op, axis, x.len())?;
    if x[a] == 0 {
        return fail(op, format!("cannot take the arg of an empty axis {a}"));
    }
    let mut out = x.to_vec();
    if keepdims {
        out[a] = 1;
    } else {
        out.remove(a);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Shape-producing ops
// ---------------------------------------------------------------------------------------------

/// Range: `[max(ceil((limit - start) / delta), 0)]`, for floating-point operands.
pub fn range(start: f64, limit: f64, delta: f64) -> ShapeResult {
    const OP: &str = "Range";
    if delta == 0.0 || !delta.is_finite() || !start.is_finite() || !limit.is_finite() {
        return fail(
            OP,
            format!(
                "start {start}, limit {limit} and delta {delta} must be finite and delta non-zero"
            ),
        );
    }
    let count = ((limit - start) / delta).ceil().max(0.0);
    // 2^63 is the first float a 64-bit dimension cannot hold (an `as` cast would saturate);
    // finite operands make a count that is not NaN.
    if count >= 9_223_372_036_854_775_808.0 {
        return fail(
            OP,
            format!(
                "start {start:?}, limit {limit:?} and delta {delta:?} make {count:?} elements, which overflows a 64-bit dimension"
            ),
        );
    }
    Ok(vec![count as i64])
}

/// Range for integer operands, computed exactly.
pub fn range_int(start: i64, limit: i64, delta: i64) -> ShapeResult {
    if delta == 0 {
        return fail("Range", "delta must be non-zero");
    }
    let span = limit as i128 - start as i128;
    let d = delta as i128;
    // ceil(span / d) for either sign of d.
    let n = if (span > 0) == (d > 0) && span != 0 {
        (span + d - d.signum()) / d
    } else {
        0
    };
    Ok(vec![dimension("Range", "the element count", n.max(0))?])
}

/// Shape (opset 15): the clamped `[start, end)` window of dimensions it returns.
pub fn shape_bounds(x: &[i64], start: Option<i64>, end: Option<i64>) -> (usize, usize) {
    let r = x.len() as i64;
    let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let s = clamp(start.unwrap_or(0));
    let e = clamp(end.unwrap_or(r));
    (s, e.max(s))
}

/// Shape output shape: `[end - start]`.
pub fn shape_op(x: &[i64], start: Option<i64>, end: Option<i64>) -> ShapeResult {
    let (s, e) = shape_bounds(x, start, end);
    Ok(vec![(e - s) as i64])
}

/// ConstantOfShape: the values of its 1-D input are the output shape.
pub fn constant_of_shape(shape: &[i64]) -> ShapeResult {
    check_dims("ConstantOfShape", "shape", shape)?;
    Ok(shape.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg<T: fmt::Debug>(r: ShapeResult<T>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn broadcasting() {
        assert_eq!(
            broadcast("Add", &[&[2, 3, 4], &[4]]).unwrap(),
            vec![2, 3, 4]
        );
        assert_eq!(
            broadcast("Add", &[&[2, 1, 4], &[3, 1]]).unwrap(),
            vec![2, 3, 4]
        );
        assert_eq!(broadcast("Add", &[&[], &[5]]).unwrap(), vec![5]);
        assert_eq!(broadcast("Add", &[&[0, 1], &[1, 3]]).unwrap(), vec![0, 3]);
        assert_eq!(
            broadcast("Where", &[&[1, 3], &[2, 1], &[]]).unwrap(),
            vec![2, 3]
        );
        assert!(
            msg(broadcast("Add", &[&[2, 3], &[4]]))
                .starts_with("Add: shapes [2, 3], [4] are not broadcastable")
        );
        assert!(msg(broadcast("Add", &[&[0], &[3]])).contains("not broadcastable"));
        assert!(msg(broadcast("Add", &[])).contains("at least one"));
        assert!(msg(broadcast("Add", &[&[-1]])).contains("negative"));
        assert!(unidirectional_broadcast("X", &[3, 1], &[2, 3, 4]).is_ok());
        assert!(unidirectional_broadcast("X", &[2, 3, 4], &[3, 4]).is_err());
    }

    #[test]
    fn matmul_shapes() {
        assert_eq!(matmul(&[2, 3], &[3, 4]).unwrap(), vec![2, 4]);
        assert_eq!(matmul(&[3], &[3]).unwrap(), Vec::<i64>::new());
        assert_eq!(matmul(&[3], &[5, 3, 4]).unwrap(), vec![5, 4]);
        assert_eq!(matmul(&[5, 2, 3], &[3]).unwrap(), vec![5, 2]);
        assert_eq!(matmul(&[2, 1, 4, 3], &[5, 3, 6]).unwrap(), vec![2, 5, 4, 6]);
        assert!(msg(matmul(&[2, 3], &[4, 5])).contains("A [2, 3] has K=3 but B [4, 5] has K=4"));
        assert!(msg(matmul(&[], &[3])).contains("rank >= 1"));
        assert!(msg(matmul(&[2, 2, 3], &[3, 3, 4])).contains("not broadcastable"));
    }

    #[test]
    fn gemm_shapes() {
        assert_eq!(
            gemm(&[3, 5], &[5, 4], Some(&[4]), false, false).unwrap(),
            vec![3, 4]
        );
        assert_eq!(
            gemm(&[5, 3], &[4, 5], Some(&[3, 1]), true, true).unwrap(),
            vec![3, 4]
        );
        assert_eq!(
            gemm(&[5, 3], &[5, 4], None, true, false).unwrap(),
            vec![3, 4]
        );
        assert!(
            msg(gemm(&[3, 5], &[4, 5], None, false, false)).contains("inner dimensions differ")
        );
        assert!(
            msg(gemm(&[3, 5], &[5, 4], Some(&[3]), false, false))
                .contains("C: shape [3] does not broadcast to [3, 4]")
        );
        assert!(msg(gemm(&[3], &[3, 4], None, false, false)).contains("must be 2-D"));
    }

    #[test]
    fn conv_shapes() {
        let a = ConvAttrs {
            pads: vec![1, 1, 1, 1],
            ..Default::default()
        };
        assert_eq!(
            conv(&[1, 1, 5, 5], &[1, 1, 3, 3], None, &a).unwrap(),
            vec![1, 1, 5, 5]
        );
        // ResNet stem: 7x7 stride 2 pad 3.
        let a = ConvAttrs {
            strides: vec![2, 2],
            pads: vec![3, 3, 3, 3],
            ..Default::default()
        };
        assert_eq!(
            conv(&[1, 3, 224, 224], &[64, 3, 7, 7], Some(&[64]), &a).unwrap(),
            vec![1, 64, 112, 112]
        );
        // Strides 2 without pads on 7x5 (ONNX conv_with_strides_no_padding): 3x2.
        let a = ConvAttrs {
            strides: vec![2, 2],
            ..Default::default()
        };
        assert_eq!(
            conv(&[1, 1, 7, 5], &[1, 1, 3, 3], None, &a).unwrap(),
            vec![1, 1, 3, 2]
        );
        // Dilation 2: effective kernel 5.
        let a = ConvAttrs {
            dilations: vec![2, 2],
            ..Default::default()
        };
        assert_eq!(
            conv(&[1, 1, 7, 7], &[1, 1, 3, 3], None, &a).unwrap(),
            vec![1, 1, 3, 3]
        );
        // Groups (depthwise).
        let a = ConvAttrs {
            group: 4,
            ..Default::default()
        };
        assert_eq!(
            conv(&[2, 4, 5], &[8, 1, 3], None, &a).unwrap(),
            vec![2, 8, 3]
        );
        // SAME_UPPER / SAME_LOWER with stride 2 on 5: out 3, total pad 2 (k=3) -> (1,1);
        // k=4: total 3 -> upper (1,2), lower (2,1).
        let a = ConvAttrs {
            strides: vec![2],
            auto_pad: AutoPad::SameUpper,
            ..Default::default()
        };
        let g = conv_geometry(&[1, 1, 5], &[1, 1, 4], None, &a).unwrap();
        assert_eq!(
            (g.output, g.pads_begin, g.pads_end),
            (vec![1, 1, 3], vec![1], vec![2])
        );
        let a = ConvAttrs {
            auto_pad: AutoPad::SameLower,
            ..a
        };
        let g = conv_geometry(&[1, 1, 5], &[1, 1, 4], None, &a).unwrap();
        assert_eq!((g.pads_begin, g.pads_end), (vec![2], vec![1]));
        // VALID ignores pads.
        let a = ConvAttrs {
            auto_pad: AutoPad::Valid,
            pads: vec![5, 5],
            ..Default::default()
        };
        assert_eq!(
            conv(&[1, 1, 5], &[1, 1, 3], None, &a).unwrap(),
            vec![1, 1, 3]
        );
    }

    #[test]
    fn conv_errors() {
        let d = ConvAttrs::default();
        assert_eq!(
            msg(conv(&[1, 3, 5, 5], &[2, 4, 3, 3], None, &d)),
            "Conv: input has 3 channels but weight expects 4 (group=1)"
        );
        assert!(msg(conv(&[1, 3], &[2, 3], None, &d)).contains("at least one spatial"));
        assert!(msg(conv(&[1, 3, 5], &[2, 3, 3, 3], None, &d)).contains("rank of the input"));
        let k = ConvAttrs {
            kernel_shape: Some(vec![2, 2]),
            ..Default::default()
        };
        assert!(msg(conv(&[1, 3, 5, 5], &[2, 3, 3, 3], None, &k)).contains("kernel_shape [2, 2]"));
        let g = ConvAttrs {
            group: 0,
            ..Default::default()
        };
        assert!(msg(conv(&[1, 3, 5], &[2, 3, 3], None, &g)).contains("group must be >= 1"));
        let g = ConvAttrs {
            group: 2,
            ..Default::default()
        };
        assert!(msg(conv(&[1, 4, 5], &[3, 2, 3], None, &g)).contains("not divisible by group=2"));
        assert!(msg(conv(&[1, 3, 5], &[2, 3, 3], Some(&[3]), &d)).contains("bias must be [2]"));
        let s = ConvAttrs {
            strides: vec![0],
            ..Default::default()
        };
        assert!(msg(conv(&[1, 3, 5], &[2, 3, 3], None, &s)).contains("strides must be >= 1"));
        let s = ConvAttrs {
            strides: vec![1, 1],
            ..Default::default()
        };
        assert!(msg(conv(&[1, 3, 5], &[2, 3, 3], None, &s)).contains("strides has 2 values"));
        let p = ConvAttrs {
            pads: vec![1],
            ..Default::default()
        };
        assert!(msg(conv(&[1, 3, 5], &[2, 3, 3], None, &p)).contains("pads has 1 values"));
        let p = ConvAttrs {
            pads: vec![-1, 0],
            ..Default::default()
        };
        assert!(msg(conv(&[1, 3, 5], &[2, 3, 3], None, &p)).contains("non-negative"));
        assert!(
            msg(conv(&[1, 3, 2], &[2, 3, 3], None, &d)).contains("larger than the padded input")
        );
        assert!(
            msg(conv(&[1, 3, 5], &[2, 3, 0], None, &d))
                .contains("kernel dimensions [0] must be >= 1")
        );
        assert!(AutoPad::parse("SAME").is_err());
        assert_eq!(AutoPad::parse("SAME_LOWER"), Ok(AutoPad::SameLower));
    }

    #[test]
    fn conv_transpose_shapes() {
        // ONNX convtranspose: 3x3 input, 3x3 kernel -> 5x5.
        let d = ConvTransposeAttrs::default();
        assert_eq!(
            conv_transpose(&[1, 1, 3, 3], &[1, 2, 3, 3], None, &d).unwrap(),
            vec![1, 2, 5, 5]
        );
        // Strides 3x2, output_padding 1x1 (convtranspose_pad): 10x8.
        let a = ConvTransposeAttrs {
            conv: ConvAttrs {
                strides: vec![3, 2],
                ..Default::default()
            },
            output_padding: vec![1, 1],
            ..Default::default()
        };
        assert_eq!(
            conv_transpose(&[1, 1, 3, 3], &[1, 2, 3, 3], None, &a).unwrap(),
            vec![1, 2, 10, 8]
        );
        // output_shape given (convtranspose_output_shape): full size 9x7, pads derived.
        let a = ConvTransposeAttrs {
            conv: ConvAttrs {
                strides: vec![3, 2],
                ..Default::default()
            },
            output_shape: Some(vec![10, 8]),
            ..Default::default()
        };
        let g = conv_transpose_geometry(&[1, 1, 3, 3], &[1, 2, 3, 3], None, &a).unwrap();
        assert_eq!(g.output, vec![1, 2, 10, 8]);
        assert_eq!((g.pads_begin, g.pads_end), (vec![0, 0], vec![-1, -1]));
        // SAME_UPPER: output = input * stride.
        let a = ConvTransposeAttrs {
            conv: ConvAttrs {
                strides: vec![2, 2],
                auto_pad: AutoPad::SameUpper,
                ..Default::default()
            },
            ..Default::default()
        };
        let g = conv_transpose_geometry(&[1, 1, 3, 3], &[1, 2, 3, 3], None, &a).unwrap();
        assert_eq!(g.output, vec![1, 2, 6, 6]);
        assert_eq!((g.pads_begin, g.pads_end), (vec![0, 0], vec![1, 1]));
        // Pads and groups.
        let a = ConvTransposeAttrs {
            conv: ConvAttrs {
                pads: vec![1, 2, 1, 2],
                group: 2,
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(
            conv_transpose(&[1, 4, 3, 3], &[4, 3, 3, 3], Some(&[6]), &a).unwrap(),
            vec![1, 6, 3, 1]
        );
    }

    #[test]
    fn conv_transpose_errors() {
        let d = ConvTransposeAttrs::default();
        assert!(
            msg(conv_transpose(&[1, 2, 3], &[3, 1, 3], None, &d))
                .contains("input has 2 channels but weight expects 3")
        );
        assert!(
            msg(conv_transpose(&[1, 2, 3], &[2, 1, 3], Some(&[2]), &d))
                .contains("bias must be [1]")
        );
        let a = ConvTransposeAttrs {
            output_shape: Some(vec![1, 2]),
            ..Default::default()
        };
        assert!(msg(conv_transpose(&[1, 2, 3], &[2, 1, 3], None, &a)).contains("output_shape"));
        let a = ConvTransposeAttrs {
            conv: ConvAttrs {
                pads: vec![3, 3],
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(
            msg(conv_transpose(&[1, 2, 3], &[2, 1, 3], None, &a))
                .contains("exceed the output size")
        );
        let a = ConvTransposeAttrs {
            output_padding: vec![-1],
            ..Default::default()
        };
        assert!(
            msg(conv_transpose(&[1, 2, 3], &[2, 1, 3], None, &a))
                .contains("output_padding must be >= 0")
        );
        let a = ConvTransposeAttrs {
            conv: ConvAttrs {
                group: 3,
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(
            msg(conv_transpose(&[1, 2, 3], &[2, 1, 3], None, &a))
                .contains("not divisible by group=3")
        );
    }

    #[test]
    fn pool_shapes() {
        let a = PoolAttrs {
            kernel_shape: vec![3, 3],
            strides: vec![2, 2],
            pads: vec![1, 1, 1, 1],
            ..Default::default()
        };
        assert_eq!(
            pool("MaxPool", &[1, 64, 112, 112], &a).unwrap(),
            vec![1, 64, 56, 56]
        );
        // ceil_mode (maxpool_2d_ceil): 4x4, k3 s2 -> 2x2 (floor would be 1x1).
        let a = PoolAttrs {
            kernel_shape: vec![3, 3],
            strides: vec![2, 2],
            ceil_mode: true,
            ..Default::default()
        };
        assert_eq!(
            pool("MaxPool", &[1, 1, 4, 4], &a).unwrap(),
            vec![1, 1, 2, 2]
        );
        // ceil_mode where the last window would start in the end pad: 1x1 input, k1 s2 pad 1:
        // ceil((3-1)/2)+1 = 2 windows, but the second starts at padded index 2 >= 1 + 1.
        let a = PoolAttrs {
            kernel_shape: vec![1],
            strides: vec![2],
            pads: vec![1, 1],
            ceil_mode: true,
            ..Default::default()
        };
        assert_eq!(pool("AveragePool", &[1, 1, 1], &a).unwrap(), vec![1, 1, 1]);
        // SAME_UPPER: ceil(5/2) = 3.
        let a = PoolAttrs {
            kernel_shape: vec![2],
            strides: vec![2],
            auto_pad: AutoPad::SameUpper,
            ..Default::default()
        };
        let g = pool_geometry("MaxPool", &[1, 1, 5], &a).unwrap();
        assert_eq!(
            (g.output, g.pads_begin, g.pads_end),
            (vec![1, 1, 3], vec![0], vec![1])
        );
        // Dilated pooling.
        let a = PoolAttrs {
            kernel_shape: vec![2, 2],
            dilations: vec![2, 2],
            ..Default::default()
        };
        assert_eq!(
            pool("MaxPool", &[1, 1, 4, 4], &a).unwrap(),
            vec![1, 1, 2, 2]
        );
        assert_eq!(
            global_pool("GlobalAveragePool", &[2, 3, 7, 7]).unwrap(),
            vec![2, 3, 1, 1]
        );
        assert!(msg(global_pool("GlobalMaxPool", &[2, 3])).contains("at least one spatial"));
        let a = PoolAttrs {
            kernel_shape: vec![3],
            ..Default::default()
        };
        assert!(msg(pool("MaxPool", &[1, 1, 4, 4], &a)).contains("kernel_shape has 1 values"));
        let a = PoolAttrs {
            kernel_shape: vec![0],
            ..Default::default()
        };
        assert!(msg(pool("MaxPool", &[1, 1, 4], &a)).contains("kernel_shape must be >= 1"));
        let a = PoolAttrs {
            kernel_shape: vec![5],
            ..Default::default()
        };
        assert!(msg(pool("MaxPool", &[1, 1, 4], &a)).contains("larger than the padded input"));
    }

    #[test]
    fn softmax_and_norms() {
        assert_eq!(softmax("Softmax", &[2, 3], -1).unwrap(), vec![2, 3]);
        assert!(msg(softmax("Softmax", &[2, 3], 2)).contains("axis 2 is out of range for rank 2"));
        assert!(msg(softmax("LogSoftmax", &[], 0)).contains("rank >= 1"));
        assert_eq!(
            batch_norm(&[2, 3, 4], &[3], &[3], &[3], &[3]).unwrap(),
            vec![2, 3, 4]
        );
        assert!(
            msg(batch_norm(&[2, 3, 4], &[3], &[3], &[4], &[3])).contains("input_mean must be [3]")
        );
        assert!(msg(batch_norm(&[2], &[2], &[2], &[2], &[2])).contains("[N, C, ...]"));
        assert_eq!(
            instance_norm(&[2, 3, 4], &[3], &[3]).unwrap(),
            vec![2, 3, 4]
        );
        assert!(msg(instance_norm(&[2, 3, 4], &[3], &[2])).contains("B must be [3]"));
        let l = layer_norm(&[2, 3, 4], &[3, 4], Some(&[4]), 1).unwrap();
        assert_eq!((l.axis, l.y, l.stats), (1, vec![2, 3, 4], vec![2, 1, 1]));
        assert_eq!(
            layer_norm(&[2, 3, 4], &[4], None, -1).unwrap().stats,
            vec![2, 3, 1]
        );
        assert!(
            msg(layer_norm(&[2, 3, 4], &[3], None, -1))
                .contains("Scale: shape [3] does not broadcast")
        );
        assert!(msg(layer_norm(&[2, 3, 4], &[4], Some(&[2]), -1)).contains("B: "));
        assert!(msg(layer_norm(&[2, 3, 4], &[4], None, 3)).contains("out of range"));
    }

    #[test]
    fn reshape_and_flatten() {
        assert_eq!(reshape(&[2, 3, 4], &[4, -1], false).unwrap(), vec![4, 6]);
        assert_eq!(reshape(&[2, 3, 4], &[0, -1], false).unwrap(), vec![2, 12]);
        assert_eq!(reshape(&[0, 3], &[3, 0], true).unwrap(), vec![3, 0]);
        assert_eq!(
            reshape(&[2, 3], &[], false).unwrap_err().message,
            "cannot reshape [2, 3] (6 elements) to []"
        );
        assert_eq!(reshape(&[1], &[], false).unwrap(), Vec::<i64>::new());
        assert!(msg(reshape(&[2, 3], &[-1, -1], false)).contains("more than one -1"));
        assert!(msg(reshape(&[2, 3], &[5, -1], false)).contains("cannot infer -1"));
        assert!(msg(reshape(&[2, 3], &[0, 0, 0], false)).contains("copies dimension 2"));
        assert!(msg(reshape(&[2, 3], &[-2, 3], false)).contains("invalid dimension -2"));
        assert!(msg(reshape(&[0, 3], &[0, -1], true)).contains("both 0 and -1"));
        assert_eq!(flatten(&[2, 3, 4], 1).unwrap(), vec![2, 12]);
        assert_eq!(flatten(&[2, 3, 4], 0).unwrap(), vec![1, 24]);
        assert_eq!(flatten(&[2, 3, 4], 3).unwrap(), vec![24, 1]);
        assert_eq!(flatten(&[2, 3, 4], -1).unwrap(), vec![6, 4]);
        assert!(msg(flatten(&[2, 3], 3)).contains("out of range [-2, 2]"));
    }

    #[test]
    fn transpose_squeeze_unsqueeze() {
        assert_eq!(transpose(&[2, 3, 4], None).unwrap(), vec![4, 3, 2]);
        assert_eq!(
            transpose(&[2, 3, 4], Some(&[1, 0, 2])).unwrap(),
            vec![3, 2, 4]
        );
        assert!(msg(transpose(&[2, 3], Some(&[0, 0]))).contains("not a permutation"));
        assert!(msg(transpose(&[2, 3], Some(&[0]))).contains("has 1 entries"));
        assert_eq!(squeeze(&[1, 3, 1, 2], None).unwrap(), vec![3, 2]);
        assert_eq!(squeeze(&[1, 3, 1, 2], Some(&[-2])).unwrap(), vec![1, 3, 2]);
        assert!(msg(squeeze(&[1, 3], Some(&[1]))).contains("its size is 3, not 1"));
        assert!(msg(squeeze(&[1, 1], Some(&[0, -2]))).contains("repeated"));
        assert!(msg(squeeze(&[1, 1], Some(&[2]))).contains("out of range"));
        assert_eq!(unsqueeze(&[3, 4], &[0, 3]).unwrap(), vec![1, 3, 4, 1]);
        assert_eq!(unsqueeze(&[3, 4], &[-1]).unwrap(), vec![3, 4, 1]);
        assert_eq!(unsqueeze(&[], &[0]).unwrap(), vec![1]);
        assert!(msg(unsqueeze(&[3], &[3])).contains("out of range for rank 2"));
        assert!(msg(unsqueeze(&[3], &[0, 0])).contains("repeated"));
    }

    #[test]
    fn concat_split() {
        assert_eq!(concat(&[&[2, 3], &[2, 5]], -1).unwrap(), vec![2, 8]);
        assert!(msg(concat(&[&[2, 3], &[3, 5]], 1)).contains("input 1 [3, 5] does not match"));
        assert!(msg(concat(&[], 0)).contains("at least one"));
        assert!(msg(concat(&[&[]], 0)).contains("rank >= 1"));
        assert_eq!(
            split(&[6, 2], 0, Some(&[1, 5]), None).unwrap(),
            vec![vec![1, 2], vec![5, 2]]
        );
        assert_eq!(
            split(&[2, 7], 1, None, Some(3)).unwrap(),
            vec![vec![2, 3], vec![2, 3], vec![2, 1]]
        );
        assert!(msg(split(&[6], 0, Some(&[1, 2]), None)).contains("sum to the axis size 6"));
        assert!(msg(split(&[5], 0, None, Some(4))).contains("cannot split"));
        assert!(msg(split(&[5], 0, None, Some(0))).contains(">= 1"));
        assert!(msg(split(&[5], 0, None, None)).contains("needs either"));
    }

    #[test]
    fn slices() {
        // ONNX slice example: data 2x4, starts [1,0], ends [2,3], steps [1,2] -> [1, 2].
        assert_eq!(
            slice(&[2, 4], &[1, 0], &[2, 3], Some(&[0, 1]), Some(&[1, 2])).unwrap(),
            vec![1, 2]
        );
        // End clamped to INT_MAX and negative starts.
        assert_eq!(
            slice(
                &[20, 10, 5],
                &[0, -3],
                &[i64::MAX, i64::MAX],
                Some(&[0, 1]),
                None
            )
            .unwrap(),
            vec![20, 3, 5]
        );
        // Negative step: start -1, end i64::MIN -> whole axis reversed.
        let g = slice_geometry(&[20, 10, 5], &[-1], &[i64::MIN], Some(&[1]), Some(&[-1])).unwrap();
        assert_eq!(
            (g.output, g.starts, g.steps),
            (vec![20, 10, 5], vec![0, 9, 0], vec![1, -1, 1])
        );
        // Negative step with stride 3 from 9 down to (exclusive) 0: 9, 6, 3.
        assert_eq!(
            slice(&[10], &[20], &[0], None, Some(&[-3])).unwrap(),
            vec![3]
        );
        // Empty results.
        assert_eq!(slice(&[10], &[5], &[2], None, None).unwrap(), vec![0]);
        assert_eq!(
            slice(&[0], &[0], &[-1], None, Some(&[-1])).unwrap(),
            vec![0]
        );
        assert!(msg(slice(&[10], &[0], &[1], None, Some(&[0]))).contains("step for axis 0 is 0"));
        assert!(msg(slice(&[10], &[0], &[1, 2], None, None)).contains("ends has 2"));
        assert!(msg(slice(&[10], &[0, 0], &[1, 2], None, None)).contains("rank 1"));
        assert!(msg(slice(&[10], &[0], &[1], Some(&[0, 1]), None)).contains("axes has 2"));
        assert!(msg(slice(&[10], &[0], &[1], None, Some(&[1, 1]))).contains("steps has 2"));
    }

    #[test]
    fn gathers_expand_pad_tile() {
        assert_eq!(gather(&[5, 4, 3], &[2, 2], 1).unwrap(), vec![5, 2, 2, 3]);
        assert_eq!(gather(&[5, 4], &[], 0).unwrap(), vec![4]);
        assert!(msg(gather(&[], &[1], 0)).contains("rank >= 1"));
        assert!(msg(gather(&[5], &[1], 1)).contains("out of range"));
        assert_eq!(gather_elements(&[3, 3], &[2, 3], 0).unwrap(), vec![2, 3]);
        assert!(msg(gather_elements(&[3, 3], &[2], 0)).contains("same rank"));
        assert!(msg(gather_elements(&[3, 3], &[2, 4], 0)).contains("exceed data"));
        assert_eq!(expand(&[3, 1], &[2, 1, 6]).unwrap(), vec![2, 3, 6]);
        assert_eq!(expand(&[3, 4], &[1]).unwrap(), vec![3, 4]);
        assert!(msg(expand(&[3, 4], &[2, 1])).starts_with("Expand: "));
        let g = pad_geometry(&[3, 4], &[0, 2, 0, 0], None).unwrap();
        assert_eq!((g.output, g.begin), (vec![3, 6], vec![0, 2]));
        assert_eq!(pad(&[3, 4], &[1, -2], Some(&[-1])).unwrap(), vec![3, 3]);
        assert!(msg(pad(&[3, 4], &[1, 2], None)).contains("needs 2 x 2"));
        assert!(msg(pad(&[3, 4], &[-3, -2], Some(&[1]))).contains("crop more than"));
        assert_eq!(tile(&[2, 3], &[2, 0]).unwrap(), vec![4, 0]);
        assert!(msg(tile(&[2, 3], &[2])).contains("repeats has 1"));
        assert!(msg(tile(&[2, 3], &[2, -1])).contains("non-negative"));
        assert_eq!(depth_to_space(&[1, 8, 2, 3], 2).unwrap(), vec![1, 2, 4, 6]);
        assert!(msg(depth_to_space(&[1, 6, 2, 3], 2)).contains("not divisible"));
        assert_eq!(space_to_depth(&[1, 2, 4, 6], 2).unwrap(), vec![1, 8, 2, 3]);
        assert!(msg(space_to_depth(&[1, 2, 3, 6], 2)).contains("not divisible"));
        assert!(msg(space_to_depth(&[2, 3, 6], 2)).contains("4-D"));
    }

    #[test]
    fn reductions() {
        let g = reduce_geometry("ReduceSum", &[2, 3, 4], &[-1, 0], true, false).unwrap();
        assert_eq!((g.axes, g.output), (vec![0, 2], vec![1, 3, 1]));
        assert_eq!(
            reduce("ReduceSum", &[2, 3, 4], &[1], false, false).unwrap(),
            vec![2, 4]
        );
        assert_eq!(
            reduce("ReduceSum", &[2, 3, 4], &[], false, false).unwrap(),
            Vec::<i64>::new()
        );
        assert_eq!(
            reduce("ReduceSum", &[2, 3, 4], &[], true, false).unwrap(),
            vec![1, 1, 1]
        );
        let g = reduce_geometry("ReduceSum", &[2, 3], &[], true, true).unwrap();
        assert_eq!((g.axes, g.output), (vec![], vec![2, 3]));
        assert!(msg(reduce("ReduceMax", &[2, 3], &[0, -2], true, false)).contains("repeated"));
        assert!(
            msg(reduce("ReduceMax", &[2, 3], &[2], true, false)).starts_with("ReduceMax: axis 2")
        );
        assert_eq!(
            arg_reduce("ArgMax", &[2, 3, 4], 1, true).unwrap(),
            vec![2, 1, 4]
        );
        assert_eq!(
            arg_reduce("ArgMin", &[2, 3, 4], -1, false).unwrap(),
            vec![2, 3]
        );
        assert!(msg(arg_reduce("ArgMax", &[], 0, true)).contains("rank >= 1"));
        assert!(msg(arg_reduce("ArgMax", &[2, 0], 1, true)).contains("empty axis"));
    }

    /// Sizes are computed exactly and must fit in 64 bits: an overflow is an error naming
    /// the dimension, never a wrapped (or negative) size.
    #[test]
    fn sizes_that_overflow_64_bits_are_errors() {
        const MAX: i64 = i64::MAX;
        let overflows = |r: ShapeResult| {
            let m = msg(r);
            assert!(m.contains("overflows a 64-bit dimension"), "{m}");
        };
        // Conv with pads of i64::MAX (onnxruntime reports the overflow).
        let a = ConvAttrs {
            pads: vec![MAX, MAX, MAX, MAX],
            ..Default::default()
        };
        overflows(conv(&[1, 1, 4, 4], &[1, 1, 1, 1], None, &a));
        let a = ConvAttrs {
            pads: vec![MAX, 0],
            ..Default::default()
        };
        overflows(conv(&[1, 1, 4], &[1, 1, 3], None, &a));
        // A huge dilated kernel is larger than any input, not a wrapped span.
        let a = ConvAttrs {
            dilations: vec![MAX],
            ..Default::default()
        };
        assert!(msg(conv(&[1, 1, 4], &[1, 1, 3], None, &a)).contains("larger than the padded"));
        let a = ConvAttrs {
            group: MAX,
            ..Default::default()
        };
        assert!(msg(conv(&[1, 4, 4], &[4, 2, 1], None, &a)).contains("channels"));
        let a = PoolAttrs {
            kernel_shape: vec![1],
            pads: vec![MAX, MAX],
            ceil_mode: true,
            ..Default::default()
        };
        overflows(pool("MaxPool", &[1, 1, 4], &a));
        let a = PoolAttrs {
            kernel_shape: vec![MAX],
            dilations: vec![4],
            auto_pad: AutoPad::SameUpper,
            ..Default::default()
        };
        overflows(pool("MaxPool", &[1, 1, MAX], &a));
        let a = ConvTransposeAttrs {
            conv: ConvAttrs {
                strides: vec![MAX],
                ..Default::default()
            },
            ..Default::default()
        };
        overflows(conv_transpose(&[1, 2, 3], &[2, 1, 3], None, &a));
        let a = ConvTransposeAttrs {
            conv: ConvAttrs {
                group: MAX,
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(msg(conv_transpose(&[1, 2, 3], &[2, 2, 3], None, &a)).contains("divisible"));
        overflows(pad(&[4], &[MAX, MAX], None));
        overflows(tile(&[1 << 62], &[4]));
        assert!(msg(concat(&[&[MAX], &[1]], 0)).contains("more than 2^63 - 1"));
        assert!(msg(split(&[4], 0, Some(&[MAX, MAX, 6]), None)).contains("sum to the axis size"));
        assert_eq!(
            split(&[MAX], 0, None, Some(2)).unwrap(),
            vec![vec![MAX / 2 + 1], vec![MAX / 2]]
        );
        overflows(depth_to_space(&[1, 4, MAX, 1], 2));
        assert!(msg(depth_to_space(&[1, 4, 1, 1], MAX)).contains("not divisible"));
        overflows(space_to_depth(&[1, MAX, 2, 2], 2));
        overflows(range(0.0, 1e300, 1.0));
        overflows(range_int(i64::MIN, MAX, 1));
        assert_eq!(range_int(0, MAX, 1).unwrap(), vec![MAX]);
        // Flatten never makes a negative dimension: the products are checked.
        assert!(msg(flatten(&[1 << 32, 1 << 32, 2], 2)).contains("more than 2^63 - 1 elements"));
    }

    #[test]
    fn shape_producers() {
        assert_eq!(range(3.0, 9.0, 3.0).unwrap(), vec![2]);
        assert_eq!(range(10.0, 4.0, -3.0).unwrap(), vec![2]);
        assert_eq!(range(0.0, 1.0, 0.3).unwrap(), vec![4]);
        assert_eq!(range(5.0, 1.0, 1.0).unwrap(), vec![0]);
        assert!(msg(range(0.0, 1.0, 0.0)).contains("delta"));
        assert!(msg(range(0.0, f64::INFINITY, 1.0)).contains("finite"));
        assert_eq!(range_int(3, 9, 3).unwrap(), vec![2]);
        assert_eq!(range_int(10, 4, -3).unwrap(), vec![2]);
        assert_eq!(range_int(0, 10, 3).unwrap(), vec![4]);
        assert_eq!(range_int(5, 1, 1).unwrap(), vec![0]);
        assert_eq!(range_int(i64::MIN, i64::MAX, i64::MAX).unwrap(), vec![3]);
        assert!(range_int(0, 1, 0).is_err());
        assert_eq!(shape_op(&[2, 3, 4], None, None).unwrap(), vec![3]);
        assert_eq!(shape_bounds(&[2, 3, 4], Some(-2), None), (1, 3));
        assert_eq!(shape_bounds(&[2, 3, 4], Some(-10), Some(10)), (0, 3));
        assert_eq!(shape_op(&[2, 3, 4], Some(2), Some(1)).unwrap(), vec![0]);
        assert_eq!(constant_of_shape(&[2, 0]).unwrap(), vec![2, 0]);
        assert!(msg(constant_of_shape(&[-1])).contains("negative"));
    }
}
