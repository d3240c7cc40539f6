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
    fn from_object(line: usize, object: Map<String, Value>) -> MetricRecord {
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
    pub warnings: Vec<String>,
}

/// Follows a growing `metrics.jsonl` from a byte offset, so a TUI can poll it cheaply:
/// each [`read_new`](Self::read_new) reads only what was appended since the last one.
#[derive(Debug, Clone)]
pub struct MetricsReader {
    path: PathBuf,
    offset: u64,
    line: usize,
}

impl MetricsReader {
    pub fn new(path: impl Into<PathBuf>) -> MetricsReader {
        MetricsReader {
            path: path.into(),
            offset: 0,
            line: 0,
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

    fn read(&mut self, finished: bool) -> io::Result<MetricsBatch> {
        let mut batch = MetricsBatch::default();
        let mut file = match crate::fsutil::open_nofollow(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(batch),
            Err(e) => return Err(e),
        };
        if file.metadata()?.len() < self.offset {
            batch.warnings.push(format!(
                "{} shrank; reading it again from the start",
                self.path.display()
            ));
            self.offset = 0;
            self.line = 0;
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let mut consumed = 0;
        while consumed < bytes.len() {
            let rest = &bytes[consumed..];
            let (text, used) = match rest.iter().position(|&b| b == b'\n') {
                Some(nl) => (&rest[..nl], nl + 1),
                None if finished => (rest, rest.len()),
                None => break,
            };
            consumed += used;
            self.line += 1;
            self.parse_line(text, &mut batch);
        }
        self.offset += consumed as u64;
        Ok(batch)
    }

    fn parse_line(&self, text: &[u8], batch: &mut MetricsBatch) {
        let text = String::from_utf8_lossy(text);
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => batch
                .records
                .push(MetricRecord::from_object(self.line, object)),
            Ok(_) => batch.warnings.push(format!(
                "{} line {}: not a JSON object; skipped",
                self.path.display(),
                self.line
            )),
            Err(e) => batch.warnings.push(format!(
                "{} line {}: malformed JSON ({e}); skipped",
                self.path.display(),
                self.line
            )),
        }
    }
}

/// Reads the whole `metrics.jsonl` of an ended job.
pub fn read_metrics(path: &Path) -> MetricsBatch {
    MetricsReader::new(path)
        .read_to_end()
        .unwrap_or_else(|e| MetricsBatch {
            records: Vec::new(),
            warnings: vec![format!("cannot read {}: {e}", path.display())],
        })
}

/// `experiment_results.json`: `Ok(None)` when absent, `Err(warning)` when unreadable or not
/// JSON (the caller reports it; the job itself may still have succeeded).
pub fn read_results(path: &Path) -> Result<Option<Value>, String> {
    let read = crate::fsutil::open_nofollow(path).and_then(|mut f| {
        let mut text = String::new();
        io::Read::read_to_string(&mut f, &mut text).map(|_| text)
    });
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
