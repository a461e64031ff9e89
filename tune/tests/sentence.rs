//! Tensor sentences: what they say about a task, its hardware and its decision, and that
//! every sentence decodes back to its decision or is rejected.

mod common;

use common::{CONV, MODEL, avx2, model_tasks, target_key};
use tb_passes::schedule::Rng;
use tb_tune::TargetKey;
use tb_tune::sentence::{
    DECISION_MARK, Hardware, RESERVED, VOCABULARY, decode, sentence, token_id, token_ids,
};
use tb_tune::space::Space;

fn hardware() -> Hardware {
    Hardware::of(&target_key("znver4", 1), &avx2())
}

fn words(text: &str) -> Vec<String> {
    text.split(' ').map(str::to_string).collect()
}

#[test]
fn every_sampled_decision_round_trips() {
    let mut rng = Rng::seeded(11);
    let mut tunable = 0;
    for t in model_tasks(MODEL) {
        if !t.space.is_tunable() {
            continue;
        }
        tunable += 1;
        for _ in 0..100 {
            let d = t.space.sample(&mut rng).expect("a sample");
            let s = sentence(&t.space, &hardware(), &d);
            assert_eq!(decode(&t.space, &s), Ok(d.clone()), "{}", s.join(" "));
        }
    }
    assert!(
        tunable >= 2,
        "the model has matmul and schedule tasks: {tunable}"
    );
}

#[test]
fn a_matmul_sentence_names_its_class_loops_and_knobs() {
    let t = model_tasks(MODEL)
        .into_iter()
        .find(|t| matches!(t.space, Space::MicroKernel(_)))
        .unwrap();
    let d = t.space.sample(&mut Rng::seeded(1)).unwrap();
    let text = sentence(&t.space, &hardware(), &d).join(" ");
    // The 32x16 @ 16x24 matmul: batch 1, m 32, n 24 (nearest power 2^5), k 16.
    assert!(
        text.starts_with("<task> op=matmul rank=4 loop=s:2^0 loop=s:2^5 loop=s:2^5 loop=r:2^4 <hw> isa=avx2 vbytes=32 vregs=16 threads=1 l1=2^15 l2=2^20 <decision> space=microkernel mr="),
        "{text}"
    );
}

#[test]
fn a_schedule_sentence_names_its_loops_and_knob_values() {
    let t = model_tasks(MODEL)
        .into_iter()
        .find(|t| matches!(t.space, Space::Schedule(_)))
        .unwrap();
    let d = t.space.sample(&mut Rng::seeded(2)).unwrap();
    let s = sentence(&t.space, &hardware(), &d);
    let text = s.join(" ");
    assert!(
        text.starts_with("<task> op=elementwise rank=2 elem=4 loop=s:2^5 loop=s:2^5 <hw>"),
        "{text}"
    );
    let decision = &s[s.iter().position(|w| w == DECISION_MARK).unwrap() + 1..];
    assert_eq!(decision[0], "space=schedule");
    assert_eq!(decision.len(), 1 + t.space.knob_sizes().len());
}

#[test]
fn the_hardware_descriptor_follows_the_feature_string() {
    let key = |features: &str, threads| TargetKey {
        cpu: "x".into(),
        features: features.into(),
        threads,
    };
    let isa = |features: &str| Hardware::of(&key(features, 1), &avx2()).isa;
    assert_eq!(isa("+avx512f,+avx2,+sse4.2"), "avx512");
    assert_eq!(isa("-avx512f,+avx2,+sse4.2"), "avx2");
    assert_eq!(isa("-avx512f,-avx2,-avx,+sse4.2"), "sse");
    let h = Hardware::of(&key("+avx512f", 2), &avx2());
    assert_eq!((h.vector_bytes, h.vector_registers, h.threads), (64, 32, 2));
    assert_eq!(
        h.tokens().join(" "),
        "isa=avx512 vbytes=64 vregs=32 threads=2 l1=2^15 l2=2^20"
    );
}

#[test]
fn a_value_the_knob_does_not_offer_is_rejected() {
    let t = model_tasks(MODEL)
        .into_iter()
        .find(|t| matches!(t.space, Space::MicroKernel(_)))
        .unwrap();
    let err = decode(
        &t.space,
        &words("space=microkernel mr=7 nr=8 vector=8 kc=16 nc=64 pack-rhs=true"),
    )
    .unwrap_err();
    assert!(err.contains("mr=7 is not one of"), "{err}");
}

