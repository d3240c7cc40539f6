//! Reading what an experiment reports: `results/metrics.jsonl` (one JSON object per line,
//! appended while it runs) and `results/experiment_results.json` (its final summary).
//! Both are data from generated code, so every defect is a warning, never an error.

use std::collections::BTreeMap;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// One line of `metrics.jsonl`. The well-known keys are lifted out; the other numbers go to
/// `values` (what a chart plots), everything else to `other`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetricRecord {
    /// 1-based line number in the file.
    pub line: usize,
    pub step: Option<u64>,
    pub epoch: Option<u64>,
    /// `train`, `val`, `test` …
    pub split: Option<String>,
    pub values: BTreeMap<String, f64>,
    pub other: Map<String, Value>,
}

impl MetricRecord {
    pub(crate) fn from_object(line: usize, object: Map<String, Value>) -> MetricRecord {
        let mut record = MetricRecord {
            line,
            ..MetricRecord::default()
        };
        for (key, value) in object {
            match (key.as_str(), &value) {
                ("step", Value::Number(n)) if n.as_u64().is_some() => record.step = n.as_u64(),
                ("epoch", Value::Number(n)) if n.as_u64().is_some() => record.epoch = n.as_u64(),
                ("split", Value::String(s)) => record.split = Some(s.clone()),
                (_, Value::Number(n)) => match n.as_f64() {
                    Some(x) => {
                        record.values.insert(key, x);
                    }
                    None => {
                        record.other.insert(key, value);
                    }
                },
                _ => {
                    record.other.insert(key, value);
                }
            }
        }
        record
    }
}

/// What one read of the file produced.
#[derive(Debug, Clone, Default)]
pub struct MetricsBatch {
    pub records: Vec<MetricRecord>,
    /// The first [`MAX_WARNINGS`] problems, then one line counting the rest: a file of two
    /// million bad lines must not become two million strings in youra's memory.
    pub warnings: Vec<String>,
    /// Lines skipped (malformed, not an object, too long), all of them counted.
    pub skipped: usize,
}

/// The most bytes of `metrics.jsonl` youra reads in all; the rest is left unread, said once.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// The most lines read (records and bad lines together).
pub const MAX_LINES: usize = 1_000_000;
/// A longer line is skipped unparsed: no metric record needs it.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;
/// Problems kept as text; the others are only counted.
pub const MAX_WARNINGS: usize = 20;

/// Where the file is: a plain path (its last component opened without following a link),
/// or a path under a workspace opened without following a link on any component.
#[derive(Debug, Clone)]
enum Source {
    Path(PathBuf),
    Beneath { base: PathBuf, rel: PathBuf },
}

/// Follows a growing `metrics.jsonl` from a byte offset, so a TUI can poll it cheaply:
/// each [`read_new`](Self::read_new) reads only what was appended since the last one.
#[derive(Debug, Clone)]
pub struct MetricsReader {
    source: Source,
    path: PathBuf,
    offset: u64,
    line: usize,
    /// Bad lines seen by earlier reads (the warning cap counts across reads).
    skipped: usize,
    /// The cap was reached once and said so; nothing more is read.
    capped: bool,
}

impl MetricsReader {
    pub fn new(path: impl Into<PathBuf>) -> MetricsReader {
        let path = path.into();
        MetricsReader::from_source(Source::Path(path.clone()), path)
    }

    /// A reader of `base/rel` that follows no link on any component of `rel` (for an
    /// experiment's workspace: a planted `results -> /elsewhere` is an error, not a read).
    pub fn beneath(base: &Path, rel: &Path) -> MetricsReader {
        let source = Source::Beneath {
            base: base.to_path_buf(),
            rel: rel.to_path_buf(),
        };
        MetricsReader::from_source(source, base.join(rel))
    }

