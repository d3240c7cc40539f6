//! The layers point one way (issue 29): every `crate::layers::…`, `self::…` and `super::…` path in
//! `src/` reaches only the top-level modules that its own module's line in
//! `docs/ARCHITECTURE.md` (between `<!-- layers:begin -->` and `<!-- layers:end -->`) allows,
//! every module of `src/lib.rs` has a line, the table has no loop, and the files of a module
//! import each other in no loop. No loop is tolerated: issue 45 broke the last ones.
//!
//! Pure std and a hand-rolled lexer, so it runs in milliseconds and needs no parser crate.
//! What it reads: comments and string literals are blanked first; `mod` declarations are
//! followed from `src/lib.rs` (with `#[path]`), so each file knows its real module path and a
//! `super::` resolves as rustc resolves it; grouped and multi-line `use` trees are expanded.
//! What it skips, on purpose: `#[cfg(test)]` modules and the files they declare (a test may
//! build its fixture from any layer), `src/main.rs` (the binary, above `cli`), and paths that
//! start with a child module's bare name (`run::step` in `engine/mod.rs`: a parent naming its
//! own child never crosses a layer).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- layers:begin -->";
const END: &str = "<!-- layers:end -->";

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Ident,
    Str,
    Punct,
}

#[derive(Debug, Clone)]
struct Tok {
    kind: Kind,
    text: String,
    line: usize,
}

impl Tok {
    fn is(&self, s: &str) -> bool {
        self.kind != Kind::Str && self.text == s
    }
}

