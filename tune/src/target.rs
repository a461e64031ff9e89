//! The target a record was measured on. Records only answer for the target they were
//! measured on: the same CPU model, ISA features and thread count.

use serde::{Deserialize, Serialize};

/// What identifies a measuring machine for the database.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TargetKey {
    /// The CPU model LLVM generates code for (`znver3`, `skylake-avx512`, ...).
    pub cpu: String,
    /// The LLVM feature string the code was generated with.
    pub features: String,
    /// Threads parallel loops run on (1: in order).
    pub threads: usize,
}

impl TargetKey {
    /// The key the database stores: all three parts, so no two targets share one.
    pub fn id(&self) -> String {
        format!("{}|{}|threads={}", self.cpu, self.features, self.threads)
    }

    /// A short description for reports.
    pub fn describe(&self) -> String {
        format!(
            "{} ({} thread{})",
            self.cpu,
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        )
    }
}

impl TargetKey {
    /// The key spelled by [`TargetKey::id`] (`cpu|features|threads=N`), or why it is not one.
    pub fn parse(id: &str) -> Result<TargetKey, String> {
        let bad = || format!("'{id}' is not a target key (expected `CPU|FEATURES|threads=N`)");
        let (rest, threads) = id.rsplit_once("|threads=").ok_or_else(bad)?;
        let (cpu, features) = rest.split_once('|').ok_or_else(bad)?;
        let threads: usize = threads.parse().map_err(|_| bad())?;
        if cpu.is_empty() || threads == 0 {
            return Err(bad());
        }
        Ok(TargetKey {
            cpu: cpu.to_string(),
            features: features.to_string(),
            threads,
        })
    }

    /// The machine this key stands for on this host: vector width and registers from its
    /// ISA features (a device with AVX-512 turned off has AVX2's 32-byte vectors, even on
    /// an AVX-512 host), cores and caches from the host. Spaces of a device are built for
    /// it, so its decisions are those its code is generated for.
    pub fn machine(&self) -> Machine {
        let (vector_bytes, vector_registers) = crate::isa::vector_registers(&self.features);
        Machine {
            vector_bytes,
            vector_registers,
            ..Machine::host()
        }
    }

    /// The ISA class of the key (`avx512`, `avx2`, `sse`, `neon`).
    pub fn isa(&self) -> &'static str {
        crate::isa::class(&self.features)
    }

    /// The machine a key alone implies: vector registers from its ISA features, one core
    /// per thread, common cache sizes. Only for synthetic workers, which stand in for a
    /// machine they do not run on; a real worker describes the machine it runs on.
    pub fn assumed_machine(&self) -> Machine {
        let (vector_bytes, vector_registers) = crate::isa::vector_registers(&self.features);
        Machine {
            vector_bytes,
            vector_registers,
            cores: self.threads as i64,
            l1_bytes: 32 << 10,
            l2_bytes: 1 << 20,
        }
    }
}

/// What a target's search spaces are built from: the schedule target
/// ([`tb_passes::schedule::Target`]: vector width and registers, cores, caches) its
/// workers see. Workers store it with their target (`targets.machine`, JSON), so a
/// coordinator on another machine builds the spaces that target's workers validate and
/// measure decisions in, not its own host's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    pub vector_bytes: i64,
    pub vector_registers: i64,
    pub cores: i64,
    pub l1_bytes: i64,
    pub l2_bytes: i64,
}

impl Machine {
    /// The machine this process runs on, as the schedules see it.
    pub fn host() -> Machine {
        Machine::of(&tb_passes::schedule::Target::host())
    }

    pub fn of(t: &tb_passes::schedule::Target) -> Machine {
        Machine {
            vector_bytes: t.vector_bytes,
            vector_registers: t.vector_registers,
            cores: t.cores,
            l1_bytes: t.l1_bytes,
            l2_bytes: t.l2_bytes,
        }
    }

    /// The schedule target spaces are built for.
    pub fn schedule_target(&self) -> tb_passes::schedule::Target {
        tb_passes::schedule::Target {
            vector_bytes: self.vector_bytes,
            vector_registers: self.vector_registers,
            cores: self.cores,
            l1_bytes: self.l1_bytes,
            l2_bytes: self.l2_bytes,
        }
    }

    /// The stored form (`targets.machine`).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("numbers serialize")
    }

    /// A stored description, or why it cannot be used (written by something else).
    pub fn from_json(text: &str) -> Result<Machine, String> {
        let m: Machine = serde_json::from_str(text)
            .map_err(|e| format!("its machine description '{text}' is malformed: {e}"))?;
        if m.vector_bytes < 4 || m.vector_registers < 4 || m.cores < 1 {
            return Err(format!(
                "its machine description '{text}' is implausible (vector bytes, registers or cores too small)"
            ));
        }
        Ok(m)
    }

    /// A short description for reports (`32-byte vectors x 16, 2 cores`).
    pub fn describe(&self) -> String {
        format!(
            "{}-byte vectors x {}, {} core{}",
            self.vector_bytes,
            self.vector_registers,
            self.cores,
            if self.cores == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_parses_back_from_its_id() {
        let key = TargetKey {
            cpu: "skylake-avx512".into(),
            features: "+avx2,-avx512bw,+fma".into(),
            threads: 4,
        };
        assert_eq!(TargetKey::parse(&key.id()), Ok(key));
        let no_features = TargetKey::parse("generic||threads=1").unwrap();
        assert_eq!(no_features.features, "");
    }

    #[test]
    fn a_malformed_key_is_refused() {
        for bad in [
            "skylake",
            "skylake|+avx2",
            "|+avx2|threads=1",
            "x|y|threads=0",
            "x|y|threads=two",
        ] {
            let e = TargetKey::parse(bad).unwrap_err();
            assert!(e.contains("is not a target key"), "{bad}: {e}");
        }
    }

    #[test]
    fn an_assumed_machine_follows_the_features_turned_on() {
        let machine = |features: &str| {
            TargetKey {
                cpu: "x".into(),
                features: features.into(),
                threads: 2,
            }
            .assumed_machine()
        };
        assert_eq!(machine("+avx2,+avx512f,+fma").vector_bytes, 64);
        // A feature turned off does not count.
        assert_eq!(machine("+avx2,-avx512f,+fma").vector_bytes, 32);
        assert_eq!(machine("+avx2").vector_bytes, 16);
        assert_eq!(machine("+neon").vector_registers, 32);
        assert_eq!(machine("+sse4.2").cores, 2);
    }

    #[test]
    fn a_machine_round_trips_and_an_implausible_one_is_refused() {
        let m = Machine::host();
        assert_eq!(Machine::from_json(&m.to_json()), Ok(m));
        let e = Machine::from_json(
            r#"{"vector_bytes":0,"vector_registers":16,"cores":1,"l1_bytes":1,"l2_bytes":1}"#,
        )
        .unwrap_err();
        assert!(e.contains("implausible"), "{e}");
    }
}
