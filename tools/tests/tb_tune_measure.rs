//! Measuring tuning candidates: how the children of a round are paced (compiles next to
//! the one timing, never two timings at once, within the cores), how failures are
//! recorded, and the interpreter's sampled reference of a large task.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tb_tools::tuning::phases::Phases;
use tb_tools::tuning::pipeline::{Job, Pacing, run_round};
use tb_tools::tuning::reference::{first_mismatch, sample_iterations};
use tb_tune::{Measurement, Status};

/// A stand-in for `tb-tune --measure`: it logs when it compiles and when it is timed
/// (sleeping 0.3 s for each), speaks the ready/go protocol, and crashes or hangs when its
/// decision says so.
const FAKE_CHILD: &str = r#"#!/bin/sh
dir="$2"; decision="$4"
now() { date +%s.%N; }
echo "compile $(now) start $decision" >> "$dir/log"
sleep 0.3
echo "compile $(now) end $decision" >> "$dir/log"
case "$decision" in
  crash) kill -ABRT $$ ;;
  hang) sleep 60 ;;
  fail) echo "no luck" >&2; exit 3 ;;
esac
echo '{"ready": true, "phases": {"compile": 0.3}}'
read go || exit 0
echo "time $(now) start $decision" >> "$dir/log"
sleep 0.3
echo "time $(now) end $decision" >> "$dir/log"
echo '{"status": "ok", "latency_s": 0.001, "runs_s": [0.001], "error": null, "phases": {"compile": 0.3, "time": 0.3}}'
"#;

fn fake_child(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let exe = dir.join("fake-child.sh");
    std::fs::write(&exe, FAKE_CHILD).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    exe
}

/// What a fake child logged: `compile` or `time`, from and to (seconds).
type Interval = (String, f64, f64);

/// Runs a round of the fake child with these decisions; returns the measurements by
/// index and the logged intervals `(kind, start, end)`.
fn round(
    decisions: &[&str],
    threads: usize,
    cores: usize,
    timeout: f64,
) -> (Vec<Option<Measurement>>, Vec<Interval>) {
    let dir = tempfile::tempdir().unwrap();
    let exe = fake_child(dir.path());
    let pacing = Pacing {
        exe: &exe,
        threads,
        cores,
        timeout: Duration::from_secs_f64(timeout),
        device_args: &[],
        stoppable: true,
    };
    let jobs: Vec<Job> = decisions
        .iter()
        .map(|d| Job {
            dir: Ok(dir.path().to_path_buf()),
            decision: d.to_string(),
        })
        .collect();
    let mut out = vec![None; decisions.len()];
    run_round(&pacing, &jobs, &mut |i, m, _: Phases| {
        assert!(out[i].is_none(), "candidate {i} handed over twice");
        out[i] = Some(m);
        Ok(())
    })
    .unwrap();
    let log = std::fs::read_to_string(dir.path().join("log")).unwrap_or_default();
    let mut starts = std::collections::HashMap::new();
    let mut intervals = Vec::new();
    for line in log.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (kind, at, edge, who) = (f[0], f[1].parse::<f64>().unwrap(), f[2], f[3]);
        let key = (kind.to_string(), who.to_string());
        if edge == "start" {
            starts.insert(key, at);
        } else {
            intervals.push((kind.to_string(), starts[&key], at));
        }
    }
    (out, intervals)
}

/// The most intervals of `kind` under way at any moment.
fn most_at_once(intervals: &[Interval], kind: &str, during: Option<&str>) -> usize {
    let mut most = 0;
    for (k, start, end) in intervals {
        if let Some(d) = during
            && k != d
        {
            continue;
        }
        // Sampled a little inside each interval, so touching ends do not count.
        for t in [start + 0.01, (start + end) / 2.0, end - 0.01] {
            let n = intervals
                .iter()
                .filter(|(k2, s, e)| k2 == kind && *s < t && t < *e)
                .count();
            most = most.max(n);
        }
    }
    most
}

fn ok(m: &Option<Measurement>) -> bool {
    m.as_ref().is_some_and(|m| m.status == Status::Ok)
}

#[test]
fn the_next_candidates_compile_while_one_is_timed_on_the_free_cores() {
    let (out, log) = round(&["a", "b", "c", "d", "e"], 1, 2, 30.0);
    assert!(out.iter().all(ok), "{out:?}");
    assert_eq!(most_at_once(&log, "time", None), 1, "{log:?}");
    // While a candidate is timed on one thread, one other compiles on the second core.
    assert_eq!(most_at_once(&log, "compile", Some("time")), 1, "{log:?}");
    assert_eq!(most_at_once(&log, "compile", None), 2, "{log:?}");
}

#[test]
fn with_as_many_threads_as_cores_compiling_and_timing_take_turns() {
    let (out, log) = round(&["a", "b", "c", "d"], 2, 2, 30.0);
    assert!(out.iter().all(ok), "{out:?}");
    assert_eq!(most_at_once(&log, "time", None), 1, "{log:?}");
    assert_eq!(most_at_once(&log, "compile", Some("time")), 0, "{log:?}");
}

#[test]
fn one_core_measures_one_candidate_at_a_time() {
    let (out, log) = round(&["a", "b", "c"], 1, 1, 30.0);
    assert!(out.iter().all(ok), "{out:?}");
    assert_eq!(most_at_once(&log, "compile", None), 1, "{log:?}");
    assert_eq!(most_at_once(&log, "compile", Some("time")), 0, "{log:?}");
}