    fn from_source(source: Source, path: PathBuf) -> MetricsReader {
        MetricsReader {
            source,
            path,
            offset: 0,
            line: 0,
            skipped: 0,
            capped: false,
        }
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The complete lines appended since the last read. A last line without its newline is
    /// left for the next read: the experiment may be writing it right now.
    pub fn read_new(&mut self) -> io::Result<MetricsBatch> {
        self.read(false)
    }

    /// Like [`read_new`](Self::read_new), for a job that has ended: a last line without a
    /// newline is read too (and skipped with a warning if it is cut short).
    pub fn read_to_end(&mut self) -> io::Result<MetricsBatch> {
        self.read(true)
    }

    fn open(&self) -> io::Result<std::fs::File> {
        match &self.source {
            Source::Path(p) => crate::fsutil::open_nofollow(p),
            Source::Beneath { base, rel } => {
                crate::fsutil::open_beneath(base, rel, crate::fsutil::Beneath::Read)
            }
        }
    }

    fn read(&mut self, finished: bool) -> io::Result<MetricsBatch> {
        let mut batch = MetricsBatch::default();
        let mut file = match self.open() {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(batch),
            Err(e) => return Err(e),
        };
        if file.metadata()?.len() < self.offset {
            batch.warnings.push(format!(
                "{} shrank; reading it again from the start",
                self.path.display()
            ));
            (self.offset, self.line, self.skipped, self.capped) = (0, 0, 0, false);
        }
        if self.capped {
            return Ok(batch);
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut bytes = Vec::new();
        let budget = MAX_BYTES.saturating_sub(self.offset);
        file.take(budget.saturating_add(1))
            .read_to_end(&mut bytes)?;
        let over = bytes.len() as u64 > budget;
        bytes.truncate(budget as usize);
        let skipped_before = self.skipped;
        let mut consumed = 0;
        while consumed < bytes.len() {
            if self.line >= MAX_LINES {
                self.cap(&mut batch, format!("{MAX_LINES} lines"));
                break;
            }
            let rest = &bytes[consumed..];
            let (text, used) = match rest.iter().position(|&b| b == b'\n') {
                Some(nl) => (&rest[..nl], nl + 1),
                None if finished || over => (rest, rest.len()),
                None => break,
            };
            consumed += used;
            self.line += 1;
            self.parse_line(text, &mut batch);
        }
        self.offset += consumed as u64;
        if over && !self.capped {
            self.cap(&mut batch, format!("{} MiB", MAX_BYTES / 1024 / 1024));
        }
        let unsaid = self
            .skipped
            .saturating_sub(skipped_before.max(MAX_WARNINGS));
        if unsaid > 0 {
            batch.warnings.push(format!(
                "{}: {unsaid} more bad lines skipped (only the first {MAX_WARNINGS} are described)",
                self.path.display()
            ));
        }
        batch.skipped = self.skipped - skipped_before;
        Ok(batch)
    }

    /// The file is larger than youra reads: said once, the rest left unread.
    fn cap(&mut self, batch: &mut MetricsBatch, what: String) {
        self.capped = true;
        batch.warnings.push(format!(
            "{}: stopped reading after {what} (line {}); the rest is not read. Log fewer, coarser records",
            self.path.display(),
            self.line
        ));
    }

    fn parse_line(&mut self, text: &[u8], batch: &mut MetricsBatch) {
        if text.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let problem = if text.len() > MAX_LINE_BYTES {
            format!("longer than {MAX_LINE_BYTES} bytes")
        } else {
            match serde_json::from_slice::<Value>(text.trim_ascii()) {
                Ok(Value::Object(object)) => {
                    return batch
                        .records
                        .push(MetricRecord::from_object(self.line, object));
                }
                Ok(_) => "not a JSON object".to_string(),
                Err(e) => format!("malformed JSON ({e})"),
            }
        };
        self.skipped += 1;
        if self.skipped <= MAX_WARNINGS {
            batch.warnings.push(format!(
                "{} line {}: {problem}; skipped",
                self.path.display(),
                self.line
            ));
        }
    }
}

/// Reads the whole `metrics.jsonl` of an ended job, following no link on its last two
/// components (`results/metrics.jsonl`: experiment code can replace either).
/// The JSON objects of a `metrics.jsonl` text, one per line; a line that is not an object is
/// skipped. For the charts (the TUI's and the paper's), which plot every numeric field.
pub fn json_rows(text: &str) -> Vec<Map<String, Value>> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok()?.as_object().cloned())
        .collect()
}

pub fn read_metrics(path: &Path) -> MetricsBatch {
    let mut reader = match split_last_two(path) {
        Some((base, rel)) => MetricsReader::beneath(base, rel),
        None => MetricsReader::new(path),
    };
    finish(path, reader.read_to_end())
}

/// `(grandparent, the last two components)` of `path`, when it has a grandparent.
fn split_last_two(path: &Path) -> Option<(&Path, &Path)> {
    let base = path
        .parent()?
        .parent()
        .filter(|b| !b.as_os_str().is_empty())?;
    Some((base, path.strip_prefix(base).ok()?))
}

