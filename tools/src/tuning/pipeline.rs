//! Compiling the next candidates while one is timed.
//!
//! Each candidate of a round is one child process ([`super::child`]) that compiles it and
//! then waits for `go` before it checks and times it. The parent starts children and hands
//! out `go` so that:
//!
//! - at most one candidate is timed at a time;
//! - the timed candidate's threads and the compiling children together never need more
//!   than `cores`: while a candidate is timed (or one waits to be), at most
//!   `cores - threads` children compile, and a timing starts only once the compiling
//!   children fit beside it, so with `--threads` equal to the cores compiling and timing
//!   take turns;
//! - at most `cores` children are alive besides the timed one (compiled code waiting for
//!   its turn holds memory).
//!
//! A child that dies is a `crash`, one that runs (compiling and being timed, not waiting)
//! past the time limit is killed and is a `timeout`; each measurement is handed over as
//! soon as it is known.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tb_tune::{Measurement, Status};

use super::child::READY;
use super::phases::Phases;
use super::{failed, parse_child_output};

/// How the children of a round are run.
pub struct Pacing<'a> {
    pub exe: &'a Path,
    pub threads: usize,
    pub cores: usize,
    pub timeout: Duration,
    /// Whether a stop request ([`tb_tune::stop`]) keeps new children from starting (a
    /// search's round); a worker's job in hand is measured regardless.
    pub stoppable: bool,
    /// The device's `--mcpu`/`--mattr` arguments for every child.
    pub device_args: &'a [String],
}

/// One candidate of the round: its prepared task directory and decision argument.
pub struct Job {
    pub dir: Result<std::path::PathBuf, String>,
    pub decision: String,
}

/// A line (or the end of output: `None`) from the child of slot `slot`.
struct Line {
    slot: usize,
    text: Option<String>,
}

/// A child at work.
struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    stderr: Option<JoinHandle<String>>,
    spawned: Instant,
    /// When it reported ready: the wall time of its compile step.
    compiled_in: Option<Duration>,
    /// When it was told to go.
    go_at: Option<Instant>,
}

