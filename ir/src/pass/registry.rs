//! Passes by command-line name, with their descriptions and options.

use indexmap::IndexMap;

use super::Pass;
use super::options::{PassOptionInfo, PassOptions};

/// How to make a pass from its options.
pub type PassConstructor = fn(&PassOptions) -> Box<dyn Pass>;

#[derive(Clone)]
pub struct PassInfo {
    pub argument: &'static str,
    pub description: &'static str,
    pub options: &'static [PassOptionInfo],
    pub create: PassConstructor,
}

#[derive(Default, Clone)]
pub struct PassRegistry {
    passes: IndexMap<&'static str, PassInfo>,
}

impl PassRegistry {
    pub fn new() -> PassRegistry {
        PassRegistry::default()
    }

    pub fn register(&mut self, info: PassInfo) {
        self.passes.insert(info.argument, info);
    }

    pub fn get(&self, argument: &str) -> Option<&PassInfo> {
        self.passes.get(argument)
    }

    /// Every pass, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &PassInfo> {
        let mut all: Vec<&PassInfo> = self.passes.values().collect();
        all.sort_by_key(|p| p.argument);
        all.into_iter()
    }

    /// Builds a pass from its name and the options given in a pipeline.
    pub fn create(
        &self,
        argument: &str,
        options: &[(String, String)],
    ) -> Result<Box<dyn Pass>, String> {
        let info = self.get(argument).ok_or_else(|| {
            format!("'{argument}' does not refer to a registered pass (see --list-passes)")
        })?;
        let options = PassOptions::new(info.argument, info.options, options)?;
        Ok((info.create)(&options))
    }
}