#[test]
fn a_decision_over_the_register_budget_is_rejected() {
    let t = model_tasks(MODEL)
        .into_iter()
        .find(|t| matches!(t.space, Space::MicroKernel(_)))
        .unwrap();
    // 8 x 4 accumulators do not fit 16 AVX2 registers.
    let err = decode(
        &t.space,
        &words("space=microkernel mr=8 nr=32 vector=8 kc=16 nc=64 pack-rhs=true"),
    )
    .unwrap_err();
    assert!(err.contains("vector registers"), "{err}");
}

#[test]
fn missing_misplaced_or_foreign_words_are_rejected() {
    let tasks = model_tasks(MODEL);
    let mk = tasks
        .iter()
        .find(|t| matches!(t.space, Space::MicroKernel(_)))
        .unwrap();
    let sched = tasks
        .iter()
        .find(|t| matches!(t.space, Space::Schedule(_)))
        .unwrap();
    let cases = [
        (&mk.space, "", "no decision words"),
        (&mk.space, "space=schedule", "not 'space=microkernel'"),
        (&mk.space, "space=microkernel mr=1 nr=8", "has 2 knob words"),
        (
            &mk.space,
            "space=microkernel nr=8 mr=1 vector=8 kc=16 nc=64 pack-rhs=true",
            "'nr' where 'mr'",
        ),
        (
            &mk.space,
            "space=microkernel mr=1 nr=12 vector=8 kc=16 nc=64 pack-rhs=true",
            "not a multiple",
        ),
        (&mk.space, "space=microkernel mr", "not a knob=value word"),
        (&sched.space, "space=schedule vector=3", "knob words"),
    ];
    for (space, text, expected) in cases {
        let w: Vec<String> = if text.is_empty() { vec![] } else { words(text) };
        let err = decode(space, &w).unwrap_err();
        assert!(err.contains(expected), "{text}: {err}");
    }
}

#[test]
fn a_schedule_value_off_the_knob_is_rejected() {
    let t = model_tasks(MODEL)
        .into_iter()
        .find(|t| matches!(t.space, Space::Schedule(_)))
        .unwrap();
    let d = t.space.sample(&mut Rng::seeded(4)).unwrap();
    let mut s = sentence(&t.space, &hardware(), &d);
    let last = s.len() - 1;
    let name = s[last].split_once('=').unwrap().0.to_string();
    s[last] = format!("{name}=999");
    let err = decode(&t.space, &s).unwrap_err();
    assert!(
        err.contains("=999 is not one of the knob's values"),
        "{err}"
    );
}

#[test]
fn token_ids_are_stable_and_in_range() {
    // FNV-1a folded into the vocabulary: fixed across builds (values from an independent
    // computation of the hash), so saved models keep their meaning.
    assert_eq!(token_id("isa=avx2"), 414);
    assert_eq!(token_id("isa=avx512"), 3012);
    assert_eq!(token_id("<task>"), 3224);
    let ids = token_ids(&words(
        "<task> op=matmul <hw> isa=sse <decision> space=fixed",
    ));
    assert!(
        ids.iter()
            .all(|&i| (RESERVED..VOCABULARY).contains(&(i as usize)))
    );
}

#[test]
fn a_convolution_sentence_names_its_loops_and_round_trips() {
    let t = model_tasks(CONV)
        .into_iter()
        .find(|t| matches!(t.space, Space::Conv(_)))
        .expect("a convolution task");
    let mut rng = Rng::seeded(5);
    for _ in 0..50 {
        let d = t.space.sample(&mut rng).expect("a sample");
        let s = sentence(&t.space, &hardware(), &d);
        assert_eq!(decode(&t.space, &s), Ok(d.clone()), "{}", s.join(" "));
    }
    let d = t.space.sample(&mut Rng::seeded(1)).unwrap();
    let text = sentence(&t.space, &hardware(), &d).join(" ");
    // 16 output channels, 8x8 pixels; 4 input channels and a 3x3 window reduced over.
    assert!(
        text.starts_with("<task> op=conv rank=6 loop=s:2^4 loop=s:2^3 loop=s:2^3 loop=r:2^2 loop=r:2^2 loop=r:2^2 <hw> ")
            && text.contains("<decision> space=conv mr="),
        "{text}"
    );
}

#[test]
fn a_convolution_block_wider_than_its_channels_is_rejected() {
    let t = model_tasks(CONV)
        .into_iter()
        .find(|t| matches!(t.space, Space::Conv(_)))
        .expect("a convolution task");
    let d = t.space.sample(&mut Rng::seeded(1)).unwrap();
    let mut s = sentence(&t.space, &hardware(), &d);
    let at = s.iter().position(|w| w.starts_with("nr=")).unwrap();
    s[at] = "nr=4096".into();
    assert!(decode(&t.space, &s).is_err(), "{}", s.join(" "));
}