impl Drop for Running {
    fn drop(&mut self) {
        // A child given up on (stopped, failed, timed out) must not outlive the round.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Pending,
    Compiling,
    Ready,
    Timing,
    Finished,
}

/// Measures `jobs`, handing each measurement (with its phases) to `done` as soon as it is
/// known. Once a stop is requested no new child starts: a job not started by then is never
/// handed over.
pub fn run_round(
    pacing: &Pacing,
    jobs: &[Job],
    done: &mut dyn FnMut(usize, Measurement, Phases) -> Result<(), String>,
) -> Result<(), String> {
    let n = jobs.len();
    let cores = pacing.cores.max(1);
    let mut state = vec![State::Pending; n];
    let mut running: Vec<Option<Running>> = (0..n).map(|_| None).collect();
    let (sender, receiver): (Sender<Line>, Receiver<Line>) = channel();
    loop {
        if pacing.stoppable && tb_tune::stop::requested() {
            // Stop cleanly: no new candidate starts; those started are measured and stored
            // (a worker's job in hand included).
            for s in state.iter_mut().filter(|s| **s == State::Pending) {
                *s = State::Finished;
            }
        }
        let compiling = count(&state, State::Compiling);
        if count(&state, State::Timing) == 0
            && (compiling == 0 || compiling + pacing.threads <= cores)
            && let Some(i) = state.iter().position(|&s| s == State::Ready)
        {
            let r = running[i].as_mut().expect("a ready child runs");
            r.go_at = Some(Instant::now());
            if let Some(stdin) = r.stdin.as_mut() {
                // A child that cannot be told has died; its end of output says how.
                let _ = stdin.write_all(b"go\n").and_then(|_| stdin.flush());
            }
            state[i] = State::Timing;
        }
        let busy = count(&state, State::Timing) + count(&state, State::Ready) > 0;
        let limit = if busy {
            cores.saturating_sub(pacing.threads)
        } else {
            cores
        };
        while count(&state, State::Compiling) < limit
            && count(&state, State::Compiling) + count(&state, State::Ready) < cores
            && let Some(i) = state.iter().position(|&s| s == State::Pending)
        {
            match spawn(pacing, &jobs[i], i, &sender) {
                Ok(r) => {
                    running[i] = Some(r);
                    state[i] = State::Compiling;
                }
                Err(m) => {
                    state[i] = State::Finished;
                    done(i, m, Phases::default())?;
                }
            }
        }
        if state.iter().all(|&s| s == State::Finished) {
            return Ok(());
        }
        match receiver.recv_timeout(Duration::from_millis(20)) {
            Ok(Line { slot, text }) => {
                if state[slot] == State::Finished {
                    continue;
                }
                let r = running[slot].as_mut().expect("a child runs");
                match text {
                    Some(line) if is_ready(&line) => {
                        r.compiled_in = Some(r.spawned.elapsed());
                        state[slot] = State::Ready;
                    }
                    Some(line) if line.starts_with('{') => {
                        let (m, phases) = finish(r, &line);
                        state[slot] = State::Finished;
                        running[slot] = None;
                        done(slot, m, phases)?;
                    }
                    Some(_) => {}
                    None => {
                        let m = died(r);
                        state[slot] = State::Finished;
                        running[slot] = None;
                        done(slot, m, Phases::default())?;
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => unreachable!("the sender is held here"),
        }
        for i in 0..n {
            let Some(r) = &running[i] else { continue };
            let worked = match state[i] {
                State::Compiling => r.spawned.elapsed(),
                State::Timing => {
                    r.compiled_in.unwrap_or_default()
                        + r.go_at.map_or(Duration::ZERO, |g| g.elapsed())
                }
                _ => continue,
            };
            if worked > pacing.timeout {
                state[i] = State::Finished;
                running[i] = None;
                let m = failed(
                    Status::Timeout,
                    format!("killed after {:.1} s", pacing.timeout.as_secs_f64()),
                );
                done(i, m, Phases::default())?;
            }
        }
    }
}

fn count(state: &[State], which: State) -> usize {
    state.iter().filter(|&&s| s == which).count()
}

fn is_ready(line: &str) -> bool {
    line.starts_with('{')
        && serde_json::from_str::<serde_json::Value>(line)
            .is_ok_and(|v| v[READY].as_bool() == Some(true))
}

fn spawn(
    pacing: &Pacing,
    job: &Job,
    slot: usize,
    lines: &Sender<Line>,
) -> Result<Running, Measurement> {
    let dir = job.dir.clone().map_err(|why| failed(Status::Error, why))?;
    let mut child = Command::new(pacing.exe)
        // Its own process group: a Ctrl-C at the terminal stops the tuner cleanly
        // (after the timed measurement) instead of killing measurements as crashes.
        .process_group(0)
        .arg("--measure")
        .arg(&dir)
        .arg("--decision")
        .arg(&job.decision)
        .arg("--threads")
        .arg(pacing.threads.to_string())
        .args(pacing.device_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            failed(
                Status::Error,
                format!("cannot start the measuring process: {e}"),
            )
        })?;
    let stdout = child.stdout.take().expect("piped");
    let sender = lines.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(text) = line else { break };
            if sender
                .send(Line {
                    slot,
                    text: Some(text),
                })
                .is_err()
            {
                return;
            }
        }
        let _ = sender.send(Line { slot, text: None });
    });
    // Drained as it comes, so a child that writes much to standard error never blocks.
    let mut stderr = child.stderr.take().expect("piped");
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    Ok(Running {
        stdin: child.stdin.take(),
        child,
        stderr: Some(stderr),
        spawned: Instant::now(),
        compiled_in: None,
        go_at: None,
    })
}

/// The measurement a child printed, with the phases it and the parent saw.
fn finish(r: &mut Running, line: &str) -> (Measurement, Phases) {
    let m = parse_child_output(line);
    let mut phases = serde_json::from_str::<serde_json::Value>(line)
        .map(|v| Phases::from_json(&v["phases"]))
        .unwrap_or_default();
    let compiled_in = r.compiled_in.unwrap_or_else(|| r.spawned.elapsed());
    phases.start = (compiled_in.as_secs_f64() - phases.compile_step()).max(0.0);
    if let (Some(ready), Some(go)) = (r.compiled_in, r.go_at) {
        phases.wait = (go.duration_since(r.spawned) - ready).as_secs_f64();
    }
    (m, phases)
}

/// The measurement of a child whose output ended without one.
fn died(r: &mut Running) -> Measurement {
    let status = match r.child.wait() {
        Ok(s) => s,
        Err(e) => {
            return failed(
                Status::Error,
                format!("cannot wait for the measuring process: {e}"),
            );
        }
    };
    let stderr = r
        .stderr
        .take()
        .and_then(|h| h.join().ok())
        .unwrap_or_default();
    if let Some(signal) = status.signal() {
        return failed(
            Status::Crash,
            format!("the measuring process died of signal {signal}"),
        );
    }
    let last = stderr.lines().last().unwrap_or("").to_string();
    if status.success() {
        return failed(
            Status::Error,
            "the measuring process printed no result".into(),
        );
    }
    failed(
        Status::Error,
        format!("the measuring process failed: {last}"),
    )
}
