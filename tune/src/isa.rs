//! The ISA of a device as an LLVM feature string, and several devices on one machine.
//!
//! LLVM describes the host as a full feature list (`+avx2,-amx-tile,+avx512f,...`). A
//! device that this machine can stand in for is that list with some features turned off:
//! `-avx512f` is an AVX2 machine, `-avx,-fma4` an SSE one. Code generated for it runs here,
//! so its records are real measurements of that ISA. [`apply`] turns overrides into the
//! full list a record is keyed by (so records of one ISA never answer for another) and
//! refuses a feature the host lacks: code that cannot run here is never measured.
//!
//! Turning a feature off also turns off every feature that needs it (LLVM does the same,
//! and a key must say what the code really used): `-avx2` turns off `avx512f` too, which
//! needs it. [`NEEDS`] lists the x86 implications that decide vector width and the common
//! extensions.

/// Features and the features each one needs (from LLVM's X86 feature definitions).
const NEEDS: &[(&str, &[&str])] = &[
    ("sse2", &["sse"]),
    ("sse3", &["sse2"]),
    ("ssse3", &["sse3"]),
    ("sse4.1", &["ssse3"]),
    ("sse4.2", &["sse4.1"]),
    ("sse4a", &["sse3"]),
    ("avx", &["sse4.2"]),
    ("avx2", &["avx"]),
    ("fma", &["avx"]),
    ("f16c", &["avx"]),
    ("fma4", &["avx", "sse4a"]),
    ("xop", &["fma4"]),
    ("aes", &["sse2"]),
    ("pclmul", &["sse2"]),
    ("sha", &["sse2"]),
    ("gfni", &["sse2"]),
    ("kl", &["sse2"]),
    ("widekl", &["kl"]),
    ("vaes", &["avx", "aes"]),
    ("vpclmulqdq", &["avx", "pclmul"]),
    ("avxvnni", &["avx2"]),
    ("avxifma", &["avx2"]),
    ("avxvnniint8", &["avx2"]),
    ("avxvnniint16", &["avx2"]),
    ("avxneconvert", &["avx2"]),
    ("sha512", &["avx2"]),
    ("sm3", &["avx"]),
    ("sm4", &["avx2"]),
    ("avx512f", &["avx2", "f16c", "fma"]),
    ("avx512bw", &["avx512f"]),
    ("avx512cd", &["avx512f"]),
    ("avx512dq", &["avx512f"]),
    ("avx512vl", &["avx512f"]),
    ("avx512ifma", &["avx512f"]),
    ("avx512vbmi", &["avx512bw"]),
    ("avx512vbmi2", &["avx512bw"]),
    ("avx512vnni", &["avx512f"]),
    ("avx512bitalg", &["avx512bw"]),
    ("avx512vpopcntdq", &["avx512f"]),
    ("avx512bf16", &["avx512bw"]),
    ("avx512vp2intersect", &["avx512f"]),
    ("avx512fp16", &["avx512bw", "avx512dq", "avx512vl"]),
    (
        "avx10.1",
        &["avx512fp16", "avx512bf16", "avx512vbmi2", "avx512ifma"],
    ),
    ("avx10.2", &["avx10.1"]),
    ("amx-avx512", &["avx10.2"]),
];

/// The x86-64 micro-architecture levels of the psABI, each with the features it adds to
/// the one before; `--mcpu` may name one (its code runs on any host that has them).
const LEVELS: &[(&str, &[&str])] = &[
    (
        "x86-64",
        &["64bit", "cmov", "cx8", "fxsr", "mmx", "sse", "sse2"],
    ),
    (
        "x86-64-v2",
        &[
            "cx16", "crc32", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3",
        ],
    ),
    (
        "x86-64-v3",
        &[
            "avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave",
        ],
    ),
    (
        "x86-64-v4",
        &["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"],
    ),
];

/// A feature list as (name, on) pairs in its order; `Err` names a malformed entry.
pub fn parse(list: &str) -> Result<Vec<(String, bool)>, String> {
    list.split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(|f| match f.split_at(1) {
            ("+", name) if !name.is_empty() => Ok((name.to_string(), true)),
            ("-", name) if !name.is_empty() => Ok((name.to_string(), false)),
            _ => Err(format!("'{f}' is not a feature (expected +NAME or -NAME)")),
        })
        .collect()
}

fn join(features: &[(String, bool)]) -> String {
    features
        .iter()
        .map(|(n, on)| format!("{}{n}", if *on { '+' } else { '-' }))
        .collect::<Vec<_>>()
        .join(",")
}

