//! Resize (and Upsample, which is Resize with asymmetric coordinates and floor rounding).
//!
//! Resizing is separable: along each axis, every output coordinate maps back to a
//! position in the input ([`CoordinateMode`]) and reads a few input elements there with
//! weights (one for nearest, two for linear, four for cubic; indices clamped to the edge,
//! as ONNX's reference pads with edge values). With `antialias`, linear and cubic
//! downsampling stretch their kernel by `1 / scale`, reading more samples. [`axis_taps`] computes those reads once
//! per axis; the kernel and the te lowering both evaluate the same tables, an output
//! element being the weighted sum over every combination of its axes' taps.

use super::{KernelResult, fail, make, output_count};
use crate::tensor::{Element, Tensor, with_data};

/// How values between input samples are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResizeMode {
    Nearest,
    Linear,
    Cubic,
}

/// How an output coordinate maps back to an input coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoordinateMode {
    HalfPixel,
    HalfPixelSymmetric,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    TfCropAndResize,
}

/// How nearest mode rounds an input coordinate to a sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NearestMode {
    RoundPreferFloor,
    RoundPreferCeil,
    Floor,
    Ceil,
}

impl ResizeMode {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "nearest" => ResizeMode::Nearest,
            "linear" => ResizeMode::Linear,
            "cubic" => ResizeMode::Cubic,
            _ => return None,
        })
    }
}

impl CoordinateMode {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "half_pixel" => CoordinateMode::HalfPixel,
            "half_pixel_symmetric" => CoordinateMode::HalfPixelSymmetric,
            "pytorch_half_pixel" => CoordinateMode::PytorchHalfPixel,
            "align_corners" => CoordinateMode::AlignCorners,
            "asymmetric" => CoordinateMode::Asymmetric,
            "tf_crop_and_resize" => CoordinateMode::TfCropAndResize,
            _ => return None,
        })
    }
}

impl NearestMode {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "round_prefer_floor" => NearestMode::RoundPreferFloor,
            "round_prefer_ceil" => NearestMode::RoundPreferCeil,
            "floor" => NearestMode::Floor,
            "ceil" => NearestMode::Ceil,
            _ => return None,
        })
    }
}

/// Resize's attributes, with the per-axis `scales` the coordinates use (for `sizes`
/// given, output size over input size) and the region of interest (`roi`: starts then
/// ends, one per axis; used by `tf_crop_and_resize` only).
#[derive(Clone, Debug, PartialEq)]
pub struct ResizeAttrs {
    pub mode: ResizeMode,
    pub coordinate: CoordinateMode,
    pub nearest: NearestMode,
    pub cubic_coeff_a: f64,
    pub exclude_outside: bool,
    pub extrapolation_value: f64,
    pub antialias: bool,
    pub scales: Vec<f64>,
    pub roi: Vec<f64>,
}

/// The reads of one axis: output coordinate `o` reads input index `index[o * taps + t]`
/// with weight `weight[o * taps + t]`; `inside[o]` is false where `tf_crop_and_resize`
/// maps `o` outside the input (the output is then the extrapolation value).
#[derive(Clone, Debug, PartialEq)]
pub struct AxisTaps {
    pub taps: usize,
    pub index: Vec<i64>,
    pub weight: Vec<f64>,
    pub inside: Vec<bool>,
}

impl AxisTaps {
    /// Whether the axis is read one to one (output coordinate `o` reads input `o`).
    pub fn is_identity(&self) -> bool {
        self.taps == 1
            && self.inside.iter().all(|&b| b)
            && self.index.iter().enumerate().all(|(o, &i)| i == o as i64)
    }
}

/// The input coordinate output coordinate `x` maps to along an axis. The modes that
/// stretch to the output's length use the scaled length `scale * in_len`, not the rounded
/// output size, as ONNX's reference does.
fn original_coordinate(
    x: f64,
    scale: f64,
    in_len: i64,
    out_len: i64,
    roi: (f64, f64),
    mode: CoordinateMode,
) -> f64 {
    let n = in_len as f64;
    let m = scale * n;
    match mode {
        CoordinateMode::HalfPixel => (x + 0.5) / scale - 0.5,
        CoordinateMode::HalfPixelSymmetric => {
            let adjustment = out_len as f64 / m;
            let center = n / 2.0;
            center * (1.0 - adjustment) + (x + 0.5) / scale - 0.5
        }
        CoordinateMode::PytorchHalfPixel => {
            if m == 1.0 {
                -0.5
            } else {
                (x + 0.5) / scale - 0.5
            }
        }
        CoordinateMode::AlignCorners => {
            if m == 1.0 {
                0.0
            } else {
                x * (n - 1.0) / (m - 1.0)
            }
        }
        CoordinateMode::Asymmetric => x / scale,
        CoordinateMode::TfCropAndResize => {
            let (start, end) = roi;
            if m == 1.0 {
                0.5 * (start + end) * (n - 1.0)
            } else {
                start * (n - 1.0) + x * (end - start) * (n - 1.0) / (m - 1.0)
            }
        }
    }
}

