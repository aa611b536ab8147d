//! Reading Rust sources for their imports, shared by build.rs (the solver hash's sources) and
//! tests/architecture.rs (import cycles, the hash's coverage).

/// A source's code without comments, string contents and test-only items (`#[cfg(test)]` on a
/// module, inline or not).
pub fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut skip_item = false;
    let mut depth = 0i32;
    let mut skipping_block = false;
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let trimmed = code.trim();
        if trimmed.starts_with("#[cfg(test)]") || trimmed.starts_with("#[cfg(all(test") {
            skip_item = true;
            continue;
        }
        if skip_item {
            if trimmed.starts_with("#[") || trimmed.is_empty() {
                continue;
            }
            skip_item = false;
            if trimmed.ends_with(';') {
                continue;
            }
            skipping_block = true;
            depth = 0;
        }
        if skipping_block {
            depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            if depth <= 0 && code.contains('}') {
                skipping_block = false;
            }
            continue;
        }
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// Names that follow `prefix` in `code` (`crate::` gives `crate::X`'s X).
pub fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        if i > 0 {
            let before = code.as_bytes()[i - 1];
            if before.is_ascii_alphanumeric() || before == b'_' || before == b':' {
                continue;
            }
        }
        let rest = &code[i + prefix.len()..];
        if let Some(inner) = rest.strip_prefix('{') {
            // `use crate::{a, b::c}`: the first word of each item.
            let end = inner.find('}').unwrap_or(inner.len());
            for item in inner[..end].split(',') {
                let w: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !w.is_empty() {
                    out.push(w);
                }
            }
            continue;
        }
        let w: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !w.is_empty() {
            out.push(w);
        }
    }
    out
}
