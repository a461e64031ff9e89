//! The device a tuning run measures for: this machine as it is, or this machine standing
//! in for a narrower one — an ISA with features turned off (`--mattr=-avx512f`: AVX2) or an
//! x86-64 level (`--mcpu=x86-64-v2`: SSE4.2). Code for such a device runs here, so its
//! records are real measurements of it; its key carries the full feature list the code is
//! generated with ([`tb_tune::isa`]), and its spaces are built for the vector registers
//! those features give, with this host's cores and caches.

use tb_backends::cpu::TargetOptions;
use tb_tune::TargetKey;

/// A device: its database key and the options code for it is generated with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    pub key: TargetKey,
    pub options: TargetOptions,
    /// `--mcpu` and `--mattr` as given, for the measuring children.
    pub args: Vec<String>,
}

impl Device {
    /// This machine with its own features.
    pub fn host(threads: usize) -> Device {
        Device::resolve(None, None, threads).expect("the host itself always resolves")
    }

    /// The device `--mcpu`/`--mattr` name on this machine, or why it cannot be measured
    /// here: a CPU whose features are unknown, an unknown feature name, or a feature this
    /// machine lacks.
    pub fn resolve(
        mcpu: Option<&str>,
        mattr: Option<&str>,
        threads: usize,
    ) -> Result<Device, String> {
        let (host_cpu, host_features) = TargetOptions::host().resolve();
        let (cpu, base, options_cpu) = match mcpu {
            None | Some("native") => (host_cpu.clone(), host_features, None),
            Some(c) if c == host_cpu => (host_cpu.clone(), host_features, None),
            Some(c) if tb_tune::isa::is_level(c) => (
                c.to_string(),
                tb_tune::isa::level(&host_features, c).map_err(|e| format!("--mcpu {c}: {e}"))?,
                Some(c.to_string()),
            ),
            Some(c) => {
                return Err(format!(
                    "--mcpu {c}: records are measured on this machine, so the CPU must be this one (native, {host_cpu}) or an x86-64 level (x86-64, x86-64-v2, x86-64-v3, x86-64-v4) whose features it has; turn features off with --mattr instead"
                ));
            }
        };
        let features = tb_tune::isa::apply(&base, mattr.unwrap_or(""))
            .map_err(|e| format!("--mattr {}: {e}", mattr.unwrap_or("")))?;
        let mut args = Vec::new();
        if let Some(c) = mcpu {
            args.extend(["--mcpu".to_string(), c.to_string()]);
        }
        if let Some(f) = mattr {
            args.push(format!("--mattr={f}"));
        }
        Ok(Device {
            key: TargetKey {
                cpu,
                features: features.clone(),
                threads: threads.max(1),
            },
            options: TargetOptions {
                cpu: options_cpu,
                features: Some(features),
            },
            args,
        })
    }

    /// The schedule target the device's spaces are built for.
    pub fn machine(&self) -> tb_passes::schedule::Target {
        self.key.machine().schedule_target()
    }

    /// `znver4 avx2 (1 thread)`: for messages.
    pub fn describe(&self) -> String {
        format!(
            "{} {} ({} thread{})",
            self.key.cpu,
            self.key.isa(),
            self.key.threads,
            if self.key.threads == 1 { "" } else { "s" }
        )
    }
}
