//! No import circles: within each crate, no source file imports one that imports it back,
//! directly or through others.
//!
//! A file "imports" another when it names a path into that module (`use crate::a::b::X`,
//! `super::X`, `self::c::Y`, or a qualified `crate::a::f()` in code). A crate root (`lib.rs`,
//! `main.rs`) is a facade of module declarations and re-exports, so a path that resolves to it
//! is not an edge; everything else, `mod.rs` files included, is a node. Cargo already forbids
//! circles between crates.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `src` folders whose files form one module tree each.
fn crate_sources() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root().join("crates"))
        .expect("crates/ exists")
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    dirs.push(root().join("web/src"));
    dirs.sort();
    dirs
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable source folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file below `src`: `a/b.rs` → `[a, b]`, `a/mod.rs` → `[a]`, the root → `[]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    let is_root = parts.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !is_root {
        parts.push(stem.to_string());
    }
    parts
}

/// Source text without comments and string literals (so a path in a doc line is no edge).
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut kept = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !in_str && c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' {
                in_str = !in_str;
            } else if !in_str {
                kept.push(c);
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
            i += 1;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// Source text up to its unit tests (`#[cfg(test)] mod tests { … }`, the last item of a file by
/// the project's habit): what a test module imports is no dependency of the file it tests.
fn without_unit_tests(text: &str) -> &str {
    let mut at = 0;
    while let Some(i) = text[at..].find("#[cfg(test)]") {
        let start = at + i;
        let next = text[start + "#[cfg(test)]".len()..].trim_start();
        if next.starts_with("mod ") && next.lines().next().is_some_and(|l| l.contains('{')) {
            return &text[..start];
        }
        at = start + 1;
    }
    text
}

/// Expands a use tree (`a::{b::C, d}`, without `use` and `;`) into flat paths.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = vec![];
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(expand)
        .map(|p| format!("{prefix}{p}"))
        .collect()
}

/// The flat paths of a file's `use` trees (`a::{b::C, d as e}` → `a::b::C`, `a::d#e`: an
/// `as` name follows a `#`).
fn use_trees(code: &str) -> Vec<String> {
    let mut paths = vec![];
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let boundary = i == 0 || !rest[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let after = &rest[i + 4..];
        let end = after.find(';').unwrap_or(after.len());
        if boundary {
            let tree = after[..end]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            paths.extend(expand(&tree.replace(" as ", "#")));
        }
        rest = &after[end.min(after.len())..];
    }
    paths
}

