//! `--verify-diagnostics`: matches emitted diagnostics against `expected-error`,
//! `expected-warning`, `expected-note` and `expected-remark` comments in the source.
//!
//! Syntax, as in MLIR: `// expected-error {{substring}}` on the line of the diagnostic,
//! `@+N`/`@-N` for N lines below/above, `@above`/`@below` for the nearest line above/below
//! that holds no designator.

use crate::diagnostics::Severity;

/// One expectation parsed from a comment.
#[derive(Clone, Debug)]
pub struct Expected {
    pub severity: Severity,
    /// 1-based line the diagnostic must be reported on.
    pub line: u32,
    pub message: String,
    /// Line of the comment itself, for reporting.
    pub comment_line: u32,
    pub matched: bool,
}

/// Reads every `expected-*` comment from `text`. `first_line` is the 1-based line number
/// of `text`'s first line in its file. Malformed comments are returned as errors
/// (line, message).
pub fn parse_expectations(text: &str, first_line: u32) -> Result<Vec<Expected>, (u32, String)> {
    let mut out: Vec<Expected> = Vec::new();
    // As in MLIR, `@above`/`@below` skip lines that hold designators themselves: they name
    // the nearest line above (below) without any.
    let mut last_plain_line = first_line;
    let mut below: Vec<usize> = Vec::new();
    let mut line_no = first_line;
    for (i, line) in text.lines().enumerate() {
        line_no = first_line + i as u32;
        let designators_before = out.len();
        let mut rest = line;
        while let Some(pos) = rest.find("expected-") {
            rest = &rest[pos + "expected-".len()..];
            let (severity, after) = if let Some(r) = rest.strip_prefix("error") {
                (Severity::Error, r)
            } else if let Some(r) = rest.strip_prefix("warning") {
                (Severity::Warning, r)
            } else if let Some(r) = rest.strip_prefix("note") {
                (Severity::Note, r)
            } else if let Some(r) = rest.strip_prefix("remark") {
                (Severity::Remark, r)
            } else {
                continue;
            };
            let mut target = line_no;
            // MLIR allows spaces between the designator and `@+N`.
            let mut after = after.trim_start_matches(' ');
            if let Some(r) = after.strip_prefix('@') {
                let end = r
                    .find(|c: char| c.is_whitespace() || c == '{')
                    .unwrap_or(r.len());
                let spec = &r[..end];
                target = match spec {
                    "above" => last_plain_line,
                    "below" => {
                        below.push(out.len());
                        line_no + 1
                    }
                    _ => {
                        let delta: i64 = spec.parse().map_err(|_| {
                            (
                                line_no,
                                format!("invalid line offset '@{spec}' in expected-* comment"),
                            )
                        })?;
                        let t = line_no as i64 + delta;
                        if t < 1 {
                            return Err((
                                line_no,
                                "expected-* line offset points before the file".into(),
                            ));
                        }
                        t as u32
                    }
                };
                after = &r[end..];
            }
            let after = after.trim_start();
            let Some(body) = after.strip_prefix("{{") else {
                return Err((line_no, "expected '{{' after expected-* designator".into()));
            };
            let Some(close) = body.find("}}") else {
                return Err((line_no, "expected '}}' to end expected-* message".into()));
            };
            out.push(Expected {
                severity,
                line: target,
                message: body[..close].to_string(),
                comment_line: line_no,
                matched: false,
            });
            rest = &body[close + 2..];
        }
        if out.len() == designators_before {
            for index in below.drain(..) {
                out[index].line = line_no;
            }
            last_plain_line = line_no;
        }
    }
    // A dangling `@below` names the line after the text.
    for index in below {
        out[index].line = line_no + 1;
    }
    Ok(out)
}

/// Marks the first unmatched expectation that fits a diagnostic; returns whether one did.
pub fn match_diagnostic(
    expected: &mut [Expected],
    severity: Severity,
    line: Option<u32>,
    message: &str,
) -> bool {
    for e in expected.iter_mut() {
        if !e.matched
            && e.severity == severity
            && Some(e.line) == line
            && message.contains(&e.message)
        {
            e.matched = true;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_offsets_and_messages() {
        let text = "// expected-error@+1 {{bad thing}}\nop\nop // expected-note {{here}}\n// expected-warning@above {{w}}";
        let e = parse_expectations(text, 10).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!((e[0].line, e[0].message.as_str()), (11, "bad thing"));
        assert_eq!((e[1].line, e[1].severity), (12, Severity::Note));
        // Line 12 holds a designator, so `@above` names line 11, as in MLIR.
        assert_eq!(e[2].line, 11);
    }

    #[test]
    fn below_skips_designator_lines() {
        let text = "// expected-error@below {{e}}\n// expected-note@below {{n}}\nop\n// expected-error@below {{dangling}}";
        let e = parse_expectations(text, 1).unwrap();
        assert_eq!((e[0].line, e[1].line), (3, 3));
        assert_eq!(e[2].line, 5);
    }

    #[test]
    fn matching_consumes_each_expectation_once() {
        let mut e = parse_expectations("x // expected-error {{boom}}", 1).unwrap();
        assert!(match_diagnostic(
            &mut e,
            Severity::Error,
            Some(1),
            "a boom here"
        ));
        assert!(!match_diagnostic(&mut e, Severity::Error, Some(1), "boom"));
    }

    #[test]
    fn unterminated_message_is_reported() {
        assert!(parse_expectations("// expected-error {{oops", 1).is_err());
    }
}