/// Tokens of one source file, comments dropped, each string literal one `Str` token.
fn lex(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let (mut i, mut line) = (0, 1);
    let count = |s: &[char]| s.iter().filter(|&&ch| ch == '\n').count();
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let (start, mut depth) = (i, 0);
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            line += count(&c[start..i.min(c.len())]);
        } else if ch == '"' {
            let start = i;
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            let body: String = c[start + 1..i.min(c.len())].iter().collect();
            toks.push(Tok {
                kind: Kind::Str,
                text: body,
                line,
            });
            line += count(&c[start..i.min(c.len())]);
            i += 1;
        } else if ch == '\'' {
            // A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a): only the first is skipped.
            if next == Some('\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let at = c.get(i).copied();
            let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
            if raw_prefix && (at == Some('"') || at == Some('#')) {
                let mut hashes = 0;
                while c.get(i) == Some(&'#') {
                    hashes += 1;
                    i += 1;
                }
                if c.get(i) == Some(&'"') {
                    // r#"…"#: ends at a quote followed by as many hashes.
                    let start = i;
                    i += 1;
                    while i < c.len() {
                        if c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')) {
                            break;
                        }
                        i += 1;
                    }
                    let body: String = c[start + 1..i.min(c.len())].iter().collect();
                    toks.push(Tok {
                        kind: Kind::Str,
                        text: body,
                        line,
                    });
                    line += count(&c[start..i.min(c.len())]);
                    i += 1 + hashes;
                    continue;
                }
                // r#ident: a raw identifier.
                let s = i;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                let word: String = c[s..i].iter().collect();
                toks.push(Tok {
                    kind: Kind::Ident,
                    text: word,
                    line,
                });
                continue;
            }
            if matches!(word.as_str(), "b" | "c") && at == Some('"') {
                continue; // the string itself is lexed next
            }
            if word == "b" && at == Some('\'') {
                i += 1;
                if c.get(i) == Some(&'\\') {
                    i += 1;
                }
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            toks.push(Tok {
                kind: Kind::Ident,
                text: word,
                line,
            });
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else if ch == ':' && next == Some(':') {
            toks.push(Tok {
                kind: Kind::Punct,
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            toks.push(Tok {
                kind: Kind::Punct,
                text: ch.to_string(),
                line,
            });
            i += 1;
        }
    }
    toks
}

/// One source file of the crate: where it is, its module path, whether it is test code.
struct File {
    rel: String,
    module: Vec<String>,
    test: bool,
    toks: Vec<Tok>,
}

/// What opens a `{`: an inline `mod name { … }` (test or not) or anything else.
enum Frame {
    Mod { name: String, test: bool },
    Other,
}

fn is_cfg_test(attr: &[Tok]) -> bool {
    let words: Vec<&str> = attr.iter().map(|t| t.text.as_str()).collect();
    words == ["cfg", "(", "test", ")"]
}

/// The attribute starting at `toks[i] == '#'`: its inner tokens and the index after its `]`.
fn attribute(toks: &[Tok], i: usize) -> Option<(Vec<Tok>, usize)> {
    let mut j = i + 1;
    if toks.get(j)?.is("!") {
        j += 1;
    }
    if !toks.get(j)?.is("[") {
        return None;
    }
    let (start, mut depth) = (j + 1, 0);
    while j < toks.len() {
        if toks[j].is("[") {
            depth += 1;
        } else if toks[j].is("]") {
            depth -= 1;
            if depth == 0 {
                return Some((toks[start..j].to_vec(), j + 1));
            }
        }
        j += 1;
    }
    None
}

/// Every file reached from `src/lib.rs` through `mod` declarations.
fn load_crate(src: &Path) -> Vec<File> {
    let mut files = Vec::new();
    load_file(src, &src.join("lib.rs"), src, Vec::new(), false, &mut files);
    files
}

/// The source folders of the workspace: the `youra` package's and each crate's under
/// `crates/`, sorted.
fn source_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![root().join("src")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|p| p.join("lib.rs").is_file())
        .collect();
    crates.sort();
    dirs.extend(crates);
    dirs
}

/// Every file of every crate. A crate's modules keep the paths they had in one crate (its
/// root names the lower crates' modules), and module names are unique across crates, so one
/// module tree holds them all.
fn load_workspace() -> Vec<File> {
    source_dirs().iter().flat_map(|d| load_crate(d)).collect()
}

/// `dir` is where a plain `mod x;` in this file looks for `x.rs` or `x/mod.rs`.
fn load_file(
    src: &Path,
    path: &Path,
    dir: &Path,
    module: Vec<String>,
    test: bool,
    out: &mut Vec<File>,
) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (a `mod` this test follows)", path.display()));
    let toks = lex(&text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut attrs: Vec<Vec<Tok>> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i].is("#")
            && let Some((attr, next)) = attribute(&toks, i)
        {
            attrs.push(attr);
            i = next;
            continue;
        }
        let t = &toks[i];
        if t.is("mod")
            && toks.get(i + 1).is_some_and(|n| n.kind == Kind::Ident)
            && toks.get(i + 2).is_some_and(|n| n.is(";") || n.is("{"))
        {
            let name = toks[i + 1].text.clone();
            let inline: Vec<String> = stack
                .iter()
                .filter_map(|f| match f {
                    Frame::Mod { name, .. } => Some(name.clone()),
                    Frame::Other => None,
                })
                .collect();
            let child_test = test
                || attrs.iter().any(|a| is_cfg_test(a))
                || stack
                    .iter()
                    .any(|f| matches!(f, Frame::Mod { test: true, .. }));
            if toks[i + 2].is("{") {
                stack.push(Frame::Mod {
                    name,
                    test: child_test,
                });
            } else {
                let mut base = dir.to_path_buf();
                base.extend(&inline);
                let explicit = attrs.iter().find_map(|a| {
                    (a.first().is_some_and(|t| t.is("path")) && a.len() == 3)
                        .then(|| a[2].text.clone())
                });
                let (file, child_dir) = match explicit {
                    // #[path] is relative to this file's folder (to the inline modules' folder
                    // inside an inline `mod`).
                    Some(p) => {
                        let folder = if inline.is_empty() {
                            path.parent().unwrap().to_path_buf()
                        } else {
                            base.clone()
                        };
                        let file = folder.join(p);
                        let child_dir = file.parent().unwrap().join(&name);
                        (file, child_dir)
                    }
                    None => {
                        let flat = base.join(format!("{name}.rs"));
                        if flat.exists() {
                            (flat, base.join(&name))
                        } else {
                            (base.join(&name).join("mod.rs"), base.join(&name))
                        }
                    }
                };
                let mut child = module.clone();
                child.extend(inline);
                child.push(name);
                load_file(src, &file, &child_dir, child, child_test, out);
            }
            attrs.clear();
            i += 3;
            continue;
        }
        if t.is("{") {
            stack.push(Frame::Other);
        } else if t.is("}") {
            stack.pop();
        }
        if t.is("{") || t.is("}") || t.is(";") {
            attrs.clear();
        }
        i += 1;
    }
    let _ = src;
    let rel = path.strip_prefix(root()).unwrap_or(path);
    out.push(File {
        rel: rel.display().to_string(),
        module,
        test,
        toks,
    });
}

