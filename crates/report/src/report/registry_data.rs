//! Dataset sizes from the data: how many records each table under `data/` (or a
//! sub-hypothesis's `h-*/data/`) holds, as declared values. A paper that says “the 344
//! penguins” states the data, not a measurement, and the registry says so rather than
//! leaving the number unverified.
//!
//! Read: `.csv`, `.tsv` (records after the header; a quoted field may hold newlines) and
//! `.jsonl` (non-blank lines), up to [`MAX_BYTES`] each, at most [`MAX_DEPTH`] folders down.
//! Key: `data.<file name, non-alphanumerics as _>.rows` (`h-e1.data.….rows` under a
//! sub-hypothesis), path `rows`.

use std::path::Path;

use super::registry::Entry;

/// Larger files are not counted (reading them would slow every check).
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// How deep under `data/` files are looked for.
pub const MAX_DEPTH: usize = 3;

/// Records of a delimited text after its header line; newlines inside double quotes do not
/// end a record, blank lines are not records.
pub(crate) fn csv_records(text: &str) -> usize {
    let mut records = 0;
    let mut quoted = false;
    let mut content = false;
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                content = true;
            }
            '\n' if !quoted => {
                records += usize::from(content);
                content = false;
            }
            c if !c.is_whitespace() => content = true,
            _ => {}
        }
    }
    records += usize::from(content);
    records.saturating_sub(1)
}

/// Non-blank lines of a JSON-lines file.
pub(crate) fn jsonl_records(text: &str) -> usize {
    text.lines().filter(|l| !l.trim().is_empty()).count()
}

/// The record count of one file by its extension, if it is a table youra counts.
pub fn records(name: &str, text: &str) -> Option<usize> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    match ext.as_str() {
        "csv" | "tsv" => Some(csv_records(text)),
        "jsonl" => Some(jsonl_records(text)),
        _ => None,
    }
}

/// `penguins.csv` → `penguins_csv`.
fn key_part(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Declared `rows` entries for the tables under `run/data` and `run/h-*/data`, with the
/// files read (relative to the run).
pub(crate) fn data_entries(run: &Path, hypotheses: &[String]) -> (Vec<Entry>, Vec<String>) {
    let mut roots: Vec<(String, String)> = vec![("data".into(), "data".into())];
    roots.extend(
        hypotheses
            .iter()
            .map(|h| (format!("{h}/data"), format!("{h}.data"))),
    );
    let mut entries = Vec::new();
    let mut files = Vec::new();
    for (rel, prefix) in roots {
        let mut found = Vec::new();
        collect(&run.join(&rel), &rel, 0, &mut found);
        found.sort();
        for file in found {
            let name = file.rsplit('/').next().unwrap_or(&file).to_string();
            // No link followed, regular files only (a FIFO would hang), capped.
            let Ok(text) = crate::fsutil::read_capped_string(run.join(&file), MAX_BYTES) else {
                continue;
            };
            if let Some(n) = records(&name, &text) {
                let inner = file[rel.len()..].trim_start_matches('/');
                entries.push(
                    Entry::new(format!("{prefix}.{}.rows", key_part(inner)), n as f64)
                        .with_origin(&file, "rows".into())
                        .declared(),
                );
                files.push(file);
            }
        }
    }
    (entries, files)
}

/// Files under `dir` (shown as `rel`) small enough to count, depth-limited.
fn collect(dir: &Path, rel: &str, depth: usize, out: &mut Vec<String>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for e in read.filter_map(Result::ok) {
        let Some(name) = e.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let Ok(meta) = e.metadata() else { continue };
        let shown = format!("{rel}/{name}");
        if meta.is_dir() && depth + 1 < MAX_DEPTH {
            collect(&e.path(), &shown, depth + 1, out);
        } else if meta.is_file() && meta.len() <= MAX_BYTES && records(&name, "").is_some() {
            out.push(shown);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_counts_table() {
        let cases = [
            ("a,b\n1,2\n3,4\n", 2),
            ("a,b\n1,2\n3,4", 2),          // no final newline
            ("a,b\n1,2\n\n3,4\n\n", 2),    // blank lines
            ("a,b\n\"x\ny\",2\n3,4\n", 2), // a quoted newline
            ("a,b\r\n1,2\r\n", 1),         // CRLF
            ("a,b\n", 0),
            ("", 0),
        ];
        for (text, want) in cases {
            assert_eq!(csv_records(text), want, "{text:?}");
        }
        assert_eq!(records("x.jsonl", "{}\n\n{}\n"), Some(2));
        assert_eq!(records("LICENSE.md", "a\nb\n"), None);
    }

    #[test]
    fn data_entries_are_declared_rows() {
        let dir = tempfile::tempdir().expect("tempdir");
        let run = dir.path();
        std::fs::create_dir_all(run.join("data/raw")).expect("mkdir");
        std::fs::create_dir_all(run.join("h-e1/data")).expect("mkdir");
        std::fs::write(run.join("data/penguins.csv"), "a,b\n1,2\n3,4\n5,6\n").expect("write");
        std::fs::write(run.join("data/raw/x.tsv"), "a\tb\n1\t2\n").expect("write");
        std::fs::write(run.join("data/LICENSE.md"), "text\n").expect("write");
        std::fs::write(run.join("h-e1/data/s.jsonl"), "{}\n{}\n").expect("write");
        let (entries, files) = data_entries(run, &["h-e1".into()]);
        let got: Vec<(&str, f64, bool, String)> = entries
            .iter()
            .map(|e| (e.key.as_str(), e.value, e.declared, e.location()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "data.penguins_csv.rows",
                    3.0,
                    true,
                    "data/penguins.csv#rows".into()
                ),
                (
                    "data.raw_x_tsv.rows",
                    1.0,
                    true,
                    "data/raw/x.tsv#rows".into()
                ),
                (
                    "h-e1.data.s_jsonl.rows",
                    2.0,
                    true,
                    "h-e1/data/s.jsonl#rows".into()
                ),
            ]
        );
        assert_eq!(files.len(), 3);
    }
}