/// Keys' cubic convolution weights of the four samples around a position `ratio` past
/// the second one.
fn cubic_weights(ratio: f64, a: f64) -> [f64; 4] {
    let far = |d: f64| ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a;
    let near = |d: f64| ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0;
    [
        far(ratio + 1.0),
        near(ratio),
        near(1.0 - ratio),
        far(2.0 - ratio),
    ]
}

/// Keys' cubic kernel at distance `x`.
fn cubic_kernel(x: f64, a: f64) -> f64 {
    let x = x.abs();
    let (x2, x3) = (x * x, x * x * x);
    if x <= 1.0 {
        (a + 2.0) * x3 - (a + 3.0) * x2 + 1.0
    } else if x < 2.0 {
        a * x3 - 5.0 * a * x2 + 8.0 * a * x - 4.0 * a
    } else {
        0.0
    }
}

/// Antialiased weights: the kernel stretched by `1 / scale` (when downsampling), over
/// the samples it covers from `first` samples before the one at or left of the
/// position, normalized to sum to 1.
fn antialias_weights(ratio: f64, scale: f64, mode: ResizeMode, a: f64) -> (i64, Vec<f64>) {
    let s = scale.min(1.0);
    let radius = if mode == ResizeMode::Cubic { 2.0 } else { 1.0 };
    let first = (-radius / s).floor() as i64 + 1;
    let count = 2 - 2 * first;
    let weights: Vec<f64> = (first..first + count)
        .map(|i| {
            let x = s * (i as f64 - ratio);
            if mode == ResizeMode::Cubic {
                cubic_kernel(x, a)
            } else {
                (1.0 - x.abs()).clamp(0.0, 1.0)
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    (first, weights.iter().map(|w| w / total).collect())
}

/// The reads of every output coordinate along one axis.
pub fn axis_taps(
    in_len: i64,
    out_len: i64,
    scale: f64,
    roi: (f64, f64),
    attrs: &ResizeAttrs,
) -> AxisTaps {
    let antialias = attrs.antialias && attrs.mode != ResizeMode::Nearest && scale < 1.0;
    let taps = match attrs.mode {
        ResizeMode::Nearest => 1,
        _ if antialias => antialias_weights(0.0, scale, attrs.mode, attrs.cubic_coeff_a)
            .1
            .len(),
        ResizeMode::Linear => 2,
        ResizeMode::Cubic => 4,
    };
    let last = (in_len - 1).max(0);
    let mut result = AxisTaps {
        taps,
        index: Vec::with_capacity(out_len as usize * taps),
        weight: Vec::with_capacity(out_len as usize * taps),
        inside: Vec::with_capacity(out_len as usize),
    };
    for o in 0..out_len {
        let x = original_coordinate(o as f64, scale, in_len, out_len, roi, attrs.coordinate);
        let inside =
            attrs.coordinate != CoordinateMode::TfCropAndResize || (0.0..=last as f64).contains(&x);
        result.inside.push(inside);
        let floor = x.floor();
        let ratio = x - floor;
        let base = floor as i64;
        match attrs.mode {
            ResizeMode::Nearest => {
                let half = ratio == 0.5;
                let i = match attrs.nearest {
                    NearestMode::RoundPreferFloor if half => floor,
                    NearestMode::RoundPreferCeil if half => floor + 1.0,
                    NearestMode::RoundPreferFloor | NearestMode::RoundPreferCeil => x.round(),
                    NearestMode::Floor => floor,
                    NearestMode::Ceil => x.ceil(),
                };
                result.index.push((i as i64).clamp(0, last));
                result.weight.push(1.0);
            }
            ResizeMode::Linear | ResizeMode::Cubic => {
                let (first, mut weights): (i64, Vec<f64>) = if antialias {
                    let (offset, w) =
                        antialias_weights(ratio, scale, attrs.mode, attrs.cubic_coeff_a);
                    (base + offset, w)
                } else if attrs.mode == ResizeMode::Linear {
                    (base, vec![1.0 - ratio, ratio])
                } else {
                    (base - 1, cubic_weights(ratio, attrs.cubic_coeff_a).to_vec())
                };
                let positions: Vec<i64> = (0..taps as i64).map(|t| first + t).collect();
                if attrs.exclude_outside {
                    for (w, &p) in weights.iter_mut().zip(&positions) {
                        if p < 0 || p > last {
                            *w = 0.0;
                        }
                    }
                    let total: f64 = weights.iter().sum();
                    if total != 0.0 {
                        weights.iter_mut().for_each(|w| *w /= total);
                    }
                }
                result
                    .index
                    .extend(positions.iter().map(|&p| p.clamp(0, last)));
                result.weight.extend(weights);
            }
        }
    }
    result
}

/// The taps of every axis of an `in_shape` input resized to `out_shape`.
pub fn resize_taps(in_shape: &[i64], out_shape: &[i64], attrs: &ResizeAttrs) -> Vec<AxisTaps> {
    let rank = in_shape.len();
    (0..rank)
        .map(|a| {
            let scale = attrs.scales.get(a).copied().unwrap_or(1.0);
            let roi = if attrs.roi.len() == 2 * rank {
                (attrs.roi[a], attrs.roi[rank + a])
            } else {
                (0.0, 1.0)
            };
            axis_taps(in_shape[a], out_shape[a], scale, roi, attrs)
        })
        .collect()
}

/// Resize `x` to `out_shape`. Integers take nearest mode only (weights would round).
pub fn resize(x: &Tensor, out_shape: &[i64], attrs: &ResizeAttrs) -> KernelResult {
    const OP: &str = "Resize";
    let rank = x.rank();
    if out_shape.len() != rank || attrs.scales.len() != rank {
        return fail(
            OP,
            format!(
                "expects {rank} output sizes and scales, got {} and {}",
                out_shape.len(),
                attrs.scales.len()
            ),
        );
    }
    if attrs.scales.iter().any(|&s| !(s > 0.0 && s.is_finite())) {
        return fail(
            OP,
            format!("scales must be positive, got {:?}", attrs.scales),
        );
    }
    if !x.dtype().is_float() && attrs.mode != ResizeMode::Nearest {
        return fail(
            OP,
            format!(
                "{:?} mode needs a floating-point input, got {}",
                attrs.mode,
                x.dtype()
            ),
        );
    }
    let count = output_count(OP, out_shape)?;
    if x.numel() == 0 && count > 0 {
        return fail(OP, "cannot resize an empty input to a non-empty output");
    }
    let taps = resize_taps(x.shape(), out_shape, attrs);
    let in_strides: Vec<usize> = {
        let mut s = vec![1usize; rank];
        for a in (0..rank.saturating_sub(1)).rev() {
            s[a] = s[a + 1] * x.shape()[a + 1] as usize;
        }
        s
    };
    fn go<T: Element>(
        v: &[T],
        out_shape: &[i64],
        count: usize,
        taps: &[AxisTaps],
        in_strides: &[usize],
        extrapolation: f64,
    ) -> Vec<T> {
        let rank = out_shape.len();
        let mut coord = vec![0usize; rank];
        let mut out = Vec::with_capacity(count);
        let mut pick = vec![0usize; rank];
        for _ in 0..count {
            if (0..rank).any(|a| !taps[a].inside[coord[a]]) {
                out.push(T::from_f64(extrapolation));
            } else if taps.iter().all(|t| t.taps == 1) {
                let at: usize = (0..rank)
                    .map(|a| taps[a].index[coord[a]] as usize * in_strides[a])
                    .sum();
                out.push(v[at]);
            } else {
                // Every combination of one tap per axis.
                pick.iter_mut().for_each(|p| *p = 0);
                let mut sum = 0.0;
                loop {
                    let (mut at, mut w) = (0usize, 1.0);
                    for a in 0..rank {
                        let k = coord[a] * taps[a].taps + pick[a];
                        at += taps[a].index[k] as usize * in_strides[a];
                        w *= taps[a].weight[k];
                    }
                    sum += w * v[at].to_f64();
                    // The next combination, the last axis fastest; done after the last.
                    let mut a = rank;
                    let done = loop {
                        if a == 0 {
                            break true;
                        }
                        a -= 1;
                        pick[a] += 1;
                        if pick[a] < taps[a].taps {
                            break false;
                        }
                        pick[a] = 0;
                    };
                    if done {
                        break;
                    }
                }
                out.push(T::from_f64(sum));
            }
            for a in (0..rank).rev() {
                coord[a] += 1;
                if (coord[a] as i64) < out_shape[a] {
                    break;
                }
                coord[a] = 0;
            }
        }
        out
    }
    let data = with_data!(x.data(), v => Element::into_data(
        go(v, out_shape, count, &taps, &in_strides, attrs.extrapolation_value)
    ));
    make(OP, out_shape.to_vec(), data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::TensorData;

    fn attrs(mode: ResizeMode, coordinate: CoordinateMode, scales: &[f64]) -> ResizeAttrs {
        ResizeAttrs {
            mode,
            coordinate,
            nearest: NearestMode::RoundPreferFloor,
            cubic_coeff_a: -0.75,
            exclude_outside: false,
            extrapolation_value: 0.0,
            antialias: false,
            scales: scales.to_vec(),
            roi: Vec::new(),
        }
    }

    fn values(t: &Tensor) -> Vec<f32> {
        t.as_slice::<f32>().unwrap().to_vec()
    }

    #[test]
    fn nearest_asymmetric_floor_repeats_samples() {
        let x = Tensor::new(vec![1, 2], TensorData::F32(vec![1.0, 2.0])).unwrap();
        let mut a = attrs(ResizeMode::Nearest, CoordinateMode::Asymmetric, &[1.0, 2.0]);
        a.nearest = NearestMode::Floor;
        assert_eq!(
            values(&resize(&x, &[1, 4], &a).unwrap()),
            [1.0, 1.0, 2.0, 2.0]
        );
    }

    #[test]
    fn linear_half_pixel_interpolates_and_clamps_at_the_edges() {
        let x = Tensor::new(vec![2], TensorData::F32(vec![1.0, 3.0])).unwrap();
        let a = attrs(ResizeMode::Linear, CoordinateMode::HalfPixel, &[2.0]);
        // Input positions -0.25, 0.25, 0.75, 1.25.
        assert_eq!(values(&resize(&x, &[4], &a).unwrap()), [1.0, 1.5, 2.5, 3.0]);
    }

    #[test]
    fn align_corners_keeps_the_corners() {
        let x = Tensor::new(vec![2], TensorData::F32(vec![1.0, 3.0])).unwrap();
        let a = attrs(ResizeMode::Linear, CoordinateMode::AlignCorners, &[1.5]);
        assert_eq!(values(&resize(&x, &[3], &a).unwrap()), [1.0, 2.0, 3.0]);
    }

    #[test]
    fn cubic_weights_sum_to_one_and_hit_samples() {
        for r in [0.0, 0.25, 0.5, 0.9] {
            let w = cubic_weights(r, -0.75);
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{w:?}");
        }
        assert_eq!(cubic_weights(0.0, -0.5), [0.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn tf_crop_and_resize_extrapolates_outside_the_roi() {
        let x = Tensor::new(vec![2], TensorData::F32(vec![1.0, 3.0])).unwrap();
        let mut a = attrs(ResizeMode::Linear, CoordinateMode::TfCropAndResize, &[1.5]);
        a.roi = vec![0.5, 1.5];
        a.extrapolation_value = 9.0;
        // Input positions 0.5, 1.0, 1.5: the last is outside.
        assert_eq!(values(&resize(&x, &[3], &a).unwrap()), [2.0, 3.0, 9.0]);
    }

    #[test]
    fn antialias_widens_the_kernel_when_downsampling() {
        let x = Tensor::new(vec![4], TensorData::F32(vec![0.0, 4.0, 8.0, 12.0])).unwrap();
        let mut a = attrs(ResizeMode::Linear, CoordinateMode::HalfPixel, &[0.5]);
        a.antialias = true;
        let t = &resize_taps(&[4], &[2], &a)[0];
        assert_eq!(t.taps, 4);
        // Position 0.5 reads -1..2 with weights 1/8, 3/8, 3/8, 1/8 (edge clamped).
        assert_eq!(values(&resize(&x, &[2], &a).unwrap()), [2.5, 9.5]);
        a.scales = vec![2.0];
        assert_eq!(resize_taps(&[4], &[8], &a)[0].taps, 2);
    }

    #[test]
    fn linear_integers_are_refused() {
        let x = Tensor::new(vec![2], TensorData::I32(vec![1, 3])).unwrap();
        let a = attrs(ResizeMode::Linear, CoordinateMode::HalfPixel, &[2.0]);
        assert!(resize(&x, &[4], &a).is_err());
    }
}