/// A path found in code: its segments resolved from the crate root, where it was written.
struct Use {
    segments: Vec<String>,
    line: usize,
}

impl Use {
    /// The path as rustc resolves it, `crate::layers::…` even when written with `super::`.
    fn shown(&self) -> String {
        format!("crate::layers::{}", self.segments.join("::"))
    }
}

/// Every `crate::layers::`/`self::`/`super::` path outside test code, resolved from the crate root;
/// a grouped `use` tree gives one path per leaf.
fn paths(file: &File) -> Vec<Use> {
    let toks = &file.toks;
    let mut out = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut attrs_test = false;
    let mut i = 0;
    while i < toks.len() {
        if toks[i].is("#")
            && let Some((attr, next)) = attribute(toks, i)
        {
            attrs_test |= is_cfg_test(&attr);
            i = next;
            continue;
        }
        let t = &toks[i];
        if t.is("mod") && toks.get(i + 2).is_some_and(|n| n.is("{")) {
            let name = toks[i + 1].text.clone();
            stack.push(Frame::Mod {
                name,
                test: attrs_test,
            });
            attrs_test = false;
            i += 3;
            continue;
        }
        if t.is("{") {
            // `#[cfg(test)] fn helper() { … }` is test code too.
            stack.push(if attrs_test {
                Frame::Mod {
                    name: String::new(),
                    test: true,
                }
            } else {
                Frame::Other
            });
            attrs_test = false;
        } else if t.is("}") {
            stack.pop();
        } else if t.is(";") {
            attrs_test = false;
        }
        let in_test = file.test
            || attrs_test
            || stack
                .iter()
                .any(|f| matches!(f, Frame::Mod { test: true, .. }));
        let starts = matches!(t.text.as_str(), "crate" | "self" | "super")
            && t.kind == Kind::Ident
            && toks.get(i + 1).is_some_and(|n| n.is("::"))
            && !(i > 0 && toks[i - 1].is("::"));
        if !starts {
            i += 1;
            continue;
        }
        // Where `self` is: the file's module and the inline modules around this token.
        let mut here = file.module.clone();
        here.extend(stack.iter().filter_map(|f| match f {
            Frame::Mod { name, .. } if !name.is_empty() => Some(name.clone()),
            _ => None,
        }));
        let (mut base, mut j) = (Vec::new(), i);
        match t.text.as_str() {
            "crate" => j += 2,
            "self" => {
                base = here;
                j += 2;
            }
            _ => {
                base = here;
                while toks.get(j).is_some_and(|t| t.is("super"))
                    && toks.get(j + 1).is_some_and(|t| t.is("::"))
                {
                    base.pop();
                    j += 2;
                }
            }
        }
        let mut leaves = Vec::new();
        let end = tree(toks, j, base, &mut leaves);
        if !in_test {
            out.extend(
                leaves
                    .into_iter()
                    .map(|(segments, line)| Use { segments, line }),
            );
        }
        i = end.max(i + 1);
    }
    out
}

