//! Every number literal of a RON file, checked before the file is parsed into its type: no NaN,
//! and no finite magnitude above [`MAX_MAGNITUDE`] (a typo such as `1e30` for `1e3`). The typed
//! checks of each format then hold the physical ranges (masses, durations, gains); this scan
//! catches the numbers they do not name, with the exact line. `inf` stays allowed: it is how a
//! character file writes an unbounded joint coordinate, and typed checks refuse it elsewhere.

/// The largest magnitude a number in a user file may have.
pub const MAX_MAGNITUDE: f64 = 1.0e9;

/// A number literal that no file may hold: its line (1-based), its text and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct BadNumber {
    pub line: usize,
    /// The field it belongs to: the nearest `name:` before it.
    pub field: String,
    pub text: String,
    pub message: String,
}

/// The NaN literals and oversized numbers of RON `text`, outside strings and comments.
pub fn bad_numbers(text: &str) -> Vec<BadNumber> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let mut field = String::from("value");
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'"' => {
                // A string: skip to its closing quote (escapes included).
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    } else if bytes[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    if bytes[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += 2;
            }
            _ if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-' || c == b'+' => {
                // A word: an identifier, or a number with its sign.
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric()
                        || matches!(bytes[i], b'_' | b'.' | b'-' | b'+'))
                {
                    i += 1;
                }
                let word = &text[start..i];
                let bare = word.trim_start_matches(['-', '+']);
                let rest = text[i..].trim_start_matches([' ', '\t']);
                if rest.starts_with(':') && !rest.starts_with("::") {
                    field = word.to_string();
                } else if bare == "NaN" {
                    out.push(BadNumber {
                        line,
                        field: field.clone(),
                        text: word.into(),
                        message: "expected a number, found NaN".into(),
                    });
                } else if bare.starts_with(|ch: char| ch.is_ascii_digit() || ch == '.') {
                    if let Ok(v) = word.replace('_', "").parse::<f64>() {
                        if v.abs() > MAX_MAGNITUDE {
                            out.push(BadNumber {
                                line,
                                field: field.clone(),
                                text: word.into(),
                                message: format!(
                                    "expected a number of magnitude at most {MAX_MAGNITUDE:e}, found {word}"
                                ),
                            });
                        }
                    }
                }
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_and_huge_literals_are_found_on_their_lines_but_not_in_strings_or_comments() {
        let text = "(\n  a: NaN,\n  b: (1.0, -1e30, 2),\n  c: \"NaN 1e99\", // NaN 1e40\n  d: -inf,\n  e: 1_000,\n  /* 1e50\n NaN */ f: 0.5e9,\n  g: -NaN,\n)";
        let found: Vec<(usize, String)> = bad_numbers(text)
            .into_iter()
            .map(|b| (b.line, b.text))
            .collect();
        let expected = [(2, "NaN"), (3, "-1e30"), (9, "-NaN")].map(|(l, t)| (l, t.to_string()));
        assert_eq!(found, expected);
    }

    #[test]
    fn every_shipped_file_is_clean() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for dir in ["characters", "scenes"] {
            for e in std::fs::read_dir(root.join(dir)).unwrap() {
                let p = e.unwrap().path();
                let text = std::fs::read_to_string(&p).unwrap();
                assert_eq!(bad_numbers(&text), [], "{}", p.display());
            }
        }
    }
}
