//! What the run executed, as searchable text: its code, configs, results and logs. A
//! claim's spelling is found case- and separator-insensitively but only at word edges, so
//! `t-test` finds `stats.ttest_ind` and `LogisticRegression` finds `logistic regression`,
//! while `acc` does not find `accumulate`.
//!
//! Searched: `h-*/code/**` (every text file), `h-*/results/**` and `h-*/config*/**` (logs,
//! JSON, YAML, CSV, text), and `config*/**` beside them. Binary files (a NUL in the first
//! 8 KiB) and files over 4 MiB are skipped.

use std::path::Path;

use serde::Serialize;

use super::error::ReportError;

const MAX_FILE: u64 = 4 << 20;
const MAX_TOTAL: usize = 64 << 20;
const SKIP_DIRS: &[&str] = &[
    ".git",
    "__pycache__",
    "node_modules",
    ".venv",
    "venv",
    ".ipynb_checkpoints",
    "wandb",
];
const RESULT_EXTS: &[&str] = &[
    "log", "json", "jsonl", "yaml", "yml", "csv", "txt", "out", "err", "toml", "cfg", "ini",
];

/// Where a spelling was found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    pub file: String,
    pub line: usize,
}

/// One text file, with a lowercase alphanumeric-only copy for matching.
#[derive(Debug, Clone)]
pub struct CorpusFile {
    pub path: String,
    pub text: String,
    squashed: String,
    /// For each byte of `squashed` (and one past the end): the original byte offset.
    orig: Vec<usize>,
    /// For each byte of `squashed` (and one past the end): a word edge lies before it.
    edge: Vec<bool>,
}

#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub files: Vec<CorpusFile>,
    /// The places searched, as a reader should be told (`h-e1/code/**`).
    pub searched: Vec<String>,
}

/// Lowercase alphanumerics only: what both sides are compared as.
pub fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

impl CorpusFile {
    pub fn new(path: String, text: String) -> Self {
        let mut squashed = String::new();
        let mut orig = Vec::new();
        let mut edge = Vec::new();
        let mut prev: Option<(usize, char)> = None; // previous alphanumeric: (end byte, char)
        for (i, c) in text.char_indices() {
            if !c.is_alphanumeric() {
                continue;
            }
            let is_edge = prev.is_none_or(|(end, p)| {
                end != i
                    || (p.is_lowercase() && c.is_uppercase())
                    || (p.is_alphabetic() != c.is_alphabetic())
            });
            for (k, l) in c.to_lowercase().enumerate() {
                for b in 0..l.len_utf8() {
                    orig.push(i);
                    edge.push(is_edge && k == 0 && b == 0);
                }
                squashed.push(l);
            }
            prev = Some((i + c.len_utf8(), c));
        }
        // One past the end: an edge, mapping to the end of the last alphanumeric.
        orig.push(prev.map_or(0, |(end, _)| end));
        edge.push(true);
        // An edge also lies where the next alphanumeric is not adjacent (set above on it).
        CorpusFile {
            path,
            text,
            squashed,
            orig,
            edge,
        }
    }

    /// Byte offsets (in `text`) where `spelling` occurs between word edges: (start, end).
    pub(crate) fn find_all(&self, spelling: &str) -> Vec<(usize, usize)> {
        let needle = squash(spelling);
        if needle.is_empty() {
            return Vec::new();
        }
        self.squashed
            .match_indices(&needle)
            .map(|(k, _)| (k, k + needle.len()))
            .filter(|&(k, e)| self.edge[k] && self.edge[e])
            .map(|(k, e)| {
                let end = self.orig_end(e);
                (self.orig[k], end)
            })
            .collect()
    }

    /// The original byte just past the squashed character ending at `e`.
    fn orig_end(&self, e: usize) -> usize {
        if e >= self.squashed.len() {
            return self.orig[self.squashed.len()];
        }
        // The last squashed byte of the match starts a char at orig[e - 1].
        let start = self.orig[e - 1];
        start + self.text[start..].chars().next().map_or(0, char::len_utf8)
    }

    pub fn line_of(&self, at: usize) -> usize {
        self.text[..at].matches('\n').count() + 1
    }
}

impl Corpus {
    pub fn from_texts(files: Vec<(String, String)>) -> Self {
        Corpus {
            files: files
                .into_iter()
                .map(|(p, t)| CorpusFile::new(p, t))
                .collect(),
            searched: Vec::new(),
        }
    }

