//! Reading and writing character files (RON), with errors that name the file, the line and
//! what was expected.

use super::{Character, Problem};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}:{col}: {message}")]
    Syntax { path: PathBuf, line: usize, col: usize, message: String },
    #[error("{}", format_invalid(path, problems))]
    Invalid { path: PathBuf, problems: Vec<(usize, Problem)> },
}

fn format_invalid(path: &Path, problems: &[(usize, Problem)]) -> String {
    problems
        .iter()
        .map(|(line, p)| format!("{}:{line}: {p}", path.display()))
        .collect::<Vec<_>>()
        .join("\n")
}

impl ModelError {
    /// Line of the first error (1-based), for tests and editors.
    pub fn line(&self) -> Option<usize> {
        match self {
            ModelError::Io { .. } => None,
            ModelError::Syntax { line, .. } => Some(*line),
            ModelError::Invalid { problems, .. } => problems.first().map(|p| p.0),
        }
    }
}

pub fn load_character(path: &Path) -> Result<Character, ModelError> {
    let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io { path: path.into(), source })?;
    parse_character(&text, path)
}

/// Parses and validates; `path` is only used in messages.
pub fn parse_character(text: &str, path: &Path) -> Result<Character, ModelError> {
    let c: Character = ron::Options::default().from_str(text).map_err(|e| ModelError::Syntax {
        path: path.into(),
        line: e.span.start.line,
        col: e.span.start.col,
        message: describe_syntax(&e.code),
    })?;
    let problems = c.validate();
    if problems.is_empty() {
        Ok(c)
    } else {
        let located = problems.into_iter().map(|p| (locate(text, p.record.as_deref(), &p.field), p)).collect();
        Err(ModelError::Invalid { path: path.into(), problems: located })
    }
}

fn describe_syntax(e: &ron::Error) -> String {
    match e {
        ron::Error::MissingStructField { field, outer } => {
            format!("expected field `{field}` in {}", outer.as_deref().unwrap_or("this record"))
        }
        other => format!("{other}"),
    }
}

/// Writes a character atomically (temporary file, then rename).
pub fn save_character(c: &Character, path: &Path) -> std::io::Result<()> {
    let text = ron::ser::to_string_pretty(c, ron::ser::PrettyConfig::default().struct_names(false))
        .map_err(std::io::Error::other)?;
    crate::jobs::write_atomic(path, text.as_bytes())
}

/// Best line for a problem: the line of `field:` inside the record whose name is `record`
/// (found as the quoted string), else the record's line, else 1.
fn locate(text: &str, record: Option<&str>, field: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let start = match record {
        Some(r) => {
            let quoted = format!("\"{r}\"");
            let by_name = lines.iter().position(|l| l.contains(&format!("name: {quoted}")));
            let any = lines.iter().position(|l| l.contains(&quoted) || l.trim_start().starts_with(&format!("{r}:")));
            match by_name.or(any) {
                Some(i) => i,
                None => return 1,
            }
        }
        None => 0,
    };
    // Search from the record's line for the field, stopping at the next record name.
    let key = format!("{field}:");
    for (i, l) in lines.iter().enumerate().skip(start) {
        if i > start && l.contains("name: \"") && record.is_some() {
            break;
        }
        if l.trim_start().starts_with(&key) || l.contains(&format!(" {key}")) || l.contains(&format!("({key}")) {
            return i + 1;
        }
    }
    start + 1
}
