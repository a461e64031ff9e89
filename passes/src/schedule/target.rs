//! The target description schedules are derived from and checked against: vector width,
//! vector registers, cores and cache sizes, read from the host or written by hand (tests,
//! cross-compilation, a tuner measuring another machine).

/// What a schedule needs to know about the CPU it runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Bytes in one vector register (16: SSE/NEON, 32: AVX2, 64: AVX-512).
    pub vector_bytes: i64,
    /// Architectural vector registers (16 with AVX2, 32 with AVX-512 or NEON).
    pub vector_registers: i64,
    /// Cores the runtime may use.
    pub cores: i64,
    /// Per-core data cache sizes in bytes.
    pub l1_bytes: i64,
    pub l2_bytes: i64,
}

impl Target {
    /// The machine this process runs on: vector width from the CPU features the host
    /// reports, cores from the OS; cache sizes are the common sizes of current cores.
    pub fn host() -> Target {
        let (vector_bytes, vector_registers) = host_vector();
        Target {
            vector_bytes,
            vector_registers,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get() as i64),
            l1_bytes: 32 << 10,
            l2_bytes: 1 << 20,
        }
    }

    /// Lanes of a vector register for elements of `element_bytes` bytes.
    pub fn lanes(&self, element_bytes: i64) -> i64 {
        (self.vector_bytes / element_bytes.max(1)).max(1)
    }
}

#[cfg(target_arch = "x86_64")]
fn host_vector() -> (i64, i64) {
    if std::arch::is_x86_feature_detected!("avx512f") {
        (64, 32)
    } else if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
    {
        (32, 16)
    } else {
        (16, 16)
    }
}

#[cfg(target_arch = "aarch64")]
fn host_vector() -> (i64, i64) {
    (16, 32)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn host_vector() -> (i64, i64) {
    (16, 16)
}
