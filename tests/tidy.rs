//! Tidy: the project's code rules, enforced by a test rather than by discipline.
//!
//! - The engine stays deterministic: no hashed collections, no wall clock, no unseeded
//!   randomness, and no ChaCha8 outside the engine's one PRNG (`crates/engine/src/rng.rs`).
//! - No test is skipped: the ignore attribute appears in no `.rs` file.
//! - No source file under `crates/*/src` or `web/src` is longer than [`MAX_LINES`].
//! - No function in a source file is longer than that file's allowance in
//!   `tests/function-lengths.txt`, or [`DEFAULT_FN_LINES`] for a file not listed there.
//! - Every `.rs` file opens with a `//!` line saying what it is for.
//!
//! The `KNOWN_BANNED` list names exceptions (none today); it must only shrink, and an entry
//! that no longer needs its exception fails the test until it is removed. The function-length
//! table is a ratchet the same way: an allowance above the file's longest function fails until
//! it is lowered.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The longest a source file may be.
const MAX_LINES: usize = 600;

/// The longest a function may be in a source file that [`LENGTHS_FILE`] does not list.
/// TigerBeetle's style holds functions to 70 lines; rustfmt lays a call's arguments and a
/// literal's fields one per line, so the same function reads a few lines longer in Rust, and
/// 80 is what the engine's micro-batch world already keeps to. A file with a longer function
/// is listed in the table with today's longest, which may only go down.
const DEFAULT_FN_LINES: usize = 80;

/// The allowance of every file whose longest function is over [`DEFAULT_FN_LINES`].
const LENGTHS_FILE: &str = "tests/function-lengths.txt";

/// Set (to anything) to have the length test rewrite [`LENGTHS_FILE`] instead of checking it.
const WRITE_LENGTHS: &str = "TIDY_WRITE_LENGTHS";

/// The one command that rewrites [`LENGTHS_FILE`] from today's sources.
const REGENERATE: &str = "TIDY_WRITE_LENGTHS=1 cargo test -p batchscope-acceptance --test tidy";

/// Engine files still allowed a banned name, with the name (none: both worlds draw from the
/// one `Prng`).
const KNOWN_BANNED: &[(&str, &str)] = &[];

/// Names the engine must not use: hashed iteration, wall clocks, unseeded randomness.
const ENGINE_BANNED: &[&str] = &["HashMap", "HashSet", "Instant", "SystemTime", "thread_rng"];