#[test]
fn a_crash_a_hang_and_a_failure_are_recorded_and_the_round_goes_on() {
    let (out, _) = round(&["a", "crash", "hang", "fail", "b"], 1, 2, 1.5);
    let status: Vec<Status> = out.iter().map(|m| m.as_ref().unwrap().status).collect();
    assert_eq!(
        status,
        [
            Status::Ok,
            Status::Crash,
            Status::Timeout,
            Status::Error,
            Status::Ok
        ]
    );
    let error = |i: usize| out[i].as_ref().unwrap().error.clone().unwrap();
    assert_eq!(error(1), "the measuring process died of signal 6");
    assert_eq!(error(2), "killed after 1.5 s");
    assert_eq!(error(3), "the measuring process failed: no luck");
}

#[test]
fn a_task_that_could_not_be_prepared_is_an_error_without_a_child() {
    let dir = tempfile::tempdir().unwrap();
    let exe = fake_child(dir.path());
    let pacing = Pacing {
        exe: &exe,
        threads: 1,
        cores: 2,
        timeout: Duration::from_secs(5),
        device_args: &[],
        stoppable: true,
    };
    let jobs = [Job {
        dir: Err("the interpreter fails on the task: boom".into()),
        decision: "a".into(),
    }];
    let mut seen = Vec::new();
    run_round(&pacing, &jobs, &mut |i, m, _| {
        seen.push((i, m));
        Ok(())
    })
    .unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].1.status, Status::Error);
    assert!(!dir.path().join("log").exists());
}

/// A 3x3 convolution of 8 channels into 16 on a 14x14 image, as a task module.
fn conv_task() -> String {
    let model = r#"
"func.func"() <{function_type = (tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x14x14xf32>, sym_name = "conv"}> ({
^bb0(%x: tensor<1x8x16x16xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>):
  %0 = "graph.conv"(%x, %w, %b) <{auto_pad = "NOTSET", group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}> : (tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x14x14xf32>
  "func.return"(%0) : (tensor<1x16x14x14xf32>) -> ()
}) : () -> ()
"#;
    let (mut ctx, module) = tb_tune::task::parse_module(model).unwrap();
    tb_tune::task::run_pipeline(&mut ctx, module, tb_tune::FRONT_PIPELINE).unwrap();
    let tasks = tb_tune::task::tasks(&mut ctx, module);
    tasks
        .into_iter()
        .find(|t| t.ir.contains("loop.parallel"))
        .expect("the convolution's nest")
        .ir
}

fn interpret(ir: &str, budget: Option<i64>) -> (Vec<tb_interpreter::Tensor>, bool) {
    let (mut ctx, module) = tb_tune::task::parse_module(ir).unwrap();
    let sampled = budget.is_some_and(|b| sample_iterations(&mut ctx, module, b));
    let mut interp = tb_interpreter::exec::Interpreter::new(&ctx, module);
    let func = interp.function("task").unwrap();
    let inputs = tb_interpreter::check::random_arguments(&ctx, func, 7).unwrap();
    (interp.run_function("task", &inputs).unwrap(), sampled)
}

#[test]
fn a_large_tasks_reference_is_exact_on_two_corners_of_its_iterations() {
    let ir = conv_task();
    let (full, _) = interpret(&ir, None);
    let (sample, sampled) = interpret(&ir, Some(4000));
    assert!(sampled);
    let (full, sample) = (full[0].to_f64_vec(), sample[0].to_f64_vec());
    let written: Vec<usize> = (0..sample.len()).filter(|&i| !sample[i].is_nan()).collect();
    for &i in &written {
        assert_eq!(sample[i], full[i], "element {i}");
    }
    // Both corners: the first and the last element, and far fewer than all.
    assert_eq!(written.first(), Some(&0));
    assert_eq!(written.last(), Some(&(full.len() - 1)));
    assert!(
        written.len() * 4 < full.len(),
        "{} of {}",
        written.len(),
        full.len()
    );
    // Within its budget, a task runs in full.
    let (_, sampled) = interpret(&ir, Some(1 << 40));
    assert!(!sampled);
}

#[test]
fn a_sampled_reference_compares_only_what_it_wrote() {
    use tb_interpreter::Tensor;
    let expected = Tensor::from_vec(vec![3], vec![1.0f32, f32::NAN, 3.0]).unwrap();
    let close = Tensor::from_vec(vec![3], vec![1.0f32, 7.0, 3.0001]).unwrap();
    let off = Tensor::from_vec(vec![3], vec![1.0f32, 7.0, 4.0]).unwrap();
    assert_eq!(
        first_mismatch(&close, &expected, true, 1e-3, 1e-4),
        Ok(None)
    );
    assert_eq!(
        first_mismatch(&off, &expected, true, 1e-3, 1e-4),
        Ok(Some((2, 4.0, 3.0)))
    );
    // A full reference's NaN is a result the candidate must match.
    let (index, actual, reference) = first_mismatch(&close, &expected, false, 1e-3, 1e-4)
        .unwrap()
        .expect("a mismatch at the NaN");
    assert_eq!((index, actual), (1, 7.0));
    assert!(reference.is_nan());
    let wrong_shape = Tensor::from_vec(vec![2], vec![1.0f32, 2.0]).unwrap();
    assert!(first_mismatch(&wrong_shape, &expected, true, 1e-3, 1e-4).is_err());
}
