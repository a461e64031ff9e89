//! TensorBind passes: canonicalization, CSE/DCE, graph equality saturation, global affine
//! fusion, tiling/scheduling, and the conversions between levels.