/// Every module path a file names: its `use` trees and the qualified paths in its code.
fn named_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = use_trees(code);
    for anchor in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(anchor) {
            let ident = |c: char| c.is_alphanumeric() || c == '_';
            if code[..i].ends_with(|c: char| ident(c) || c == ':') {
                continue;
            }
            let tail: String = code[i..]
                .chars()
                .take_while(|&c| ident(c) || c == ':')
                .collect();
            // `super::{a, b}` ends at its `::`: a use tree's prefix, read with the `use` line.
            if !tail.ends_with("::") {
                paths.push(tail);
            }
        }
    }
    paths
        .into_iter()
        .map(|p| {
            p.split('#')
                .next()
                .unwrap_or("")
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// The module a path points into, relative to the module `here`; `is_module` says whether a
/// module path names a file of the crate. A path whose first segment names a child module of
/// `here` (`spec::X` written in `barrier/mod.rs`, which declares `mod spec`) is `self::spec::X`:
/// Rust resolves it so, and a facade's `pub use spec::{…}` imports that file.
fn resolve(
    path: &[String],
    here: &[String],
    is_module: impl Fn(&[String]) -> bool,
) -> Option<Vec<String>> {
    let (mut base, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (vec![], &path[1..]),
        Some("self") => (here.to_vec(), &path[1..]),
        Some("super") => {
            let mut base = here.to_vec();
            let mut rest = path;
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
            (base, rest)
        }
        Some(first) if first != "std" && is_module(&[here, &[first.to_string()]].concat()) => {
            (here.to_vec(), path)
        }
        _ => return None,
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The `use` paths of a file with the name each brings in (its last segment, or its `as` name).
fn use_paths(code: &str) -> Vec<(Vec<String>, String)> {
    use_trees(code)
        .into_iter()
        .filter_map(|flat| {
            let mut halves = flat.split('#');
            let path: Vec<String> = halves
                .next()
                .unwrap_or("")
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            let name = halves
                .next()
                .map(str::to_string)
                .or_else(|| path.last().cloned())?;
            (name != "*" && name != "self").then_some((path, name))
        })
        .collect()
}

/// A path followed through the `use` lines of the modules it passes (a facade's re-exports),
/// to the module that defines what it names: `barrier::TopologySpec` → `barrier::spec::…`.
fn through_uses(
    mut target: Vec<String>,
    names: &BTreeMap<(Vec<String>, String), Vec<String>>,
    is_module: impl Fn(&[String]) -> bool,
) -> Vec<String> {
    for _ in 0..16 {
        let mut module = target.clone();
        while !module.is_empty() && !is_module(&module) {
            module.pop();
        }
        let Some(item) = target.get(module.len()) else {
            return target;
        };
        let Some(via) = names.get(&(module.clone(), item.clone())) else {
            return target;
        };
        if via.starts_with(&target[..=module.len()]) {
            return target;
        }
        let mut next = via.clone();
        next.extend(target[module.len() + 1..].iter().cloned());
        target = next;
    }
    target
}

/// The files of one crate and the files each imports.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    graph_under(src, &root())
}

/// [`graph`], with each file named by its path below `base`.
fn graph_under(src: &Path, base: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = vec![];
    rust_files(src, &mut files);
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(base).expect("under the base");
            (module_of(src, f), rel.to_string_lossy().replace('\\', "/"))
        })
        .collect();
    let is_module = |m: &[String]| modules.contains_key(m);
    let texts: BTreeMap<&Vec<String>, String> = modules
        .iter()
        .map(|(here, name)| {
            let text = fs::read_to_string(base.join(name)).expect("readable source file");
            (here, code(without_unit_tests(&text)))
        })
        .collect();
    // What each module's `use` lines bring in by name: `pub use spec::TopologySpec` in
    // `barrier/mod.rs` makes `barrier::TopologySpec` a way to `barrier::spec::TopologySpec`.
    let mut names: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
    for (here, text) in &texts {
        for (path, alias) in use_paths(text) {
            if let Some(target) = resolve(&path, here, is_module) {
                names.insert(((*here).clone(), alias), target);
            }
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (here, name) in &modules {
        let targets = edges.entry(name.clone()).or_default();
        for path in named_paths(&texts[here]) {
            let Some(target) = resolve(&path, here, is_module) else {
                continue;
            };
            let mut target = through_uses(target, &names, is_module);
            // The deepest module the path reaches (the rest names an item inside it).
            while !target.is_empty() && !modules.contains_key(&target) {
                target.pop();
            }
            if target.is_empty() || &target == here {
                continue;
            }
            targets.insert(modules[&target].clone());
        }
    }
    edges
}

/// Strongly connected components of more than one file (Tarjan).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = vec![];
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: vec![],
        on_stack: BTreeSet::new(),
        found: vec![],
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.found
}

#[test]
fn no_source_file_imports_one_that_imports_it_back() {
    let mut found = vec![];
    for src in crate_sources() {
        let edges = graph(&src);
        for circle in circles(&edges) {
            // Each edge inside the circle, so the import to change is named.
            let inside: Vec<String> = circle
                .iter()
                .flat_map(|from| {
                    edges[from]
                        .iter()
                        .filter(|to| circle.contains(to))
                        .map(move |to| format!("  {from} → {to}"))
                })
                .collect();
            found.push(format!("{}\n{}", circle.join(" ↔ "), inside.join("\n")));
        }
    }
    assert!(
        found.is_empty(),
        "import circles (files that import each other, directly or through others):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_graph_sees_imports() {
    // A parser that found no edge would pass the test above: it must see known imports.
    let engine = graph(&root().join("crates/engine/src"));
    let edges: usize = engine.values().map(BTreeSet::len).sum();
    assert!(edges > 30, "too few import edges in the engine: {edges}");
    let circle: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into_iter()
    .collect();
    assert_eq!(circles(&circle).len(), 1);
    assert_eq!(
        expand("crate::{a::B, c::{D, e::F}}"),
        ["crate::a::B", "crate::c::D", "crate::c::e::F"]
    );
    assert_eq!(
        use_paths("use crate::a::{B as C, d};"),
        [
            (
                vec!["crate".into(), "a".into(), "B".into()],
                "C".to_string()
            ),
            (
                vec!["crate".into(), "a".into(), "d".into()],
                "d".to_string()
            ),
        ]
    );
}

#[test]
fn a_circle_through_a_facade_and_a_bare_child_path_is_found() {
    // The shape the engine once had: `schema.rs` named `barrier::TopologySpec`, which
    // `barrier/mod.rs` re-exports with a bare child path (`pub use spec::…`), and
    // `barrier/spec.rs` used a helper of `schema.rs`. Written to a scratch crate, the test must
    // see the circle; without the `pub use` line, there is none.
    let base = std::env::temp_dir().join(format!("imports-test-{}", std::process::id()));
    let src = base.join("src");
    let write = |file: &str, text: &str| {
        let path = src.join(file);
        fs::create_dir_all(path.parent().expect("a folder")).expect("scratch folder");
        fs::write(path, text).expect("scratch file");
    };
    write("lib.rs", "pub mod barrier;\npub mod schema;\n");
    write(
        "schema.rs",
        "use crate::barrier::TopologySpec;\npub fn helper() {}\n",
    );
    write(
        "barrier/spec.rs",
        "pub struct TopologySpec;\nfn f() { crate::schema::helper() }\n",
    );
    write("barrier/mod.rs", "mod spec;\npub use spec::TopologySpec;\n");
    let found = circles(&graph_under(&src, &base));
    write("barrier/mod.rs", "mod spec;\n");
    let without_facade = circles(&graph_under(&src, &base));
    fs::remove_dir_all(&base).expect("scratch folder removed");
    assert_eq!(
        found,
        [["src/barrier/spec.rs", "src/schema.rs"]],
        "the circle through `pub use spec::…` was not seen"
    );
    // Without the re-export, `schema.rs` names a module item that does not lead to `spec.rs`.
    assert!(without_facade.is_empty(), "{without_facade:?}");
}
