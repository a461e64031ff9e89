//! Typed pass options: declared with a kind, a default and help text, parsed from the
//! `{key=value ...}` text of a pipeline with errors that name the pass and the option.

/// The type of an option's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Bool,
    Int,
    String,
    IntList,
}

impl OptionKind {
    pub fn spelling(self) -> &'static str {
        match self {
            OptionKind::Bool => "bool",
            OptionKind::Int => "int",
            OptionKind::String => "string",
            OptionKind::IntList => "list<int>",
        }
    }
}

/// One declared option of a pass.
#[derive(Clone, Copy, Debug)]
pub struct PassOptionInfo {
    pub name: &'static str,
    pub kind: OptionKind,
    pub default: &'static str,
    pub help: &'static str,
}

/// Option values given to a pass, checked against its declared options.
#[derive(Clone, Debug, Default)]
pub struct PassOptions {
    pass: &'static str,
    declared: &'static [PassOptionInfo],
    given: Vec<(String, String)>,
}

impl PassOptions {
    /// Checks that every given option is declared and well typed.
    pub fn new(
        pass: &'static str,
        declared: &'static [PassOptionInfo],
        given: &[(String, String)],
    ) -> Result<PassOptions, String> {
        let options = PassOptions {
            pass,
            declared,
            given: given.to_vec(),
        };
        for (key, value) in given {
            let Some(info) = declared.iter().find(|o| o.name == key) else {
                let known: Vec<&str> = declared.iter().map(|o| o.name).collect();
                return Err(if known.is_empty() {
                    format!("pass '{pass}' takes no options, but was given '{key}'")
                } else {
                    format!(
                        "no such option '{key}' for pass '{pass}' (it has: {})",
                        known.join(", ")
                    )
                });
            };
            options.check(info, value)?;
        }
        Ok(options)
    }

    fn check(&self, info: &PassOptionInfo, value: &str) -> Result<(), String> {
        let ok = match info.kind {
            OptionKind::Bool => parse_bool(value).is_some(),
            OptionKind::Int => value.parse::<i64>().is_ok(),
            OptionKind::String => true,
            OptionKind::IntList => {
                value.is_empty() || value.split(',').all(|v| v.trim().parse::<i64>().is_ok())
            }
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "invalid value '{value}' for option '{}' of pass '{}': expected {}",
                info.name,
                self.pass,
                info.kind.spelling()
            ))
        }
    }

    fn raw(&self, name: &str) -> &str {
        let declared = self
            .declared
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("pass '{}' reads undeclared option '{name}'", self.pass));
        self.given
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map_or(declared.default, |(_, v)| v.as_str())
    }

    pub fn bool(&self, name: &str) -> bool {
        parse_bool(self.raw(name)).expect("checked when the options were created")
    }

    pub fn int(&self, name: &str) -> i64 {
        self.raw(name)
            .parse()
            .expect("checked when the options were created")
    }

    pub fn string(&self, name: &str) -> String {
        self.raw(name).to_string()
    }

    pub fn int_list(&self, name: &str) -> Vec<i64> {
        let raw = self.raw(name);
        if raw.is_empty() {
            return Vec::new();
        }
        raw.split(',')
            .map(|v| {
                v.trim()
                    .parse()
                    .expect("checked when the options were created")
            })
            .collect()
    }
}

/// A flag given without a value (`{flag}`) is true, as in MLIR.
fn parse_bool(value: &str) -> Option<bool> {
    match value {
        "" | "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECLARED: &[PassOptionInfo] = &[
        PassOptionInfo {
            name: "max",
            kind: OptionKind::Int,
            default: "10",
            help: "",
        },
        PassOptionInfo {
            name: "on",
            kind: OptionKind::Bool,
            default: "false",
            help: "",
        },
        PassOptionInfo {
            name: "sizes",
            kind: OptionKind::IntList,
            default: "",
            help: "",
        },
    ];

    #[test]
    fn defaults_and_given_values() {
        let o = PassOptions::new(
            "p",
            DECLARED,
            &[("on".into(), String::new()), ("sizes".into(), "1,2".into())],
        )
        .unwrap();
        assert_eq!(
            (o.int("max"), o.bool("on"), o.int_list("sizes")),
            (10, true, vec![1, 2])
        );
    }

    #[test]
    fn unknown_and_badly_typed_options_are_errors() {
        assert!(
            PassOptions::new("p", DECLARED, &[("nope".into(), "1".into())])
                .unwrap_err()
                .contains("no such option 'nope'")
        );
        assert!(
            PassOptions::new("p", DECLARED, &[("max".into(), "x".into())])
                .unwrap_err()
                .contains("expected int")
        );
    }
}