    /// The first place any of `spellings` occurs.
    pub fn find(&self, spellings: &[String]) -> Option<Hit> {
        for f in &self.files {
            for s in spellings {
                if let Some(&(start, _)) = f.find_all(s).first() {
                    return Some(Hit {
                        file: f.path.clone(),
                        line: f.line_of(start),
                    });
                }
            }
        }
        None
    }

    /// The first place one of `names` is followed on its line (within 100 bytes) by a
    /// number equal to `value`: `lr=1e-3`, `"batch_size": 32`, `--epochs 100`.
    pub(crate) fn find_value(&self, names: &[String], value: f64) -> Option<Hit> {
        for f in &self.files {
            for name in names {
                for (start, end) in f.find_all(name) {
                    let rest = &f.text[end..];
                    let line_end = rest.find('\n').unwrap_or(rest.len()).min(100);
                    let mut cut = line_end;
                    while !rest.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    if code_numbers(&rest[..cut]).iter().any(|v| same(*v, value)) {
                        return Some(Hit {
                            file: f.path.clone(),
                            line: f.line_of(start),
                        });
                    }
                }
            }
        }
        None
    }

    /// Read the run's code, configs, results and logs.
    pub fn load(run: &Path) -> Result<Self, ReportError> {
        let mut corpus = Corpus::default();
        let mut total = 0usize;
        let read = std::fs::read_dir(run).map_err(|source| ReportError::Read {
            path: run.to_path_buf(),
            source,
        })?;
        let mut tops: Vec<String> = read
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect();
        tops.sort();
        for top in &tops {
            if top.starts_with("config") {
                corpus.walk(run, top, None, &mut total);
            }
            if !top.starts_with("h-") {
                continue;
            }
            corpus.walk(run, &format!("{top}/code"), None, &mut total);
            corpus.walk(
                run,
                &format!("{top}/results"),
                Some(RESULT_EXTS),
                &mut total,
            );
            for sub in ["config", "configs"] {
                corpus.walk(run, &format!("{top}/{sub}"), Some(RESULT_EXTS), &mut total);
            }
        }
        Ok(corpus)
    }

    fn walk(&mut self, run: &Path, rel: &str, exts: Option<&[&str]>, total: &mut usize) {
        let dir = run.join(rel);
        if !dir.is_dir() {
            return;
        }
        self.searched.push(format!("{rel}/**"));
        let mut stack = vec![(dir, rel.to_string())];
        while let Some((dir, rel)) = stack.pop() {
            let Ok(read) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut entries: Vec<_> = read.filter_map(Result::ok).collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let name = e.file_name().to_string_lossy().into_owned();
                let child = format!("{rel}/{name}");
                match e.file_type() {
                    Ok(t) if t.is_dir() && !SKIP_DIRS.contains(&name.as_str()) => {
                        stack.push((e.path(), child));
                    }
                    Ok(t) if t.is_file() => {
                        let ext = name.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
                        if exts.is_some_and(|x| !x.contains(&ext.as_str())) {
                            continue;
                        }
                        if let Some(text) = read_text(&e.path(), *total) {
                            *total += text.len();
                            self.files.push(CorpusFile::new(child, text));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// A text file's contents; `None` for binaries, large files and unreadable ones.
fn read_text(path: &Path, total: usize) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_FILE || total + meta.len() as usize > MAX_TOTAL {
        return None;
    }
    // No link followed, regular files only, capped: a FIFO in a handed run must not hang.
    let bytes = crate::fsutil::read_capped(path, MAX_FILE).ok()?;
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return None;
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Numeric literals in a stretch of code: `0.001`, `1e-3`, `32`, `1_000`, `.5`.
pub(crate) fn code_numbers(s: &str) -> Vec<f64> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts =
            b[i].is_ascii_digit() || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        let glued = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if !starts || glued {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_digit() || matches!(b[j], b'.' | b'_')) {
            j += 1;
        }
        if j < b.len() && matches!(b[j], b'e' | b'E') {
            let k = j + 1 + usize::from(matches!(b.get(j + 1), Some(b'-' | b'+')));
            if b.get(k).is_some_and(u8::is_ascii_digit) {
                j = k + b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
            }
        }
        if let Ok(v) = s[i..j]
            .replace('_', "")
            .trim_end_matches('.')
            .parse::<f64>()
        {
            out.push(v);
        }
        i = j.max(i + 1);
    }
    out
}

/// Equal up to floating-point noise: `0.001` and `1e-3` are one value.
pub fn same(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[cfg(test)]
#[path = "corpus_tests.rs"]
mod tests;
