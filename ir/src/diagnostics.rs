//! Diagnostics with locations, rendered as `file:line:col: error: message` followed by
//! the source line and a caret, as MLIR prints them.

use crate::context::Context;
use crate::location::{Location, LocationKind};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Severity {
    Error,
    Warning,
    Note,
    Remark,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub loc: Location,
    pub message: String,
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    pub fn error(loc: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    pub fn with_note(mut self, loc: Location, message: impl Into<String>) -> Diagnostic {
        self.notes.push(Diagnostic {
            severity: Severity::Note,
            loc,
            message: message.into(),
            notes: Vec::new(),
        });
        self
    }
}

/// The source buffers diagnostics may quote.
#[derive(Default)]
pub struct SourceMgr {
    buffers: Vec<(String, String)>,
}

impl SourceMgr {
    pub fn new() -> SourceMgr {
        SourceMgr::default()
    }

    pub fn add_buffer(&mut self, name: &str, text: &str) {
        self.buffers.push((name.to_string(), text.to_string()));
    }

    fn line(&self, file: &str, line: u32) -> Option<&str> {
        let (_, text) = self.buffers.iter().rev().find(|(n, _)| n == file)?;
        text.lines().nth(line.checked_sub(1)? as usize)
    }
}

/// The file position a location points at, looking through names, call sites and fusions.
pub fn file_position(ctx: &Context, loc: Location) -> Option<(&str, u32, u32)> {
    match ctx.location_kind(loc)? {
        LocationKind::FileLineCol {
            file, line, col, ..
        } => Some((file, *line, *col)),
        LocationKind::Name { child, .. } => file_position(ctx, (*child)?),
        LocationKind::CallSite { callee, .. } => file_position(ctx, *callee),
        LocationKind::Fused { locations, .. } => {
            locations.iter().find_map(|&l| file_position(ctx, l))
        }
        LocationKind::Unknown => None,
    }
}

/// Renders a diagnostic and its notes.
pub fn render(ctx: &Context, sources: &SourceMgr, diag: &Diagnostic) -> String {
    let mut out = String::new();
    render_one(ctx, sources, diag, &mut out);
    for note in &diag.notes {
        render_one(ctx, sources, note, &mut out);
    }
    out
}

fn render_one(ctx: &Context, sources: &SourceMgr, diag: &Diagnostic, out: &mut String) {
    let severity = diag.severity.as_str();
    match file_position(ctx, diag.loc) {
        Some((file, line, col)) => {
            out.push_str(&format!(
                "{file}:{line}:{col}: {severity}: {}\n",
                escape_controls(&diag.message)
            ));
            if let Some(text) = sources.line(file, line) {
                out.push_str(&escape_controls(text));
                out.push('\n');
                // Columns count bytes; keep tabs and pad escaped control characters to
                // their escaped width so the caret lines up.
                let mut pad = String::new();
                let before = col.saturating_sub(1) as usize;
                for (_, c) in text.char_indices().take_while(|&(at, _)| at < before) {
                    match c {
                        '\t' => pad.push('\t'),
                        _ if is_escaped_control(c) => pad.extend(c.escape_debug().map(|_| ' ')),
                        _ => pad.extend(std::iter::repeat_n(' ', c.len_utf8())),
                    }
                }
                out.push_str(&pad);
                out.push_str("^\n");
            }
        }
        None => {
            let mut where_ = String::new();
            crate::printer::print_location_inline(ctx, diag.loc, &mut where_);
            out.push_str(&format!(
                "{where_}: {severity}: {}\n",
                escape_controls(&diag.message)
            ));
        }
    }
}

/// Control characters other than newline and tab, which must not reach a terminal raw
/// (a NUL from a string literal, an escape sequence).
fn is_escaped_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `text` with its control characters written as Rust escapes (`\0`, `\u{1b}`).
fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_escaped_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_escaped_control(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_the_caret_still_lines_up() {
        let mut ctx = Context::new();
        let loc = ctx.file_loc("f.mlir", 1, 8);
        let mut sources = SourceMgr::new();
        sources.add_buffer("f.mlir", "\"a\0b\"\t@x");
        let diag = Diagnostic::error(loc, "bad name 'a\0b'\nsecond line");
        let text = render(&ctx, &sources, &diag);
        assert_eq!(
            text,
            "f.mlir:1:8: error: bad name 'a\\0b'\nsecond line\n\"a\\0b\"\t@x\n      \t ^\n"
        );
    }

    #[test]
    fn text_without_control_characters_is_unchanged() {
        assert!(matches!(
            escape_controls("plain é\ttext\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