/// A path or `use` tree from `toks[j]` under `prefix`: its leaves, and the index after it.
fn tree(
    toks: &[Tok],
    mut j: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, usize)>,
) -> usize {
    let line = toks.get(j).map_or(0, |t| t.line);
    loop {
        match toks.get(j) {
            Some(t) if t.is("{") => {
                j += 1;
                while j < toks.len() && !toks[j].is("}") {
                    if toks[j].is(",") {
                        j += 1;
                        continue;
                    }
                    if toks[j].is("self") {
                        out.push((prefix.clone(), toks[j].line));
                        j += 1;
                        continue;
                    }
                    let before = j;
                    j = tree(toks, j, prefix.clone(), out);
                    // Skip `as name` and anything this reader does not follow, up to the next item.
                    while j < toks.len() && !toks[j].is(",") && !toks[j].is("}") {
                        j += 1;
                    }
                    if j == before {
                        j += 1;
                    }
                }
                return j + 1;
            }
            Some(t) if t.kind == Kind::Ident => {
                prefix.push(t.text.clone());
                if toks.get(j + 1).is_some_and(|n| n.is("::"))
                    && toks
                        .get(j + 2)
                        .is_some_and(|n| n.kind == Kind::Ident || n.is("{") || n.is("*"))
                {
                    j += 2;
                    continue;
                }
                out.push((prefix, line));
                return j + 1;
            }
            // `super::*`, a glob, or a path that ends at `<`: the prefix is what is reached.
            _ => {
                out.push((prefix, line));
                return j + 1;
            }
        }
    }
}

