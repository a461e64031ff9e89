//! MLIR's textual pass pipeline syntax:
//! `builtin.module(func.func(canonicalize,cse),some-pass{opt=1 list=1,2})`.

use std::fmt;

/// One element of a pipeline: a pass with its options, or a nested pipeline on an op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipelineElement {
    Pass {
        name: String,
        options: Vec<(String, String)>,
    },
    Nested(Pipeline),
}

/// Passes to run on ops named `anchor` (`any` matches every op).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    pub anchor: String,
    pub elements: Vec<PipelineElement>,
}

/// A syntax error at a byte offset of the pipeline text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at offset {})", self.message, self.offset)
    }
}

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl Cursor<'_> {
    fn skip_spaces(&mut self) {
        while self.text[self.pos..].starts_with(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_spaces();
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T, PipelineError> {
        Err(PipelineError {
            offset: self.pos,
            message: message.into(),
        })
    }

    /// A pass or op name: letters, digits, `_`, `-`, `.` and `$`.
    fn name(&mut self) -> Result<String, PipelineError> {
        self.skip_spaces();
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '$'))
        {
            self.pos += 1;
        }
        if start == self.pos {
            return self.error("expected a pass or operation name");
        }
        Ok(self.text[start..self.pos].to_string())
    }

    /// `{key=value key2=v1,v2 flag}`; values may hold nested braces, brackets and quotes.
    fn options(&mut self) -> Result<Vec<(String, String)>, PipelineError> {
        let mut options = Vec::new();
        loop {
            self.skip_spaces();
            if self.eat('}') {
                return Ok(options);
            }
            if self.peek().is_none() {
                return self.error("expected '}' to close the pass options");
            }
            let key = self.name()?;
            let value = if self.peek() == Some('=') {
                self.pos += 1;
                self.option_value()?
            } else {
                String::new()
            };
            options.push((key, value));
        }
    }

    fn option_value(&mut self) -> Result<String, PipelineError> {
        let start = self.pos;
        let mut depth = 0i32;
        while let Some(c) = self.peek() {
            match c {
                '{' | '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                '"' | '\'' => {
                    let close = self.text[self.pos + 1..].find(c);
                    match close {
                        Some(i) => self.pos += i + 1,
                        None => return self.error("unterminated quote in pass option value"),
                    }
                }
                c if c.is_whitespace() && depth == 0 => break,
                _ => {}
            }
            self.pos += c.len_utf8();
        }
        Ok(self.text[start..self.pos].to_string())
    }

    fn elements(&mut self) -> Result<Vec<PipelineElement>, PipelineError> {
        let mut elements = Vec::new();
        self.skip_spaces();
        if self.peek() == Some(')') {
            return Ok(elements);
        }
        loop {
            let name = self.name()?;
            if self.eat('(') {
                let nested = self.elements()?;
                if !self.eat(')') {
                    return self.error("expected ')' to close the nested pipeline");
                }
                elements.push(PipelineElement::Nested(Pipeline {
                    anchor: name,
                    elements: nested,
                }));
            } else {
                let options = if self.eat('{') {
                    self.options()?
                } else {
                    Vec::new()
                };
                elements.push(PipelineElement::Pass { name, options });
            }
            if !self.eat(',') {
                return Ok(elements);
            }
        }
    }
}

impl Pipeline {
    /// Parses `anchor(elements)`; the whole text must be one anchored pipeline.
    pub fn parse(text: &str) -> Result<Pipeline, PipelineError> {
        let mut cursor = Cursor { text, pos: 0 };
        let anchor = cursor.name()?;
        if !cursor.eat('(') {
            return cursor.error(format!("expected '(' after '{anchor}': a pipeline must be anchored on an operation, e.g. builtin.module(...)"));
        }
        let elements = cursor.elements()?;
        if !cursor.eat(')') {
            return cursor.error("expected ')' to close the pipeline");
        }
        cursor.skip_spaces();
        if cursor.peek().is_some() {
            return cursor.error("unexpected text after the pipeline");
        }
        Ok(Pipeline { anchor, elements })
    }
}

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.anchor)?;
        for (i, element) in self.elements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match element {
                PipelineElement::Nested(p) => write!(f, "{p}")?,
                PipelineElement::Pass { name, options } => {
                    f.write_str(name)?;
                    if !options.is_empty() {
                        let parts: Vec<String> = options
                            .iter()
                            .map(|(k, v)| {
                                if v.is_empty() {
                                    k.clone()
                                } else {
                                    format!("{k}={v}")
                                }
                            })
                            .collect();
                        write!(f, "{{{}}}", parts.join(" "))?;
                    }
                }
            }
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_pipelines_with_options() {
        let p = Pipeline::parse(
            "builtin.module(func.func(canonicalize, cse), some-pass{opt=1 list=1,2 flag})",
        )
        .unwrap();
        assert_eq!(p.anchor, "builtin.module");
        assert_eq!(
            p.to_string(),
            "builtin.module(func.func(canonicalize,cse),some-pass{opt=1 list=1,2 flag})"
        );
    }

    #[test]
    fn option_values_keep_nested_braces_and_quotes() {
        let p = Pipeline::parse("any(p{a={x=1 y=2} b=\"s p}\"})").unwrap();
        let PipelineElement::Pass { options, .. } = &p.elements[0] else {
            panic!("expected a pass")
        };
        assert_eq!(
            options,
            &[
                ("a".to_string(), "{x=1 y=2}".to_string()),
                ("b".to_string(), "\"s p}\"".to_string())
            ]
        );
    }

    #[test]
    fn errors_point_at_the_problem() {
        assert_eq!(Pipeline::parse("cse").unwrap_err().offset, 3);
        assert_eq!(
            Pipeline::parse("builtin.module(cse").unwrap_err().message,
            "expected ')' to close the pipeline"
        );
        assert!(Pipeline::parse("builtin.module(p{a=1)").is_err());
        assert!(Pipeline::parse("builtin.module(cse) junk").is_err());
    }
}