/// Reads the whole `base/rel` of an ended job, following no link on any component of `rel`.
pub fn read_metrics_beneath(base: &Path, rel: &Path) -> io::Result<MetricsBatch> {
    MetricsReader::beneath(base, rel).read_to_end()
}

fn finish(path: &Path, read: io::Result<MetricsBatch>) -> MetricsBatch {
    read.unwrap_or_else(|e| MetricsBatch {
        warnings: vec![format!("cannot read {}: {e}", path.display())],
        ..MetricsBatch::default()
    })
}

/// The most bytes of `experiment_results.json` read (a summary, not a data dump).
pub(crate) const MAX_RESULTS_BYTES: u64 = 16 * 1024 * 1024;

/// `experiment_results.json`: `Ok(None)` when absent, `Err(warning)` when unreadable or not
/// JSON (the caller reports it; the job itself may still have succeeded).
pub fn read_results(path: &Path) -> Result<Option<Value>, String> {
    if let Some((base, rel)) = split_last_two(path) {
        return read_results_beneath(base, rel)
            .unwrap_or_else(|e| Err(format!("cannot read {}: {e}", path.display())));
    }
    let read = crate::fsutil::open_nofollow(path).and_then(|f| {
        let mut text = String::new();
        f.take(MAX_RESULTS_BYTES)
            .read_to_string(&mut text)
            .map(|_| text)
    });
    parse_results(path, read)
}

/// [`read_results`] of `base/rel`, following no link on any component of `rel`; a planted
/// link is an `io::Error` the caller reports as a sandbox violation.
pub fn read_results_beneath(base: &Path, rel: &Path) -> io::Result<Result<Option<Value>, String>> {
    match crate::fsutil::read_beneath(base, rel, MAX_RESULTS_BYTES) {
        Err(e) if crate::fsutil::planted_link(&e).is_some() => Err(e),
        read => Ok(parse_results(
            &base.join(rel),
            read.and_then(|b| String::from_utf8(b).map_err(io::Error::other)),
        )),
    }
}

fn parse_results(path: &Path, read: io::Result<String>) -> Result<Option<Value>, String> {
    let text = match read {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{} is not valid JSON ({e}); ignored", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn bad_lines_are_counted_and_only_the_first_described() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("metrics.jsonl");
        let mut text = "{\"loss\":1.0}\n".to_string();
        text.push_str(&"{oops\n".repeat(50));
        text.push_str(&format!("{{\"x\":\"{}\"}}\n", "y".repeat(MAX_LINE_BYTES)));
        std::fs::write(&path, text)?;
        let batch = read_metrics(&path);
        assert_eq!((batch.records.len(), batch.skipped), (1, 51));
        assert_eq!(batch.warnings.len(), MAX_WARNINGS + 1);
        let last = batch.warnings.last().map(String::as_str).unwrap_or("");
        assert!(last.contains("31 more bad lines skipped"), "{last}");
        Ok(())
    }

    #[test]
    fn follows_a_growing_file_and_skips_bad_lines() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("metrics.jsonl");
        let mut f = std::fs::File::create(&path)?;
        write!(
            f,
            "{{\"step\":3,\"epoch\":1,\"split\":\"val\",\"accuracy\":0.81,\"loss\":0.4}}\nnot json\n{{\"step\":4,"
        )?;
        let mut reader = MetricsReader::new(&path);
        let batch = reader.read_new()?;
        assert_eq!(batch.records.len(), 1);
        let r = &batch.records[0];
        assert_eq!(
            (r.step, r.epoch, r.split.as_deref()),
            (Some(3), Some(1), Some("val"))
        );
        assert_eq!(r.values.get("accuracy"), Some(&0.81));
        assert_eq!(batch.warnings.len(), 1);
        assert!(batch.warnings[0].contains("line 2"));
        // The partial line waits for its end.
        writeln!(f, "\"loss\":0.3}}")?;
        let batch = reader.read_new()?;
        assert_eq!(
            batch
                .records
                .iter()
                .map(|r| (r.line, r.step))
                .collect::<Vec<_>>(),
            vec![(3, Some(4))]
        );
        // A cut-short last line of an ended job is a warning with its line number.
        write!(f, "{{\"step\":5")?;
        let batch = reader.read_to_end()?;
        assert!(batch.records.is_empty());
        assert!(batch.warnings[0].contains("line 4"), "{:?}", batch.warnings);
        Ok(())
    }
}
