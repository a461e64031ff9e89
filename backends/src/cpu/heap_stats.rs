//! Heap accounting for JIT-compiled code: the JIT binds the `aligned_alloc` and `free` that
//! compiled code calls to these wrappers, which count the bytes live and the peak, so
//! `tb-run --bench` reports the memory a model really used rather than an estimate.
//!
//! Sizes are the C library's usable sizes (`malloc_usable_size`) on both sides, so every
//! free subtracts exactly what its allocation added. The counters are process-wide.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

unsafe extern "C" {
    fn aligned_alloc(alignment: usize, size: usize) -> *mut c_void;
    fn free(pointer: *mut c_void);
    fn malloc_usable_size(pointer: *mut c_void) -> usize;
}

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// Heap bytes compiled code holds now, and the most it held since the last reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapStats {
    pub live: usize,
    pub peak: usize,
}

/// The current counters.
pub fn heap_stats() -> HeapStats {
    HeapStats {
        live: LIVE.load(Ordering::Relaxed),
        peak: PEAK.load(Ordering::Relaxed),
    }
}

/// Starts a new peak from what is live now.
pub fn reset_heap_peak() {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// `aligned_alloc` for compiled code, counted.
///
/// # Safety
/// As C's `aligned_alloc`.
pub unsafe extern "C" fn tb_rt_aligned_alloc(alignment: usize, size: usize) -> *mut c_void {
    // SAFETY: forwarded as is.
    let pointer = unsafe { aligned_alloc(alignment, size) };
    if pointer.is_null() && size > 0 {
        // Compiled code has no error path and would write through the null pointer: stop
        // with a message instead of a segmentation fault. (`tb-run` checks every buffer
        // against its memory budget before it runs code, so only a system that cannot
        // give what the budget allows gets here.)
        eprintln!("error: compiled code cannot allocate a buffer of {size} bytes: out of memory");
        std::process::exit(1);
    }
    if !pointer.is_null() {
        // SAFETY: a live allocation of the C library.
        let bytes = unsafe { malloc_usable_size(pointer) };
        let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }
    pointer
}

/// `free` for compiled code, counted.
///
/// # Safety
/// As C's `free`: `pointer` is null or came from [`tb_rt_aligned_alloc`] and is live.
pub unsafe extern "C" fn tb_rt_free(pointer: *mut c_void) {
    if pointer.is_null() {
        return;
    }
    // SAFETY: a live allocation of the C library, freed right after.
    unsafe {
        LIVE.fetch_sub(malloc_usable_size(pointer), Ordering::Relaxed);
        free(pointer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_live_and_peak_bytes() {
        let before = heap_stats().live;
        // SAFETY: a fresh allocation, freed once.
        unsafe {
            let a = tb_rt_aligned_alloc(64, 4096);
            assert!(heap_stats().live >= before + 4096);
            assert!(heap_stats().peak >= before + 4096);
            tb_rt_free(a);
        }
        assert_eq!(heap_stats().live, before);
    }
}
