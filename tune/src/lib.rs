//! TensorBind tuning: knob spaces, features, cost models, search, measurement, records.