/// The table between the markers: module → the top-level modules it may import.
fn read_table(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    let start = doc
        .find(BEGIN)
        .expect("docs/ARCHITECTURE.md has no `<!-- layers:begin -->`");
    let end = doc
        .find(END)
        .expect("docs/ARCHITECTURE.md has no `<!-- layers:end -->`");
    let mut table = BTreeMap::new();
    for raw in doc[start + BEGIN.len()..end].lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with("```") {
            continue;
        }
        let (module, allowed) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("layers table: `{line}` is not `module: allowed, …`"));
        let allowed: BTreeSet<String> = allowed
            .split(',')
            .map(str::trim)
            .filter(|m| !m.is_empty() && *m != "-")
            .map(String::from)
            .collect();
        let previous = table.insert(module.trim().to_string(), allowed);
        assert!(
            previous.is_none(),
            "layers table: `{}` has two lines",
            module.trim()
        );
    }
    table
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rs_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_import_points_down_the_layers() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let table = read_table(&doc);
    let files = load_workspace();
    let mut problems = Vec::new();

    // Every module of the crate has a line; every line and every allowed name is a module.
    let modules: BTreeSet<String> = files
        .iter()
        .filter(|f| f.module.len() == 1)
        .map(|f| f.module[0].clone())
        .collect();
    for m in &modules {
        if !table.contains_key(m) {
            problems.push(format!(
                "a crate's lib.rs declares `{m}`, which has no line in docs/ARCHITECTURE.md's layers table: \
                 add `{m}: <the modules it may import>`"
            ));
        }
    }
    for (m, allowed) in &table {
        for name in std::iter::once(m).chain(allowed) {
            if !modules.contains(name) {
                problems.push(format!(
                    "layers table: `{name}` (line `{m}`) is no module of any crate"
                ));
            }
        }
        if allowed.contains(m) {
            problems.push(format!("layers table: `{m}` lists itself"));
        }
    }

    // Every file under a source folder is one this test reads (else a `mod` form it does not
    // follow).
    let mut on_disk = Vec::new();
    for dir in source_dirs() {
        rs_files(&dir, &mut on_disk);
    }
    let read: BTreeSet<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    for path in on_disk {
        let rel = path.strip_prefix(root()).unwrap().display().to_string();
        if rel != "src/main.rs" && !read.contains(rel.as_str()) {
            problems.push(format!(
                "{rel}: no `mod` from its crate's lib.rs reaches it (a stray file, or a `mod` form tests/it/layers.rs does not follow)"
            ));
        }
    }

    for file in files.iter().filter(|f| !f.module.is_empty()) {
        let own = &file.module[0];
        let Some(allowed) = table.get(own) else {
            continue;
        };
        // One complaint per line and module reached, for `use crate::layers::tui::{self, App}`.
        let mut said = BTreeSet::new();
        for u in paths(file) {
            let Some(target) = u.segments.first() else {
                continue;
            };
            if target == own || !modules.contains(target) || allowed.contains(target) {
                continue;
            }
            if !said.insert((u.line, target.clone())) {
                continue;
            }
            let rule = if allowed.is_empty() {
                "-".to_string()
            } else {
                allowed.iter().cloned().collect::<Vec<_>>().join(", ")
            };
            problems.push(format!(
                "{}:{}: `{}` reaches `{target}`, but the layers table allows `{own}: {rule}`",
                file.rel,
                u.line,
                u.shown()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "layers broken (docs/ARCHITECTURE.md, \"Layers\"):\n{}",
        problems.join("\n")
    );
}

/// The table itself points one way: no module may import, through any chain, a module that
/// may import it back. (The last such loop, `config` ↔ `config_check`, went when
/// `RunConfig`'s types moved to `config_model`, below both.)
#[test]
fn the_layers_table_has_no_loop() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let table = read_table(&doc);
    let edges: BTreeMap<&str, BTreeMap<&str, (usize, String)>> = table
        .iter()
        .map(|(m, allowed)| {
            let to = allowed.iter().map(|a| (a.as_str(), (0, String::new())));
            (m.as_str(), to.collect())
        })
        .collect();
    let loops = strongly_connected(&edges);
    let problems: Vec<String> = loops
        .iter()
        .map(|l| {
            format!(
                "the layers table allows a loop among {}: one of them must not import the other; \
                 move what they share below both",
                l.join(", ")
            )
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The file a resolved path lands in: the longest prefix of it that is a file's module.
fn file_of<'a>(by_module: &BTreeMap<&[String], &'a File>, segments: &[String]) -> Option<&'a File> {
    (1..=segments.len())
        .rev()
        .find_map(|k| by_module.get(&segments[..k]).copied())
}

/// The files of a module import each other in no loop: a loop means two files share a piece
/// that belongs in a small file below both (the stages of `engine/` share `stages/fields.rs`,
/// not each other; the TUI's state files sit below `app.rs`, its behaviour above). None is
/// tolerated. Loops across modules are the layers table's to refuse.
#[test]
fn a_modules_files_import_each_other_in_no_loop() {
    let files = load_workspace();
    let by_module: BTreeMap<&[String], &File> =
        files.iter().map(|f| (f.module.as_slice(), f)).collect();
    let top = |f: &File| f.module.first().cloned().unwrap_or_default();
    let mut edges: BTreeMap<&str, BTreeMap<&str, (usize, String)>> = BTreeMap::new();
    for file in files.iter().filter(|f| !f.test && !f.module.is_empty()) {
        let out = edges.entry(file.rel.as_str()).or_default();
        for u in paths(file) {
            if let Some(to) = file_of(&by_module, &u.segments)
                && !to.test
                && top(to) == top(file)
                && to.rel != file.rel
            {
                out.entry(to.rel.as_str()).or_insert((u.line, u.shown()));
            }
        }
    }
    let module_of = |rel: &str| {
        let file = files
            .iter()
            .find(|f| f.rel == rel)
            .expect("a file read above");
        top(file)
    };
    let cycles = strongly_connected(&edges);
    let mut report = String::new();
    for scc in &cycles {
        let _ = writeln!(
            report,
            "a loop among {} (in {}/):",
            scc.join(", "),
            module_of(scc[0])
        );
        for from in scc {
            for (to, (line, written)) in &edges[from] {
                if scc.contains(to) {
                    let _ = writeln!(report, "  {from}:{line}: `{written}` → {to}");
                }
            }
        }
    }
    assert!(
        report.is_empty(),
        "files of one module import each other in a loop; move the shared piece into a file below them:\n{report}"
    );
}

/// Tarjan's strongly connected components with more than one file, each sorted.
fn strongly_connected<'a>(
    edges: &BTreeMap<&'a str, BTreeMap<&'a str, (usize, String)>>,
) -> Vec<Vec<&'a str>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(
        v: &'a str,
        edges: &BTreeMap<&'a str, BTreeMap<&'a str, (usize, String)>>,
        s: &mut State<'a>,
    ) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in edges.get(v).into_iter().flat_map(|m| m.keys()) {
            if !s.index.contains_key(w) {
                visit(w, edges, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                s.out.push(scc);
            }
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(v, edges, &mut s);
        }
    }
    s.out
}

