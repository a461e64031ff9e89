//! Per-kernel timing for profiled runs (`tb-run --profile`): compiled code instrumented by
//! the tools calls `tb_rt_profile_begin(k)` before kernel `k` and `tb_rt_profile_end(k)`
//! after it, and the JIT binds both to the recorder below. Kernels of one function run one
//! after another on the calling thread (a parallel loop returns when all its chunks are
//! done), so one process-wide recorder, locked per call, sees each kernel whole.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The symbol instrumented code calls before a kernel.
pub const PROFILE_BEGIN: &str = "tb_rt_profile_begin";
/// The symbol instrumented code calls after a kernel.
pub const PROFILE_END: &str = "tb_rt_profile_end";

/// The most events one recording keeps (about 24 MB); later kernels are counted in
/// [`Recording::dropped`] instead, so a long benchmark cannot exhaust memory.
const MAX_EVENTS: usize = 1 << 20;

/// One execution of one kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelEvent {
    /// The kernel's number, as the instrumentation gave it.
    pub kernel: i64,
    /// When it started, from the start of the recording.
    pub start: Duration,
    pub duration: Duration,
}

/// What one recording saw.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    pub events: Vec<KernelEvent>,
    /// Kernel executions left out past [`MAX_EVENTS`].
    pub dropped: u64,
}

struct Recorder {
    epoch: Instant,
    /// Kernels begun and not yet ended, innermost last.
    open: Vec<(i64, Instant)>,
    recording: Recording,
}

static RECORDER: Mutex<Option<Recorder>> = Mutex::new(None);

fn with_recorder(f: impl FnOnce(&mut Recorder)) {
    let mut guard = RECORDER.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(recorder) = guard.as_mut() {
        f(recorder);
    }
}

/// Starts a fresh recording (what an earlier one held is discarded). Until this is
/// called, the instrumentation calls cost a lock and record nothing.
pub fn start_recording() {
    let mut guard = RECORDER.lock().unwrap_or_else(|p| p.into_inner());
    *guard = Some(Recorder {
        epoch: Instant::now(),
        open: Vec::new(),
        recording: Recording::default(),
    });
}

/// Ends the recording and returns it (empty if none was started).
pub fn take_recording() -> Recording {
    let mut guard = RECORDER.lock().unwrap_or_else(|p| p.into_inner());
    guard.take().map(|r| r.recording).unwrap_or_default()
}

/// Called by instrumented code before kernel `kernel`.
pub extern "C" fn tb_rt_profile_begin(kernel: i64) {
    with_recorder(|r| r.open.push((kernel, Instant::now())));
}

/// Called by instrumented code after kernel `kernel`; an end without its begin is ignored.
pub extern "C" fn tb_rt_profile_end(kernel: i64) {
    let now = Instant::now();
    with_recorder(|r| {
        let Some(position) = r.open.iter().rposition(|&(k, _)| k == kernel) else {
            return;
        };
        let (_, began) = r.open.remove(position);
        if r.recording.events.len() < MAX_EVENTS {
            r.recording.events.push(KernelEvent {
                kernel,
                start: began.saturating_duration_since(r.epoch),
                duration: now.saturating_duration_since(began),
            });
        } else {
            r.recording.dropped += 1;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test: the recorder is process-wide, so parallel tests would share it.
    #[test]
    fn records_each_kernel_between_begin_and_end_while_recording() {
        tb_rt_profile_begin(0);
        tb_rt_profile_end(0);
        start_recording();
        assert!(
            take_recording().events.is_empty(),
            "nothing before the start"
        );
        start_recording();
        tb_rt_profile_begin(3);
        std::thread::sleep(Duration::from_millis(2));
        tb_rt_profile_end(3);
        tb_rt_profile_end(9);
        tb_rt_profile_begin(4);
        tb_rt_profile_end(4);
        let recording = take_recording();
        let kernels: Vec<i64> = recording.events.iter().map(|e| e.kernel).collect();
        assert_eq!(kernels, [3, 4]);
        assert!(recording.events[0].duration >= Duration::from_millis(2));
        assert!(recording.events[1].start >= recording.events[0].start);
        assert!(
            take_recording().events.is_empty(),
            "taking ends the recording"
        );
    }
}
