//! The source tree keeps its shape: no import cycle among `src/`'s top-level modules nor among
//! the app's modules (`src/app/X`), no panel importing another, no source file much over 800
//! lines, no citation of a file outside the repository, and the solver hash (build.rs) covers
//! every source a gait solve can reach.

#[path = "../build/source_code.rs"]
mod source_code;

use source_code::{code_of, names_after};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` (recursively) whose name ends with one of `extensions`, sorted.
fn files(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p, extensions));
        } else if extensions
            .iter()
            .any(|x| p.to_string_lossy().ends_with(&format!(".{x}")))
        {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The module path of a source file under `src/` (`src/app/steering/panel.rs` →
/// `[app, steering, panel]`; `mod.rs` names its folder).
fn module_path(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root().join("src")).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The absolute module paths a file refers to: `crate::a::b`, and `super::…` and `self::…`
/// resolved from the file's own module.
fn references(file: &Path, code: &str) -> Vec<Vec<String>> {
    let here = module_path(file);
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        if i > 0
            && (code.as_bytes()[i - 1] == b':' || code.as_bytes()[i - 1].is_ascii_alphanumeric())
        {
            continue;
        }
        out.push(path_words(&code[i + 7..]));
    }
    for (i, _) in code.match_indices("super::") {
        if i > 0
            && (code.as_bytes()[i - 1] == b':' || code.as_bytes()[i - 1].is_ascii_alphanumeric())
        {
            continue;
        }
        let mut base = here.clone();
        let mut rest = &code[i..];
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        for first in first_words(rest) {
            let mut p = base.clone();
            p.push(first);
            out.push(p);
        }
    }
    out
}

/// `a::b::c` (or `{a, b}`) at the start of `rest`, as the path's words (a group gives its items
/// as separate one-word paths through [`first_words`]).
fn path_words(rest: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut r = rest;
    loop {
        let w: String = r
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if w.is_empty() {
            break;
        }
        r = &r[w.len()..];
        words.push(w);
        match r.strip_prefix("::") {
            Some(next) => r = next,
            None => break,
        }
    }
    words
}

fn first_words(rest: &str) -> Vec<String> {
    if let Some(inner) = rest.strip_prefix('{') {
        let end = inner.find('}').unwrap_or(inner.len());
        return inner[..end]
            .split(',')
            .map(|i| path_words(i.trim()).into_iter().next().unwrap_or_default())
            .filter(|w| !w.is_empty())
            .collect();
    }
    path_words(rest).into_iter().take(1).collect()
}

/// The strongly connected components (more than one node) of a graph.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut g = petgraph::graph::DiGraph::<String, ()>::new();
    let mut index = BTreeMap::new();
    let mut node = |g: &mut petgraph::graph::DiGraph<String, ()>, n: &String| {
        *index
            .entry(n.clone())
            .or_insert_with(|| g.add_node(n.clone()))
    };
    for (a, bs) in edges {
        let ia = node(&mut g, a);
        for b in bs {
            let ib = node(&mut g, b);
            g.add_edge(ia, ib, ());
        }
    }
    petgraph::algo::tarjan_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut names: Vec<String> = c.iter().map(|&i| g[i].clone()).collect();
            names.sort();
            names
        })
        .collect()
}

/// Source files of the library and program, tests left out (`*test*.rs`).
fn sources() -> Vec<PathBuf> {
    files(&root().join("src"), &["rs"])
        .into_iter()
        .filter(|p| !p.file_name().unwrap().to_string_lossy().contains("test"))
        .collect()
}

/// The import graph at one level: `level` 0 is src/'s top-level modules, and
/// `Some("app")` the modules directly under src/app/.
fn import_graph(inside: Option<&str>) -> BTreeMap<String, BTreeSet<String>> {
    let depth = usize::from(inside.is_some());
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let modules: BTreeSet<String> = sources()
        .iter()
        .map(|f| module_path(f))
        .filter(|p| inside.is_none_or(|m| p.first().is_some_and(|f| f == m)))
        .filter_map(|p| p.get(depth).cloned())
        .collect();
    for f in sources() {
        let here = module_path(&f);
        if let Some(m) = inside
            && here.first().is_none_or(|f| f != m)
        {
            continue;
        }
        let Some(from) = here.get(depth).cloned() else {
            continue;
        };
        if from == "main" {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&f).unwrap());
        for r in references(&f, &code) {
            if let Some(m) = inside
                && r.first().is_none_or(|f| f != m)
            {
                continue;
            }
            if let Some(to) = r.get(depth)
                && *to != from
                && modules.contains(to)
            {
                edges.entry(from.clone()).or_default().insert(to.clone());
            }
        }
    }
    edges
}

#[test]
fn no_import_cycle_among_top_level_modules_nor_among_the_apps() {
    let top = import_graph(None);
    assert!(
        top.get("steering")
            .is_some_and(|s| s.contains("motion_graph")),
        "the graph reader sees steering -> motion_graph: {top:?}"
    );
    let top_cycles = cycles(&top);
    assert!(
        top_cycles.is_empty(),
        "import cycles among src/'s modules: {top_cycles:?}"
    );
    let app = import_graph(Some("app"));
    assert!(!app.is_empty(), "the app's import graph is read");
    let app_cycles = cycles(&app);
    assert!(
        app_cycles.is_empty(),
        "import cycles among src/app/'s modules: {app_cycles:?}"
    );
}

/// The panels the app registers: the modules of the `panels! { field: module::Plugin, … }`
/// list in src/app/mod.rs.
fn registered_panels() -> BTreeSet<String> {
    let code = std::fs::read_to_string(root().join("src/app/mod.rs")).unwrap();
    let list = code
        .split("panels! {")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .expect("src/app/mod.rs registers its panels in a `panels! { … }` list");
    list.split(',')
        .filter_map(|line| line.split(':').nth(1))
        .filter_map(|m| m.trim().split("::").next())
        .filter(|m| !m.is_empty())
        .map(str::to_string)
        .collect()
}

/// A panel imports the workbench and the shared core, never another panel: hand-offs between
/// panels are the workbench's messages (`PlayClip`, `SteerGraph`, `OpenPanel`, …), so a panel's
/// folder can be added or removed alone.
#[test]
fn no_panel_imports_another_panel() {
    let panels = registered_panels();
    assert!(
        panels.len() >= 9 && panels.contains("steering") && panels.contains("synthesis_panel"),
        "the panel list is read: {panels:?}"
    );
    let app = import_graph(Some("app"));
    let between: Vec<String> = app
        .iter()
        .filter(|(from, _)| panels.contains(*from))
        .flat_map(|(from, to)| {
            to.iter()
                .filter(|t| panels.contains(*t))
                .map(move |t| format!("{from} -> {t}"))
        })
        .collect();
    assert!(between.is_empty(), "panels importing panels: {between:?}");
}

/// The reader of imports finds a cycle where there is one (the test above cannot pass on a
/// reader that sees nothing).
#[test]
fn the_import_reader_finds_a_planted_cycle() {
    let code_a = "use super::b::Thing;\nfn f() { crate::app::c::g(); }\n";
    let a = root().join("src/app/a/mod.rs");
    let refs: Vec<String> = references(&a, &code_of(code_a))
        .into_iter()
        .map(|r| r.join("::"))
        .collect();
    assert!(refs.contains(&"app::b".to_string()), "{refs:?}");
    assert!(refs.contains(&"app::c::g".to_string()), "{refs:?}");
    let nested = root().join("src/app/a/panel.rs");
    let refs = references(
        &nested,
        &code_of("use super::super::{d, e};\n#[cfg(test)]\nmod tests {\n use crate::app::z;\n}\n"),
    );
    let refs: Vec<String> = refs.into_iter().map(|r| r.join("::")).collect();
    assert_eq!(refs, ["app::d", "app::e"]);
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".to_string()]]);
}

/// One concept per file: no source (library, program, tests, benches) over 850 lines, which is
/// "about 800" with room for a doc comment.
#[test]
fn no_source_file_is_much_over_800_lines() {
    let mut long = Vec::new();
    for dir in ["src", "tests", "benches", "fuzz/fuzz_targets"] {
        for f in files(&root().join(dir), &["rs"]) {
            let lines = std::fs::read_to_string(&f).unwrap().lines().count();
            if lines > 850 {
                long.push(format!("{} ({lines} lines)", f.display()));
            }
        }
    }
    assert!(long.is_empty(), "split these files: {long:?}");
}

/// Comments, help texts and docs cite papers or the repository's own pages, never reading
/// notes kept outside the repository.
#[test]
fn nothing_cites_a_file_outside_the_repository() {
    let outside = ["specs/", "DESIGN.md", "../shared", "seeds/"];
    let mut found = Vec::new();
    let mut checked = 0;
    for dir in [
        "src",
        "tests",
        "docs",
        "scripts",
        "fuzz/fuzz_targets",
        "benches",
        ".ci",
    ] {
        for f in files(&root().join(dir), &["rs", "md", "sh", "ron", "toml"])
            .into_iter()
            .chain(
                std::fs::read_dir(root().join(dir))
                    .into_iter()
                    .flatten()
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.is_file() && p.extension().is_none()),
            )
        {
            if f.ends_with("tests/architecture.rs") {
                continue;
            }
            checked += 1;
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            for (i, line) in text.lines().enumerate() {
                // Fuzz seeds live in the repository (fuzz/seeds/); that path is ours.
                let line = line.replace("fuzz/seeds/", "");
                if outside.iter().any(|o| line.contains(o)) {
                    found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
                }
            }
        }
    }
    for f in ["README.md", "Cargo.toml", "build.rs"] {
        let text = std::fs::read_to_string(root().join(f)).unwrap();
        for (i, line) in text.lines().enumerate() {
            if outside.iter().any(|o| line.contains(o)) {
                found.push(format!("{f}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(checked > 100, "only {checked} files read");
    assert!(
        found.is_empty(),
        "{} citations of files outside the repository:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// build.rs hashes every source a gait solve can reach (`MOTIONLAB_SOLVER_HASH` names discovery
/// samples, so a source left out would let an edit reuse stale samples): every non-test file of
/// the solver's folders, and every file of each module those files name.
#[test]
fn the_solver_hash_covers_every_solver_source() {
    let hashed: BTreeSet<String> = env!("MOTIONLAB_SOLVER_SOURCES")
        .split(';')
        .map(str::to_string)
        .collect();
    let rel = |p: &Path| {
        p.strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/")
    };
    let mut want: BTreeSet<String> = BTreeSet::new();
    let mut queue: Vec<String> = vec![
        "spacetime".into(),
        "nlp".into(),
        "model".into(),
        "blas".into(),
    ];
    let mut seen = BTreeSet::new();
    while let Some(m) = queue.pop() {
        if !seen.insert(m.clone()) {
            continue;
        }
        let folder = root().join("src").join(&m);
        let single = root().join("src").join(format!("{m}.rs"));
        let module_files: Vec<PathBuf> = if folder.is_dir() {
            files(&folder, &["rs"])
        } else if single.exists() {
            vec![single]
        } else {
            continue;
        };
        for f in module_files {
            if f.file_name().unwrap().to_string_lossy().contains("test") {
                continue;
            }
            let code = code_of(&std::fs::read_to_string(&f).unwrap());
            queue.extend(names_after(&code, "crate::"));
            want.insert(rel(&f));
        }
    }
    for named in [
        "src/spacetime/gait/blocks.rs",
        "src/nlp/tape/arithmetic.rs",
        "src/spacetime/gait/problem.rs",
        "src/blas.rs",
    ] {
        assert!(want.contains(named), "{named} is a solver source");
    }
    let missing: Vec<&String> = want.difference(&hashed).collect();
    assert!(
        missing.is_empty(),
        "solver sources the hash leaves out: {missing:?}"
    );
}