/// The crates the workspace's packages name (`youra-vsa` …) and the modules each holds.
fn crates_and_modules() -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for dir in source_dirs() {
        let manifest = std::fs::read_to_string(dir.parent().unwrap().join("Cargo.toml")).unwrap();
        let name = manifest
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|l| l.strip_suffix('"'))
            .expect("a package name")
            .to_string();
        let modules = load_crate(&dir)
            .into_iter()
            .filter(|f| f.module.len() == 1)
            .map(|f| f.module[0].clone());
        out.entry(name).or_default().extend(modules);
    }
    out
}

/// The workspace's packages depend on each other as the layers table says: a crate's
/// dependencies are the crates of the modules its modules' lines name, no more and no fewer
/// (read from `cargo metadata`). So the compiler refuses an import across crates that the
/// table does not allow; the tests above hold the lines between modules of one crate. A
/// dev-dependency (a test's fixture from another crate) may only point down.
#[test]
fn the_workspace_graph_is_the_layers_table() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let table = read_table(&doc);
    let crates = crates_and_modules();
    let crate_of: BTreeMap<&str, &str> = crates
        .iter()
        .flat_map(|(c, ms)| ms.iter().map(move |m| (m.as_str(), c.as_str())))
        .collect();
    let mut want: BTreeMap<&str, BTreeSet<&str>> = crates
        .keys()
        .map(|c| (c.as_str(), BTreeSet::new()))
        .collect();
    for (m, allowed) in &table {
        let c = crate_of[m.as_str()];
        for a in allowed {
            let to = crate_of[a.as_str()];
            if to != c {
                want.get_mut(c).unwrap().insert(to);
            }
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut got: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut dev: Vec<(String, String)> = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap().to_string();
        let deps = got.entry(name.clone()).or_default();
        for d in p["dependencies"].as_array().unwrap() {
            let to = d["name"].as_str().unwrap();
            if !crates.contains_key(to) {
                continue;
            }
            match d["kind"].as_str() {
                None => {
                    deps.insert(to.to_string());
                }
                Some("dev") => dev.push((name.clone(), to.to_string())),
                Some(_) => {}
            }
        }
    }
    let want: BTreeMap<String, BTreeSet<String>> = want
        .into_iter()
        .map(|(c, d)| (c.to_string(), d.into_iter().map(String::from).collect()))
        .collect();
    let mut problems = Vec::new();
    for (c, w) in &want {
        let g = got.get(c).cloned().unwrap_or_default();
        for extra in g.difference(w) {
            problems.push(format!(
                "{c} depends on {extra}, which no line of its modules in the layers table names"
            ));
        }
        for missing in w.difference(&g) {
            problems.push(format!(
                "{c} does not depend on {missing}, which the layers table lets its modules import"
            ));
        }
    }
    // Everything a crate reaches through its dependencies, to see that a dev-dependency
    // points down.
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(c) = stack.pop() {
            for d in want.get(&c).into_iter().flatten() {
                if seen.insert(d.clone()) {
                    stack.push(d.clone());
                }
            }
        }
        seen
    };
    for (from, to) in &dev {
        if reach(to).contains(from) {
            problems.push(format!(
                "{from} has a dev-dependency on {to}, which depends on {from}: move the test up"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the workspace's graph is not the layers table (docs/ARCHITECTURE.md):\n{}",
        problems.join("\n")
    );
}
