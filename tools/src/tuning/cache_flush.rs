//! Evicting the caches before each timed run of a candidate, on every thread it runs on.
//!
//! A kernel inside a model finds its weights and inputs out of the caches: the model's
//! other kernels have used them since. A timed run should find them there too, so before
//! each run a buffer larger than the last-level cache is written. The buffer is split into
//! one slice per thread, and the slices are written through the runtime's thread pool, the
//! one the candidate's parallel loops run on:
//!
//! - each core's own caches are evicted, not only the calling thread's: with a flush on the
//!   calling thread alone, the other cores' second-level caches (1 MiB and more each) still
//!   held their share of a matmul's weights, and candidates that read the weights where
//!   they lie were timed warm there and cold in the model;
//! - the pool's threads are running when the timed run starts. A flush on the calling
//!   thread alone outlasted the workers' spinning (`runtime::SPIN` and `YIELD`, 2 ms in
//!   all) at times, and the run that followed first woke them: the runs of one candidate
//!   came out in two groups, the second about twice the first, and which group the median
//!   fell in decided the record.

use std::ffi::c_void;

use tb_backends::cpu::runtime::tb_rt_parallel_for;

/// The least the flush writes, whatever the caches the host reports.
const MIN_BYTES: usize = 16 << 20;

/// A buffer to write before each timed run, and the threads to write it on.
pub struct CacheFlush {
    buffer: Vec<u8>,
    threads: usize,
    round: u8,
}

/// What one slice of the flush needs: the buffer, the bytes of a slice and the byte to add.
struct Slices {
    start: *mut u8,
    len: usize,
    slice: usize,
    round: u8,
}

impl CacheFlush {
    /// A flush for candidates that run on `threads` threads: twice the largest cache the
    /// host reports (at least [`MIN_BYTES`]).
    pub fn new(threads: usize) -> CacheFlush {
        let bytes = largest_cache_bytes()
            .map_or(MIN_BYTES, |b| b.saturating_mul(2))
            .max(MIN_BYTES);
        CacheFlush {
            buffer: vec![0u8; bytes],
            threads: threads.max(1),
            round: 0,
        }
    }

    /// Writes every byte of the buffer, one slice per thread of the pool.
    pub fn run(&mut self) {
        self.round = self.round.wrapping_add(1);
        let len = self.buffer.len();
        let mut slices = Slices {
            start: self.buffer.as_mut_ptr(),
            len,
            slice: len.div_ceil(self.threads),
            round: self.round,
        };
        let ctx = (&mut slices as *mut Slices).cast::<c_void>();
        // SAFETY: `write_slices` writes iteration `i`'s bytes only, disjoint from every
        // other iteration's and inside the buffer, which outlives the call.
        unsafe { tb_rt_parallel_for(write_slices, ctx, self.threads as i64, self.threads as i64) };
        std::hint::black_box(&self.buffer);
    }
}

/// Slices `[begin, end)` of the flush: each byte gets the round added.
unsafe extern "C" fn write_slices(ctx: *mut c_void, begin: i64, end: i64) {
    // SAFETY: `ctx` is the `Slices` of `CacheFlush::run`, alive while the pool runs this.
    let slices = unsafe { &*(ctx as *const Slices) };
    for i in begin.max(0) as usize..end.max(0) as usize {
        let lo = (i * slices.slice).min(slices.len);
        let hi = ((i + 1) * slices.slice).min(slices.len);
        // SAFETY: `[lo, hi)` lies in the buffer and belongs to iteration `i` alone.
        let bytes = unsafe { std::slice::from_raw_parts_mut(slices.start.add(lo), hi - lo) };
        for (k, b) in bytes.iter_mut().enumerate() {
            *b = b.wrapping_add(slices.round.wrapping_add(k as u8));
        }
    }
}

/// The largest data or unified cache of CPU 0 the system reports (Linux's sysfs), in bytes.
fn largest_cache_bytes() -> Option<usize> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.filter_map(|entry| {
        let path = entry.ok()?.path();
        let kind = std::fs::read_to_string(path.join("type")).ok()?;
        if kind.trim() == "Instruction" {
            return None;
        }
        parse_size(&std::fs::read_to_string(path.join("size")).ok()?)
    })
    .max()
}

/// `32768K`, `1M`, `512` (bytes) as sysfs writes cache sizes.
fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let n: usize = digits.parse().ok()?;
    let scale = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_sysfs_writes_them() {
        assert_eq!(parse_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_size("1M"), Some(1 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("12X"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn every_byte_is_written_once_per_run_on_any_thread_count() {
        for threads in [1, 2, 3] {
            let mut flush = CacheFlush {
                buffer: vec![0u8; 1000],
                threads,
                round: 0,
            };
            flush.run();
            let expected: Vec<u8> = (0..1000usize)
                .map(|i| {
                    let slice = 1000usize.div_ceil(threads);
                    1u8.wrapping_add((i % slice) as u8)
                })
                .collect();
            assert_eq!(flush.buffer, expected, "{threads} threads");
        }
    }

    #[test]
    fn the_flush_covers_at_least_the_largest_cache() {
        let flush = CacheFlush::new(2);
        assert!(flush.buffer.len() >= MIN_BYTES);
        if let Some(cache) = largest_cache_bytes() {
            assert!(flush.buffer.len() >= 2 * cache);
        }
    }
}
