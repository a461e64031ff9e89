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
                diag.message
            ));
            if let Some(text) = sources.line(file, line) {
                out.push_str(text);
                out.push('\n');
                // Columns count bytes; keep tabs so the caret lines up.
                let pad: String = text
                    .bytes()
                    .take(col.saturating_sub(1) as usize)
                    .map(|b| if b == b'\t' { '\t' } else { ' ' })
                    .collect();
                out.push_str(&pad);
                out.push_str("^\n");
            }
        }
        None => {
            let mut where_ = String::new();
            crate::printer::print_location_inline(ctx, diag.loc, &mut where_);
            out.push_str(&format!("{where_}: {severity}: {}\n", diag.message));
        }
    }
}