/// The features that need `feature`, directly or through others.
fn dependents(feature: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    let mut todo = vec![feature.to_string()];
    while let Some(f) = todo.pop() {
        for (name, needs) in NEEDS {
            if needs.contains(&f.as_str()) && !out.contains(name) {
                out.push(name);
                todo.push(name.to_string());
            }
        }
    }
    out
}

/// The features `feature` needs, directly or through others.
fn requirements(feature: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    let mut todo = vec![feature.to_string()];
    while let Some(f) = todo.pop() {
        if let Some((_, needs)) = NEEDS.iter().find(|(n, _)| *n == f) {
            for need in *needs {
                if !out.contains(need) {
                    out.push(need);
                    todo.push(need.to_string());
                }
            }
        }
    }
    out
}

/// The host's feature list `host` with `overrides` (`-avx512f,+fma`, applied in order)
/// turned on or off, in the host list's order and spelling (no overrides: `host`
/// itself). A name the host list lacks is refused, and so is turning on a feature the
/// host does not have.
pub fn apply(host: &str, overrides: &str) -> Result<String, String> {
    let mut features = parse(host).map_err(|e| format!("the host's feature list: {e}"))?;
    let host_has: Vec<(String, bool)> = features.clone();
    for (name, on) in parse(overrides)? {
        let Some(had) = host_has.iter().find(|(n, _)| *n == name).map(|f| f.1) else {
            return Err(format!(
                "unknown feature '{name}': the host's LLVM feature list has no such name"
            ));
        };
        let mut set = |f: &str, value: bool| {
            if let Some(entry) = features.iter_mut().find(|(n, _)| n == f) {
                entry.1 = value;
            }
        };
        if on {
            if !had {
                return Err(format!(
                    "this machine lacks '{name}': code that uses it cannot run here, so it is not measured"
                ));
            }
            set(&name, true);
            for need in requirements(&name) {
                set(need, true);
            }
        } else {
            set(&name, false);
            for dependent in dependents(&name) {
                set(dependent, false);
            }
        }
    }
    Ok(join(&features))
}

/// Whether `cpu` names an x86-64 level (`x86-64`, `x86-64-v2` ...).
pub fn is_level(cpu: &str) -> bool {
    LEVELS.iter().any(|(n, _)| *n == cpu)
}

/// The features of the x86-64 level `level` in the host list's order and spelling: the
/// level's on, every other off. Refused when the host lacks one of the level's (the
/// level's code could not run here) or `level` is not a level.
pub fn level(host: &str, level: &str) -> Result<String, String> {
    let position = LEVELS
        .iter()
        .position(|(n, _)| *n == level)
        .ok_or_else(|| {
            format!(
                "'{level}' is not an x86-64 level ({})",
                LEVELS.iter().map(|l| l.0).collect::<Vec<_>>().join(", ")
            )
        })?;
    let wanted: Vec<&str> = LEVELS[..=position]
        .iter()
        .flat_map(|(_, f)| f.iter().copied())
        .collect();
    let mut features = parse(host).map_err(|e| format!("the host's feature list: {e}"))?;
    for w in &wanted {
        match features.iter().find(|(n, _)| n == w) {
            Some((_, true)) => {}
            // A baseline feature LLVM does not list (always present on x86-64).
            None if LEVELS[0].1.contains(w) => {}
            _ => {
                return Err(format!(
                    "this machine lacks '{w}' of {level}: its code cannot run here, so it is not measured"
                ));
            }
        }
    }
    for (name, on) in features.iter_mut() {
        *on = wanted.contains(&name.as_str());
    }
    Ok(join(&features))
}

/// Whether `features` turns `feature` on.
pub fn has(features: &str, feature: &str) -> bool {
    features
        .split(',')
        .any(|f| f.trim().strip_prefix('+') == Some(feature))
}

/// The vector registers `features` give code: (bytes, count). AVX-512: 64 x 32; AVX2 with
/// FMA: 32 x 16; NEON: 16 x 32; anything else 16 x 16 (SSE).
pub fn vector_registers(features: &str) -> (i64, i64) {
    if has(features, "avx512f") {
        (64, 32)
    } else if has(features, "avx2") && has(features, "fma") {
        (32, 16)
    } else if has(features, "neon") {
        (16, 32)
    } else {
        (16, 16)
    }
}

/// The ISA class of `features` in words: `avx512`, `avx2` or `sse` (x86), `neon`.
pub fn class(features: &str) -> &'static str {
    match vector_registers(features) {
        (64, _) => "avx512",
        (32, _) => "avx2",
        (16, 32) => "neon",
        _ => "sse",
    }
}
