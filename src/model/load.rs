//! Reading and writing character files (RON), with errors that name the file, the line and
//! what was expected.

use super::{Character, Problem};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{path}: cannot read: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}:{line}:{col}: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        col: usize,
        message: String,
    },
    #[error("{}", format_invalid(path, problems))]
    Invalid {
        path: PathBuf,
        problems: Vec<(usize, Problem)>,
    },
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
    parse_character(&read_text(path)?, path)
}

/// Parses and validates; `path` is only used in messages.
pub fn parse_character(text: &str, path: &Path) -> Result<Character, ModelError> {
    parse_validated(text, path, Character::validate)
}

/// Parses RON text into `T`, then runs `validate`; syntax errors and problems are located by
/// line in `text`. Shared by every user file format (characters, scenes).
pub fn parse_validated<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
    validate: impl Fn(&T) -> Vec<Problem>,
) -> Result<T, ModelError> {
    let bad = super::numbers::bad_numbers(text);
    if !bad.is_empty() {
        return Err(ModelError::Invalid {
            path: path.into(),
            problems: bad
                .into_iter()
                .map(|b| (b.line, Problem::new(None, &b.field, b.message)))
                .collect(),
        });
    }
    // Optional fields (`kp`, `origin`, …) are written bare, without `Some(…)`.
    let value: T = ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(text)
        .map_err(|e| ModelError::Syntax {
            path: path.into(),
            line: e.span.start.line,
            col: e.span.start.col,
            message: describe_syntax(&e.code),
        })?;
    let problems = validate(&value);
    if problems.is_empty() {
        Ok(value)
    } else {
        let located = problems
            .into_iter()
            .map(|p| (locate(text, &p), p))
            .collect();
        Err(ModelError::Invalid {
            path: path.into(),
            problems: located,
        })
    }
}

/// Reads a file for [`parse_validated`].
pub fn read_text(path: &Path) -> Result<String, ModelError> {
    std::fs::read_to_string(path).map_err(|error| ModelError::Io {
        path: path.into(),
        error,
    })
}

fn describe_syntax(e: &ron::Error) -> String {
    match e {
        ron::Error::MissingStructField { field, outer } => {
            format!(
                "expected field `{field}` in {}",
                outer.as_deref().unwrap_or("this record")
            )
        }
        other => format!("{other}"),
    }
}

/// The text [`save_character`] writes.
pub fn character_text(c: &Character) -> Result<String, ron::Error> {
    ron::ser::to_string_pretty(c, ron::ser::PrettyConfig::default().struct_names(false))
}

/// Writes a character atomically (temporary file, then rename).
pub fn save_character(c: &Character, path: &Path) -> std::io::Result<()> {
    let text = character_text(c).map_err(std::io::Error::other)?;
    crate::files::write_atomic(path, text.as_bytes())
}

/// Best line (1-based) for a problem: the line of `field:` inside its record, found by the
/// record's section (`joints:`), then its name (`name: "l_knee"`) or position; else the
/// record's line; else the section's line.
fn locate(text: &str, p: &Problem) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let starts_record = |l: &str| l.trim_start().starts_with('(');
    let mut start = 0;
    if let Some(sec) = p.section {
        let key = format!("{sec}:");
        if let Some(i) = lines.iter().position(|l| l.trim_start().starts_with(&key)) {
            start = i;
        }
    }
    let record_line = if let Some(r) = &p.record {
        let named = format!("name: \"{r}\"");
        let quoted = format!("\"{r}\"");
        (start..lines.len())
            .find(|&i| lines[i].contains(&named))
            .or_else(|| (start..lines.len()).find(|&i| lines[i].contains(&quoted)))
    } else if let Some(k) = p.index {
        (start + 1..lines.len())
            .filter(|&i| starts_record(lines[i]))
            .nth(k)
    } else {
        None
    };
    let Some(rec) = record_line else {
        // No record: the field at top level, else the section line.
        let key = format!("{}:", p.field);
        let (open, spaced) = (format!("({key}"), format!(" {key}"));
        return (start..lines.len())
            .find(|&i| {
                let l = lines[i];
                l.trim_start().starts_with(&key) || l.contains(&open) || l.contains(&spaced)
            })
            .unwrap_or(start)
            + 1;
    };
    let key = format!("{}:", p.field);
    for (i, l) in lines.iter().enumerate().skip(rec) {
        if i > rec && (l.contains("name: \"") || (p.index.is_some() && starts_record(l))) {
            break;
        }
        let t = l.trim_start();
        if t.starts_with(&key) || l.contains(&format!(" {key}")) || l.contains(&format!("({key}")) {
            return i + 1;
        }
    }
    rec + 1
}
