//! Several devices on one machine: feature overrides resolve to the full feature list a
//! record is keyed by, features the host lacks are refused, a key's machine follows its
//! features, records of one ISA never answer for another, and the data set exports every
//! target's records with sentences that decode back in that target's space.

mod common;

use common::MODEL;
use tb_passes::schedule::Rng;
use tb_tune::dataset::{DeviceRecords, add_rows, export};
use tb_tune::isa;
use tb_tune::sentence::decode;
use tb_tune::space::{Space, TunableTask};
use tb_tune::target::Machine;
use tb_tune::task::{FRONT_PIPELINE, parse_module, run_pipeline, tasks};
use tb_tune::{Database, Record, Status, TargetKey};

/// A host with AVX-512 (as LLVM lists an x86 host: every feature it knows, on or off).
const HOST: &str = "+sse,+sse2,+sse3,+ssse3,+sse4.1,+sse4.2,+avx,+avx2,+fma,+f16c,+aes,+vaes,\
+avx512f,+avx512bw,+avx512vl,+avx512vbmi,-amx-tile,+popcnt,+64bit,-avx10.1,+cx16,+crc32,+sahf,\
+bmi,+bmi2,+lzcnt,+movbe,+xsave,+avx512cd,+avx512dq";

fn on(features: &str, name: &str) -> bool {
    isa::has(features, name)
}

#[test]
fn no_override_keeps_the_host_list_as_it_is() {
    assert_eq!(isa::apply(HOST, "").unwrap(), HOST);
}

#[test]
fn turning_avx512f_off_turns_off_what_needs_it_and_keeps_avx2() {
    let f = isa::apply(HOST, "-avx512f").unwrap();
    for gone in ["avx512f", "avx512bw", "avx512vl", "avx512vbmi"] {
        assert!(!on(&f, gone), "{gone} in {f}");
    }
    for kept in ["avx2", "fma", "avx", "sse4.2", "aes", "vaes"] {
        assert!(on(&f, kept), "{kept} not in {f}");
    }
    assert_eq!(isa::class(&f), "avx2");
    assert_eq!(isa::vector_registers(&f), (32, 16));
}

#[test]
fn turning_avx_off_leaves_sse() {
    let f = isa::apply(HOST, "-avx").unwrap();
    for gone in [
        "avx",
        "avx2",
        "fma",
        "f16c",
        "vaes",
        "avx512f",
        "avx512vbmi",
    ] {
        assert!(!on(&f, gone), "{gone} in {f}");
    }
    for kept in ["sse4.2", "ssse3", "aes", "popcnt"] {
        assert!(on(&f, kept), "{kept} not in {f}");
    }
    assert_eq!(isa::class(&f), "sse");
    assert_eq!(isa::vector_registers(&f), (16, 16));
}

#[test]
fn overrides_apply_in_order() {
    // Off, then on again: turning a feature on turns on what it needs.
    let f = isa::apply(HOST, "-avx,+avx2").unwrap();
    assert!(on(&f, "avx2") && on(&f, "avx") && !on(&f, "fma"), "{f}");
}

#[test]
fn a_feature_the_host_lacks_is_refused() {
    let e = isa::apply(HOST, "+amx-tile").unwrap_err();
    assert!(e.contains("lacks 'amx-tile'"), "{e}");
    let e = isa::apply("+sse2,-avx2", "+avx2").unwrap_err();
    assert!(e.contains("lacks 'avx2'"), "{e}");
}

#[test]
fn an_unknown_or_malformed_feature_is_refused() {
    let e = isa::apply(HOST, "-avx513").unwrap_err();
    assert!(e.contains("unknown feature 'avx513'"), "{e}");
    let e = isa::apply(HOST, "avx2").unwrap_err();
    assert!(e.contains("'avx2' is not a feature"), "{e}");
}

#[test]
fn an_x86_64_level_keeps_only_its_features() {
    let v2 = isa::level(HOST, "x86-64-v2").unwrap();
    assert!(on(&v2, "sse4.2") && on(&v2, "popcnt"), "{v2}");
    assert!(
        !on(&v2, "avx") && !on(&v2, "aes") && !on(&v2, "avx512f"),
        "{v2}"
    );
    let v4 = isa::level(HOST, "x86-64-v4").unwrap();
    assert_eq!(isa::class(&v4), "avx512");
    // A level whose features the host lacks cannot run here.
    let e = isa::level(&isa::apply(HOST, "-avx512f").unwrap(), "x86-64-v4").unwrap_err();
    assert!(e.contains("lacks 'avx512f'"), "{e}");
    assert!(isa::level(HOST, "skylake").is_err());
}

fn key(features: &str) -> TargetKey {
    TargetKey {
        cpu: "znver4".into(),
        features: features.into(),
        threads: 1,
    }
}

#[test]
fn a_keys_machine_takes_vectors_from_its_features_and_the_rest_from_the_host() {
    let host = Machine::host();
    for (features, bytes, registers) in [
        (HOST.to_string(), 64, 32),
        (isa::apply(HOST, "-avx512f").unwrap(), 32, 16),
        (isa::apply(HOST, "-avx").unwrap(), 16, 16),
    ] {
        let m = key(&features).machine();
        assert_eq!((m.vector_bytes, m.vector_registers), (bytes, registers));
        assert_eq!(
            (m.cores, m.l1_bytes, m.l2_bytes),
            (host.cores, host.l1_bytes, host.l2_bytes)
        );
    }
}