/// The one engine file that may name the PRNG's algorithm.
const RNG_FILE: &str = "crates/engine/src/rng.rs";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, as paths relative to the repository root with `/`
/// separators, sorted. Build output, VCS data and dependencies are not walked.
fn rust_files(dir: &str) -> Vec<String> {
    let mut out = vec![];
    let start = if dir == "." { root() } else { root().join(dir) };
    walk(&start, &mut out);
    let mut files: Vec<String> = out
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| relative(&p))
        .collect();
    files.sort();
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if path.is_dir() {
            let skipped = name.starts_with('.')
                || ["target", "node_modules", "dist"].contains(&name.as_str());
            if !skipped {
                walk(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

fn relative(path: &Path) -> String {
    let rel = path.strip_prefix(root()).expect("walked under the root");
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect::<Vec<_>>()
        .join("/")
}

fn read(rel: &str) -> String {
    fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Whether `line` uses `name` as a whole identifier (not inside a longer one).
fn names(line: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(name).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Code lines: comments (and doc comments) may name a banned thing to explain the ban.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l))
}

#[test]
fn the_engine_uses_no_hashed_iteration_no_clock_and_one_prng() {
    let mut found = vec![];
    for file in rust_files("crates/engine/src") {
        let text = read(&file);
        for (n, line) in code_lines(&text) {
            let chacha = file != RNG_FILE && names(line, "ChaCha8Rng");
            let banned = ENGINE_BANNED.iter().copied().filter(|b| names(line, b));
            for name in banned.chain(chacha.then_some("ChaCha8Rng")) {
                if !KNOWN_BANNED.contains(&(file.as_str(), name)) {
                    found.push(format!("{file}:{n}: `{name}` in the engine"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "banned in the engine:\n{}",
        found.join("\n")
    );
}

#[test]
fn known_banned_exceptions_are_still_needed() {
    for (file, name) in KNOWN_BANNED {
        let needed = root().join(file).exists()
            && code_lines(&read(file)).any(|(_, line)| names(line, name));
        assert!(
            needed,
            "{file} no longer uses `{name}`: remove it from KNOWN_BANNED in tests/tidy.rs"
        );
    }
}

#[test]
fn no_test_is_ignored() {
    // Built from two parts so that this file does not match itself.
    let pattern = format!("#[{}", "ignore");
    let mut found = vec![];
    for file in rust_files(".") {
        for (n, line) in read(&file).lines().enumerate() {
            if line.contains(&pattern) {
                found.push(format!("{file}:{}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "ignored tests (a test fails, it is never skipped):\n{}",
        found.join("\n")
    );
}

/// Source files of the crates and the dashboard (tests and benches excluded).
fn source_files() -> Vec<String> {
    let mut files = vec![];
    let crates = fs::read_dir(root().join("crates")).expect("crates/ exists");
    for krate in crates.flatten() {
        let name = krate.file_name().to_string_lossy().to_string();
        files.extend(rust_files(&format!("crates/{name}/src")));
    }
    files.extend(rust_files("web/src"));
    files.sort();
    files
}

#[test]
fn source_files_are_at_most_600_lines() {
    let too_long: Vec<String> = source_files()
        .into_iter()
        .filter_map(|f| {
            let n = read(&f).lines().count();
            (n > MAX_LINES).then(|| format!("{f}: {n} lines"))
        })
        .collect();
    assert!(
        too_long.is_empty(),
        "longer than {MAX_LINES} lines (split by concern):\n{}",
        too_long.join("\n")
    );
}

#[test]
fn every_rust_file_opens_with_a_module_doc_line() {
    let missing: Vec<String> = rust_files(".")
        .into_iter()
        .filter(|f| !read(f).starts_with("//!"))
        .collect();
    assert!(
        missing.is_empty(),
        "files whose first line is not a `//!` line saying what they are for:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_walk_sees_the_engine_and_this_file() {
    // A walk that found nothing would pass every rule above.
    let all = rust_files(".");
    assert!(all.contains(&"tests/tidy.rs".to_string()));
    assert!(all.contains(&RNG_FILE.to_string()));
    assert!(
        source_files().len() > 50,
        "too few source files: {}",
        source_files().len()
    );
}

/// A function found in a source text: its name, the line of its `fn` and its length in lines
/// from that line to its closing brace.
#[derive(Debug, Clone, PartialEq)]
struct FnSpan {
    name: String,
    line: usize,
    lines: usize,
}

/// What the function finder sees of Rust text: comments, literals and whitespace are gone.
#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    Punct(char),
}

/// Reads Rust text one token at a time, counting lines; skips comments and literals, so a
/// brace or a `fn` inside them is not seen.
struct Lexer {
    chars: Vec<char>,
    at: usize,
    line: usize,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn bump(&mut self) {
        if self.peek(0) == Some('\n') {
            self.line += 1;
        }
        self.at += 1;
    }

    fn bump_n(&mut self, n: usize) {
        (0..n).for_each(|_| self.bump());
    }

    /// The next token and its line, or `None` at the end of the text.
    fn next_token(&mut self) -> Option<(usize, Token)> {
        loop {
            let c = self.peek(0)?;
            let line = self.line;
            match (c, self.peek(1)) {
                ('/', Some('/')) => self.skip_while(|c| c != '\n'),
                ('/', Some('*')) => self.skip_block_comment(),
                ('"', _) => self.skip_string(0),
                ('\'', _) => self.skip_char_or_lifetime(),
                (c, _) if c.is_whitespace() => self.bump(),
                (c, _) if c.is_ascii_digit() => self.skip_while(is_ident_char),
                (c, _) if c.is_alphabetic() || c == '_' => {
                    if let Some(ident) = self.ident_or_string_prefix() {
                        return Some((line, Token::Ident(ident)));
                    }
                }
                (c, _) => {
                    self.bump();
                    return Some((line, Token::Punct(c)));
                }
            }
        }
    }

    fn skip_while(&mut self, keep: impl Fn(char) -> bool) {
        while self.peek(0).is_some_and(&keep) {
            self.bump();
        }
    }

    /// A `/* … */` comment, which may nest.
    fn skip_block_comment(&mut self) {
        let mut depth = 0;
        while let Some(c) = self.peek(0) {
            match (c, self.peek(1)) {
                ('/', Some('*')) => {
                    depth += 1;
                    self.bump_n(2);
                }
                ('*', Some('/')) => {
                    depth -= 1;
                    self.bump_n(2);
                    if depth == 0 {
                        return;
                    }
                }
                _ => self.bump(),
            }
        }
    }

    /// A string from its opening quote: plain (`hashes` 0, with escapes) or raw (`r#"…"#`).
    fn skip_string(&mut self, hashes: usize) {
        self.bump();
        while let Some(c) = self.peek(0) {
            if c == '\\' && hashes == 0 {
                self.bump_n(2);
            } else if c == '"' && (1..=hashes).all(|k| self.peek(k) == Some('#')) {
                return self.bump_n(1 + hashes);
            } else {
                self.bump();
            }
        }
    }

    /// `'x'`, `'\n'`, `'\u{7b}'`, or the quote of a lifetime (`'a`), which is skipped alone.
    fn skip_char_or_lifetime(&mut self) {
        if self.peek(1) == Some('\\') {
            self.bump_n(3);
            self.skip_while(|c| c != '\'');
            self.bump();
        } else if self.peek(2) == Some('\'') {
            self.bump_n(3);
        } else {
            self.bump();
        }
    }

    /// An identifier, or `None` after skipping the literal it prefixes (`b"…"`, `r#"…"#`,
    /// `br"…"`, `b'x'`).
    fn ident_or_string_prefix(&mut self) -> Option<String> {
        let start = self.at;
        self.skip_while(is_ident_char);
        let ident: String = self.chars[start..self.at].iter().collect();
        let hashes = (0..).take_while(|&k| self.peek(k) == Some('#')).count();
        let raw = matches!(ident.as_str(), "r" | "br" | "cr");
        match self.peek(hashes) {
            Some('"') if raw => self.skip_raw_string(hashes),
            Some('"') if hashes == 0 && matches!(ident.as_str(), "b" | "c") => self.skip_string(0),
            Some('\'') if hashes == 0 && ident == "b" => self.skip_char_or_lifetime(),
            _ => return Some(ident),
        }
        None
    }

    fn skip_raw_string(&mut self, hashes: usize) {
        self.bump_n(hashes);
        self.skip_string(hashes);
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every function with a body in `text`, in order: from its `fn` line to its closing brace,
/// macros such as `html!` inside it included. A `fn` not followed by a name (a `fn(u8)`
/// pointer type, a macro's `fn $name`) and a declaration ending in `;` are not functions.
fn functions(text: &str) -> Vec<FnSpan> {
    let mut lexer = Lexer {
        chars: text.chars().collect(),
        at: 0,
        line: 1,
    };
    let tokens: Vec<(usize, Token)> = std::iter::from_fn(|| lexer.next_token()).collect();
    let mut found = vec![];
    for (k, (line, token)) in tokens.iter().enumerate() {
        let is_fn = matches!(token, Token::Ident(t) if t == "fn");
        let Some((_, Token::Ident(name))) = tokens.get(k + 1).filter(|_| is_fn) else {
            continue;
        };
        if let Some(end) = body_end(&tokens[k + 2..]) {
            let (name, line, lines) = (name.clone(), *line, end - line + 1);
            found.push(FnSpan { name, line, lines });
        }
    }
    found
}

/// The line of the brace that closes the body after a signature, or `None` when a `;` at the
/// signature's own level comes first (a declaration; `[u8; 3]` is inside brackets).
fn body_end(tokens: &[(usize, Token)]) -> Option<usize> {
    let (mut nesting, mut braces) = (0i32, 0usize);
    for (line, token) in tokens {
        match token {
            Token::Punct('(' | '[') if braces == 0 => nesting += 1,
            Token::Punct(')' | ']') if braces == 0 => nesting -= 1,
            Token::Punct(';') if braces == 0 && nesting == 0 => return None,
            Token::Punct('{') => braces += 1,
            Token::Punct('}') => {
                braces = braces.checked_sub(1)?;
                if braces == 0 {
                    return Some(*line);
                }
            }
            _ => {}
        }
    }
    None
}

/// The longest function of every source file that has one.
fn longest_functions() -> BTreeMap<String, FnSpan> {
    source_files()
        .into_iter()
        .filter_map(|file| {
            let longest = functions(&read(&file))
                .into_iter()
                .max_by_key(|f| (f.lines, std::cmp::Reverse(f.line)))?;
            Some((file, longest))
        })
        .collect()
}

/// The first lines of [`LENGTHS_FILE`], written again whenever it is regenerated.
fn lengths_header() -> String {
    format!(
        "# The longest function each source file may have, in lines from its `fn` line to its\n\
         # closing brace (tests/tidy.rs). A file not listed may have functions of up to {DEFAULT_FN_LINES} lines.\n\
         # The numbers only go down: an entry above its file's longest function fails the test.\n\
         # Paths go stale when files move: after a merge that moved, renamed or split source\n\
         # files, regenerate this table with the one command below, and check that its diff\n\
         # raises no number:\n\
         #   {REGENERATE}\n"
    )
}

/// [`LENGTHS_FILE`] as a map; malformed, unsorted or repeated entries fail the test.
fn read_lengths() -> BTreeMap<String, usize> {
    let mut table = BTreeMap::new();
    let mut previous = String::new();
    for (n, line) in read(LENGTHS_FILE).lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let entry = line
            .split_once('\t')
            .and_then(|(p, l)| Some((p, l.parse().ok()?)));
        let Some((path, lines)) = entry else {
            panic!("{LENGTHS_FILE}:{}: not `path<TAB>lines`: {line:?}", n + 1);
        };
        assert!(
            path > previous.as_str(),
            "{LENGTHS_FILE}:{}: {path} is out of order or repeated",
            n + 1
        );
        previous = path.to_string();
        table.insert(path.to_string(), lines);
    }
    table
}

/// Rewrites [`LENGTHS_FILE`]: today's longest function of every file over the default.
fn write_lengths(longest: &BTreeMap<String, FnSpan>) {
    let mut text = lengths_header();
    for (file, f) in longest.iter().filter(|(_, f)| f.lines > DEFAULT_FN_LINES) {
        text.push_str(&format!("{file}\t{}\n", f.lines));
    }
    fs::write(root().join(LENGTHS_FILE), text).expect("write the function-length table");
}

/// What is wrong with the table against today's longest functions: a function over its
/// allowance, or an allowance that is above what its file needs.
fn length_problems(
    longest: &BTreeMap<String, FnSpan>,
    table: &BTreeMap<String, usize>,
) -> Vec<String> {
    let mut found = vec![];
    for (file, f) in longest {
        let cap = table.get(file).copied().unwrap_or(DEFAULT_FN_LINES);
        if f.lines > cap {
            let (line, name, lines) = (f.line, &f.name, f.lines);
            found.push(format!(
                "{file}:{line}: `{name}` is {lines} lines, over {cap}: split it"
            ));
        }
    }
    for (file, &cap) in table {
        match longest.get(file).map(|f| f.lines) {
            None => found.push(format!(
                "{file}: has no function (moved?): remove its entry"
            )),
            Some(n) if n <= DEFAULT_FN_LINES => found.push(format!(
                "{file}: its longest function is {n} lines, within the default \
                 {DEFAULT_FN_LINES}: remove its entry"
            )),
            Some(n) if n < cap => found.push(format!(
                "{file}: allowed {cap} lines, its longest function is {n}: lower it to {n}"
            )),
            Some(_) => {}
        }
    }
    found
}

#[test]
fn functions_are_no_longer_than_their_files_allow() {
    let longest = longest_functions();
    if std::env::var_os(WRITE_LENGTHS).is_some() {
        return write_lengths(&longest);
    }
    let found = length_problems(&longest, &read_lengths());
    assert!(
        found.is_empty(),
        "function lengths against {LENGTHS_FILE} (the table only shrinks):\n{}\n\n\
         If files moved, were renamed or split (or a merge brought such moves), regenerate the\n\
         table with\n  {REGENERATE}\n\
         and check that its diff raises no number.",
        found.join("\n")
    );
}

#[test]
fn the_function_finder_counts_from_fn_to_the_closing_brace() {
    let text = r###"
fn nested(x: u8) -> u8 {
    if x > 1 {
        match x { 2 => { 3 } _ => 4 }
    } else { 5 }
}
fn tricky() -> &'static str {
    let _open = "{ fn fake() { \" {";
    let _raw = r#"} fn raw() {"#;
    let _chars = ['{', '\'', '\u{7d}', b'}'];
    // } fn commented() {
    /* } /* nested */ fn hidden() { */
    "}"
}
fn closure() -> u8 {
    let add = |x: u8| {
        x + 1
    };
    add(1)
}
fn view() -> Html {
    html! {
        <div class={classes!("a")}>
            { "}" }
            <span>{ if open { "x" } else { "y" } }</span>
        </div>
    }
}
trait T {
    fn declared(&self) -> [u8; 3];
    fn defaulted(&self) {}
}
fn apply(f: fn(u8) -> u8) -> u8 { fn inner() {} f(1) }
"###;
    let found: Vec<(String, usize, usize)> = functions(text)
        .into_iter()
        .map(|f| (f.name, f.line, f.lines))
        .collect();
    let want = [
        ("nested", 2, 5),
        ("tricky", 7, 8),
        ("closure", 15, 6),
        ("view", 21, 8),
        ("defaulted", 31, 1),
        ("apply", 33, 1),
        ("inner", 33, 1),
    ];
    let want: Vec<(String, usize, usize)> = want
        .iter()
        .map(|&(n, l, c)| (n.to_string(), l, c))
        .collect();
    assert_eq!(found, want);
}

#[test]
fn the_length_rule_fails_a_long_function_and_an_allowance_too_high() {
    let span = |lines| FnSpan {
        name: "f".into(),
        line: 3,
        lines,
    };
    let longest = BTreeMap::from([
        ("a.rs".to_string(), span(90)),
        ("b.rs".to_string(), span(120)),
        ("c.rs".to_string(), span(40)),
        ("d.rs".to_string(), span(100)),
    ]);
    let table = BTreeMap::from([
        ("b.rs".to_string(), 130),
        ("c.rs".to_string(), 90),
        ("d.rs".to_string(), 100),
        ("gone.rs".to_string(), 200),
    ]);
    assert_eq!(
        length_problems(&longest, &table),
        [
            "a.rs:3: `f` is 90 lines, over 80: split it",
            "b.rs: allowed 130 lines, its longest function is 120: lower it to 120",
            "c.rs: its longest function is 40 lines, within the default 80: remove its entry",
            "gone.rs: has no function (moved?): remove its entry",
        ]
    );
}
