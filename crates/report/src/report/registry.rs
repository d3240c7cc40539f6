//! The ground-truth registry: every value the run measured, by dotted key, with where it
//! came from. Drafting receives it as the whitelist of numbers a manuscript may state; the
//! sanitizer checks the manuscript against it.
//!
//! Built from measured results only ([`super::registry_build`]); written to and read from
//! `paper/065_ground_truth.yaml` in YouRA's shape ([`super::registry_yaml`]).

use serde::Serialize;

/// One measured value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// Dotted key: `h-e1.results.metrics.accuracy`, `registry.n_total_models`.
    pub key: String,
    pub value: f64,
    /// `%` when the key says the value is a percentage (`*_pct`, `*_percent`), else a unit
    /// the key names (`*_ms`, `*_gb`), else none.
    pub unit: Option<String>,
    /// The file it was read from, relative to the run (`h-e1/results/experiment_results.json`);
    /// `None` for values loaded from a YouRA registry, which does not say.
    pub source: Option<String>,
    /// Where inside the source: a JSON pointer (`/metrics/accuracy`), a metrics-log line
    /// (`line 12: /test_accuracy`) or a YAML path.
    pub path: Option<String>,
    /// A value the run declared rather than measured (a gate threshold, a seed, a config
    /// value): a paper may state it, but it never verifies a claimed measurement.
    pub declared: bool,
}

impl Entry {
    pub fn new(key: String, value: f64) -> Self {
        let unit = unit_from_key(&key);
        Entry {
            key,
            value,
            unit,
            source: None,
            path: None,
            declared: false,
        }
    }

    /// The same value, marked as declared by the run (see `declared`).
    pub fn declared(mut self) -> Self {
        self.declared = true;
        self
    }

    pub fn with_origin(mut self, source: &str, path: String) -> Self {
        self.source = Some(source.to_string());
        self.path = Some(path);
        self
    }

    /// Whether the value is a percentage (96.5 meaning 96.5%).
    pub fn is_percent(&self) -> bool {
        self.unit.as_deref() == Some("%")
    }

    /// `source#path` as a reader can follow it, or the key when the origin is unknown.
    pub fn location(&self) -> String {
        match (&self.source, &self.path) {
            (Some(s), Some(p)) => format!("{s}#{p}"),
            (Some(s), None) => s.clone(),
            _ => self.key.clone(),
        }
    }
}

/// The unit a key's last segment names, by suffix. Only `%` changes how values compare (see
/// `verify`); the others are shown to the reader.
pub(crate) fn unit_from_key(key: &str) -> Option<String> {
    let last = key.rsplit('.').next().unwrap_or(key).to_ascii_lowercase();
    const SUFFIXES: &[(&str, &str)] = &[
        ("_pct", "%"),
        ("_percent", "%"),
        ("_percentage", "%"),
        ("_ms", "ms"),
        ("_seconds", "s"),
        ("_sec", "s"),
        ("_gb", "GB"),
        ("_mb", "MB"),
    ];
    if last == "pct" || last == "percent" {
        return Some("%".into());
    }
    SUFFIXES
        .iter()
        .find(|(suffix, _)| last.ends_with(suffix))
        .map(|(_, unit)| (*unit).to_string())
}

/// Where the registry's values came from, for the reader and the YAML metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Origin {
    /// Built from the run's measured results (the files read, relative to the run).
    Measured { files: Vec<String> },
    /// Loaded from a registry file (YouRA's or youra's `065_ground_truth.yaml`).
    Loaded { file: String },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Registry {
    pub entries: Vec<Entry>,
    pub origin: Origin,
    /// What was skipped while building, and why (a malformed results file, a bad log line).
    pub warnings: Vec<String>,
    /// Which run each measured file was, in its own records' words (`runs`); empty for a
    /// registry loaded from a file, which does not say.
    #[serde(skip_serializing_if = "super::runs::RunIndex::is_empty")]
    pub runs: super::runs::RunIndex,
    /// The measured results files that report repeats, with their rows: what the paper's
    /// per-attempt intervals are computed from. Not serialised (the entries carry the means).
    #[serde(skip)]
    pub repeats: Vec<RepeatsFile>,
}

/// One trusted results file's `repeats`.
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatsFile {
    pub hypothesis: String,
    /// `h-e1` for the run the gate read (`results/`), `h-e1.attempt2` for a kept attempt.
    pub label: String,
    pub rows: crate::evidence::Repeats,
}

impl Registry {
    pub fn empty() -> Self {
        Registry {
            entries: Vec::new(),
            origin: Origin::Measured { files: Vec::new() },
            warnings: Vec::new(),
            runs: super::runs::RunIndex::default(),
            repeats: Vec::new(),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    pub fn value(&self, key: &str) -> Option<f64> {
        self.get(key).map(|e| e.value)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The whitelist a drafting prompt receives: one `key = value [unit] (location)` line per
    /// entry, in registry order.
    pub fn whitelist(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            let unit = e
                .unit
                .as_deref()
                .map(|u| format!(" {u}"))
                .unwrap_or_default();
            out.push_str(&format!(
                "{} = {}{unit} ({})\n",
                e.key,
                format_value(e.value),
                e.location()
            ));
        }
        out
    }
}

/// A value as YAML and the reader should see it: integers without `.0`, others in Rust's
/// shortest round-trip form (which YAML reads back as the same float).
pub fn format_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v}");
        if s.contains(['.', 'e', 'E']) || !v.is_finite() {
            s
        } else {
            format!("{s}.0")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_from_key_table() {
        let cases = [
            ("registry.documentation_sparsity_pct", Some("%")),
            ("features.x.prevalence_pct", Some("%")),
            ("a.accuracy_percent", Some("%")),
            ("a.pct", Some("%")),
            ("a.latency_ms", Some("ms")),
            ("a.peak_memory_gb", Some("GB")),
            ("a.accuracy", None),
            ("a.pct_models", None),
        ];
        for (key, want) in cases {
            assert_eq!(unit_from_key(key).as_deref(), want, "{key}");
        }
    }

    #[test]
    fn format_value_table() {
        let cases = [
            (4493.0, "4493"),
            (0.965, "0.965"),
            (-3.45, "-3.45"),
            (1.1e-8, "0.000000011"),
            (0.0, "0"),
        ];
        for (v, want) in cases {
            assert_eq!(format_value(v), want);
            let back: f64 = format_value(v).parse().unwrap_or(f64::NAN);
            assert_eq!(back, v);
        }
    }

    #[test]
    fn location_and_whitelist() {
        let e = Entry::new("h-e1.results.acc_pct".into(), 91.5)
            .with_origin("h-e1/results/experiment_results.json", "/acc_pct".into());
        assert_eq!(
            e.location(),
            "h-e1/results/experiment_results.json#/acc_pct"
        );
        assert!(e.is_percent());
        let r = Registry {
            entries: vec![e],
            ..Registry::empty()
        };
        assert_eq!(
            r.whitelist(),
            "h-e1.results.acc_pct = 91.5 % (h-e1/results/experiment_results.json#/acc_pct)\n"
        );
    }
}
