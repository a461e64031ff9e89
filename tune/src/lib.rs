//! TensorBind tuning. Planned, nothing is implemented yet: knob spaces, features, cost
//! models, search, measurement and tuning records.
