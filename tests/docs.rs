//! The README and docs/ cannot drift from the program: every `motionlab …` (or `scripts/run.sh …`)
//! command they write (in backticks or a code block) names subcommands that exist and options that those
//! subcommands take, every repository path they write exists, and every relative link resolves.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page of docs/.
fn documents() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    out.extend(pages);
    out
}

/// The code of a markdown text: the lines of fenced blocks and the spans in backticks.
fn code_of(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            out.push((i + 1, line.to_string()));
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let Some(span) = parts.next() {
            out.push((i + 1, span.to_string()));
            parts.next();
        }
    }
    out
}

/// Each `motionlab …` invocation in a piece of code: its words up to a comment, a pipe or the
/// end of the piece.
fn invocations(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let words: Vec<&str> = code.split_whitespace().collect();
    for (k, w) in words.iter().enumerate() {
        // `scripts/run.sh ARGS` runs `motionlab ARGS`.
        if !matches!(*w, "motionlab" | "scripts/run.sh") {
            continue;
        }
        let rest: Vec<String> = words[k + 1..]
            .iter()
            .take_while(|w| {
                !matches!(
                    **w,
                    "#" | "|" | "&&" | ";" | "or" | "motionlab" | "scripts/run.sh"
                )
            })
            .map(|w| w.to_string())
            .collect();
        out.push(rest);
    }
    out
}

fn help(args: &[&str]) -> Option<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(args)
        .arg("--help")
        .output()
        .expect("runs motionlab");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The subcommand names a help text lists.
fn subcommands(help: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut listing = false;
    for line in help.lines() {
        if line.starts_with("Commands:") {
            listing = true;
            continue;
        }
        if listing {
            if !line.starts_with("  ") {
                break;
            }
            if let Some(name) = line.split_whitespace().next() {
                out.insert(name.to_string());
            }
        }
    }
    out
}

#[test]
fn every_command_the_docs_write_parses_with_its_options() {
    let top = help(&[]).expect("motionlab --help");
    let commands = subcommands(&top);
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (line, code) in code_of(&text) {
            for words in invocations(&code) {
                let Some(first) = words.first() else {
                    continue;
                };
                if first.starts_with('-') || first.starts_with('[') {
                    // `motionlab --help`, `motionlab [COMMAND]`.
                    continue;
                }
                let first = first.trim_end_matches([',', '.', ')']);
                // Hidden commands (`gait-job`) are not listed but answer --help.
                if !commands.contains(first) && help(&[first]).is_none() {
                    if first.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                        problems.push(format!(
                            "{}:{line}: `motionlab {first}` is not a command",
                            doc.display()
                        ));
                    }
                    continue;
                }
                if first == "gui" && !cfg!(feature = "gui") {
                    continue;
                }
                let mut path = vec![first.to_string()];
                let Some(mut text) = help(&[first]) else {
                    problems.push(format!(
                        "{}:{line}: `motionlab {first} --help` fails",
                        doc.display()
                    ));
                    continue;
                };
                if let Some(second) = words.get(1)
                    && subcommands(&text).contains(second.as_str())
                {
                    path.push(second.clone());
                    let args: Vec<&str> = path.iter().map(String::as_str).collect();
                    match help(&args) {
                        Some(t) => text = t,
                        None => {
                            problems.push(format!(
                                "{}:{line}: `motionlab {} --help` fails",
                                doc.display(),
                                path.join(" ")
                            ));
                            continue;
                        }
                    }
                }
                checked += 1;
                for w in &words[path.len()..] {
                    let w = w.trim_start_matches('[');
                    if !w.starts_with("--") {
                        continue;
                    }
                    let option: String = w
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                        .collect();
                    if option.len() > 2
                        && !text.contains(&format!("{option} "))
                        && !text.contains(&format!("{option}\n"))
                        && !text.contains(&format!("{option}="))
                        && !text.contains(&format!("{option},"))
                    {
                        problems.push(format!(
                            "{}:{line}: `motionlab {}` has no option {option}",
                            doc.display(),
                            path.join(" ")
                        ));
                    }
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} commands found in the docs");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The repository's top-level folders a path in the docs may start with.
fn top_level_folders() -> BTreeSet<String> {
    std::fs::read_dir(root())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && n != "target" && n != "results")
        .collect()
}

/// A word of code that names a file or folder of the repository, if it does.
fn repository_path(word: &str, folders: &BTreeSet<String>) -> Option<String> {
    let w = word
        .trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | '(' | ')' | ',' | ';' | ':' | '['))
        .trim_end_matches(['.', ']']);
    let first = w.split('/').next()?;
    if !w.contains('/') || !folders.contains(first) {
        return None;
    }
    // Placeholders (`DIR/`, `SCENE.ron`), globs and ellipses are not paths.
    let placeholder = w.split('/').any(|part| {
        let stem = part.split('.').next().unwrap_or("");
        stem.len() > 1 && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    });
    if placeholder || w.contains(['*', '…', '<', '{', '|']) || w.contains("...") {
        return None;
    }
    Some(w.to_string())
}

#[test]
fn every_path_and_link_the_docs_write_exists() {
    let folders = top_level_folders();
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (line, code) in code_of(&text) {
            for word in code.split_whitespace() {
                // `--out=DIR/x`: the value.
                let piece = match word.strip_prefix("--") {
                    Some(w) => w.split_once('=').map_or("", |(_, v)| v),
                    None => word,
                };
                {
                    let Some(path) = repository_path(piece, &folders) else {
                        continue;
                    };
                    checked += 1;
                    // A module named by its path (`src/files` for src/files.rs).
                    let module = root().join(format!("{path}.rs"));
                    if !root().join(&path).exists() && !module.exists() {
                        problems.push(format!("{}:{line}: {path} does not exist", doc.display()));
                    }
                }
            }
        }
        // Relative links and images: `](target)`.
        let base = doc.parent().unwrap_or(Path::new("."));
        for (i, line) in text.lines().enumerate() {
            for part in line.split("](").skip(1) {
                let target = part.split(')').next().unwrap_or("");
                let target = target.split('#').next().unwrap_or("");
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                if !base.join(target).exists() {
                    problems.push(format!(
                        "{}:{}: link {target} does not resolve",
                        doc.display(),
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} paths found in the docs");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
