//! Stopping cleanly on SIGINT or SIGTERM: the handler only sets a flag; the coordinator
//! and the workers check it between jobs, so a measurement that has finished is always
//! written before the process exits.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    // Only async-signal-safe work here: two atomic stores.
    SIGNAL.store(signal, Ordering::SeqCst);
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is valid; the handler is async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Whether a stop was requested.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// The signal that requested it (0: none).
pub fn signal() -> i32 {
    SIGNAL.load(Ordering::SeqCst)
}

/// Requests a stop from inside the process (tests).
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}