/// The model's tasks with their spaces on `target`.
fn tasks_on(target: &TargetKey) -> Vec<TunableTask> {
    let (mut ctx, module) = parse_module(MODEL).unwrap();
    run_pipeline(&mut ctx, module, FRONT_PIPELINE).unwrap();
    let machine = target.machine().schedule_target();
    tasks(&mut ctx, module)
        .into_iter()
        .map(|task| {
            let (space, summary) = Space::of(&task, &machine).unwrap();
            TunableTask {
                task,
                space,
                summary,
            }
        })
        .filter(|t| t.space.is_tunable())
        .collect()
}

/// `count` records of random decisions of each task on `target`, latencies made up.
fn records(target: &TargetKey, tasks: &[TunableTask], count: usize, seed: u64) -> Vec<Record> {
    let mut rng = Rng::seeded(seed);
    let mut out = Vec::new();
    for t in tasks {
        for i in 0..count {
            let d = t.space.sample(&mut rng).unwrap();
            out.push(Record {
                target: target.clone(),
                task_key: t.task.key.clone(),
                space: t.space.kind().into(),
                description: t.space.describe(&d),
                decision: d,
                status: if i == 0 { Status::Crash } else { Status::Ok },
                latency_s: (i > 0).then_some(1e-3 * (1.0 + i as f64)),
                runs_s: vec![],
                error: None,
                search: "random".into(),
            });
        }
    }
    out
}

fn avx512() -> TargetKey {
    key(HOST)
}

fn sse() -> TargetKey {
    key(&isa::apply(HOST, "-avx").unwrap())
}

fn database_with_two_isas(dir: &tempfile::TempDir) -> Database {
    let mut db = Database::open(&dir.path().join("t.db")).unwrap();
    for target in [avx512(), sse()] {
        let tasks = tasks_on(&target);
        for r in records(&target, &tasks, 6, 3) {
            let t = tasks.iter().find(|t| t.task.key == r.task_key).unwrap();
            db.add(&r, &t.summary, &t.task.ir).unwrap();
        }
    }
    db
}

#[test]
fn records_of_one_isa_never_answer_for_another() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(&dir.path().join("t.db")).unwrap();
    let tasks = tasks_on(&avx512());
    for r in records(&avx512(), &tasks, 4, 1) {
        db.add(&r, &tasks[0].summary, &tasks[0].task.ir).unwrap();
    }
    assert!(!db.records(&avx512()).unwrap().is_empty());
    assert!(db.records(&sse()).unwrap().is_empty());
    for t in &tasks {
        assert!(db.best(&avx512(), &t.task.key).unwrap().is_some());
        assert_eq!(db.best(&sse(), &t.task.key).unwrap(), None);
    }
}

#[test]
fn records_group_by_target_with_each_targets_spaces() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_with_two_isas(&dir);
    let mut devices: Vec<DeviceRecords> = Vec::new();
    add_rows(&mut devices, db.select("", &[]).unwrap(), "t.db").unwrap();
    assert_eq!(devices.len(), 2);
    for d in &devices {
        assert!(d.records.iter().all(|r| r.target == d.target));
        for (t, expected) in d.tasks.iter().zip(tasks_on(&d.target)) {
            assert_eq!(t.space.knob_sizes(), expected.space.knob_sizes());
        }
    }
    // The two ISAs' spaces differ (vector widths).
    assert_ne!(
        devices[0].tasks[0].space.knob_sizes(),
        devices[1].tasks[0].space.knob_sizes()
    );
}

#[test]
fn the_data_set_exports_sentences_that_decode_back_in_their_targets_space() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_with_two_isas(&dir);
    let mut devices: Vec<DeviceRecords> = Vec::new();
    add_rows(&mut devices, db.select("", &[]).unwrap(), "t.db").unwrap();
    let mut out = Vec::new();
    let (written, skipped) = export(&devices, &mut out).unwrap();
    let total: usize = devices.iter().map(|d| d.records.len()).sum();
    assert_eq!((written, skipped), (total, 0));
    let text = String::from_utf8(out).unwrap();
    let mut isas = std::collections::BTreeSet::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let target = TargetKey::parse(v["target"].as_str().unwrap()).unwrap();
        let device = devices.iter().find(|d| d.target == target).unwrap();
        let task = device
            .tasks
            .iter()
            .find(|t| t.task.key == v["task"].as_str().unwrap())
            .unwrap();
        let words: Vec<String> = serde_json::from_value(v["sentence"].clone()).unwrap();
        let decision: Vec<usize> = serde_json::from_value(v["decision"].clone()).unwrap();
        assert_eq!(decode(&task.space, &words).unwrap(), decision);
        let isa = v["isa"].as_str().unwrap().to_string();
        assert!(words.contains(&format!("isa={isa}")), "{line}");
        let label = v["label"].as_f64().unwrap();
        match v["status"].as_str().unwrap() {
            "ok" => assert!(label > 0.0 && label <= 1.0, "{line}"),
            _ => assert_eq!(label, 0.0),
        }
        isas.insert(isa);
    }
    assert_eq!(
        isas.into_iter().collect::<Vec<_>>(),
        vec!["avx512".to_string(), "sse".to_string()]
    );
}
