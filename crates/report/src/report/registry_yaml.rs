//! The registry as `paper/065_ground_truth.yaml`, in YouRA's shape: a comment header, a
//! `metadata:` block, then one section per group (the first key segment, a sub-hypothesis
//! for measured values). youra adds `source:` and `path:` to each value:
//!
//! ```yaml
//! h-e1:
//!   results.metrics.accuracy:
//!     value: 0.8123
//!     source: h-e1/results/experiment_results.json
//!     path: /metrics/accuracy
//! ```
//!
//! Loading accepts that and YouRA's own files, which carry bare values in nested sections
//! (`registry: {n_total_models: 4493}`): a mapping with a numeric `value` and a `source` or
//! `path` is one entry; otherwise every numeric leaf is an entry, its key the dotted path
//! (list items by index). `metadata:` describes the file and is not read as values.

use std::path::Path;

use super::error::ReportError;
use super::registry::{Entry, Origin, Registry, format_value, unit_from_key};
use super::registry_build::yaml_leaves;
use crate::yaml::{Node, NodeKind, Style, format_scalar};

/// Where drafting and review expect the registry, relative to the run.
pub const REGISTRY_FILE: &str = "paper/065_ground_truth.yaml";

/// Render the registry; `generated_at` is passed in so rendering stays pure.
pub fn to_yaml(registry: &Registry, generated_at: &str) -> String {
    let q = |s: &str| format_scalar(s, Style::Plain);
    let mut out = String::from(
        "# Ground truth values for grounded reporting (written by `youra report`)\n\
         # Measured results only: h-*/results/experiment_results.json (every numeric leaf),\n\
         # h-*/results/metrics.jsonl (final = last logged, best = max, or min for loss/error),\n\
         # and numbers under a gate's result/actual in verification_state.yaml. Values the run\n\
         # declared (gate thresholds, Implementation Planning's config) say `declared: true`.\n\n",
    );
    out.push_str("metadata:\n  generated_by: youra report\n");
    out.push_str(&format!("  generated_at: {}\n", q(generated_at)));
    match &registry.origin {
        Origin::Measured { files } => {
            out.push_str("  origin: measured\n  sources:");
            out.push_str(if files.is_empty() { " []\n" } else { "\n" });
            for f in files {
                out.push_str(&format!("  - {}\n", q(f)));
            }
        }
        Origin::Loaded { file } => out.push_str(&format!("  origin: {}\n", q(file))),
    }
    out.push_str(&format!("  n_values: {}\n", registry.entries.len()));
    let mut group: Option<&str> = None;
    // One mapping per group: the VSA's gate values come after the results files, and a
    // group written twice would be a duplicate key that hides the first.
    let split = |e: &'_ Entry| -> (String, String) {
        let (g, rest) = e.key.split_once('.').unwrap_or(("values", e.key.as_str()));
        (g.to_string(), rest.to_string())
    };
    let mut order: Vec<String> = Vec::new();
    for e in &registry.entries {
        let g = split(e).0;
        if !order.contains(&g) {
            order.push(g);
        }
    }
    let mut sorted: Vec<&Entry> = registry.entries.iter().collect();
    sorted.sort_by_key(|e| order.iter().position(|g| *g == split(e).0));
    for e in sorted {
        let (g, rest) = e.key.split_once('.').unwrap_or(("values", e.key.as_str()));
        if group != Some(g) {
            out.push_str(&format!("\n{}:\n", q(g)));
            group = Some(g);
        }
        out.push_str(&format!("  {}:\n", q(rest)));
        out.push_str(&format!("    value: {}\n", format_value(e.value)));
        if let Some(u) = &e.unit {
            out.push_str(&format!("    unit: {}\n", q(u)));
        }
        if let Some(s) = &e.source {
            out.push_str(&format!("    source: {}\n", q(s)));
        }
        if let Some(p) = &e.path {
            out.push_str(&format!("    path: {}\n", q(p)));
        }
        if e.declared {
            out.push_str("    declared: true\n");
        }
    }
    out
}

/// Load a registry file (youra's or YouRA's).
pub fn load(path: &Path) -> Result<Registry, ReportError> {
    // Capped, regular files only: a registry handed with a run may be anything.
    const MAX_REGISTRY_BYTES: u64 = 64 * 1024 * 1024;
    let bytes = crate::fsutil::read_capped(path, MAX_REGISTRY_BYTES).map_err(|source| {
        ReportError::Read {
            path: path.to_path_buf(),
            source,
        }
    })?;
    let registry =
        from_yaml(&bytes, &path.display().to_string()).map_err(|source| ReportError::Yaml {
            path: path.to_path_buf(),
            source,
        })?;
    if registry.is_empty() {
        return Err(ReportError::EmptyRegistry {
            path: path.to_path_buf(),
        });
    }
    Ok(registry)
}

/// Parse registry YAML; `file` names it in the registry's origin.
pub(crate) fn from_yaml(bytes: &[u8], file: &str) -> Result<Registry, crate::yaml::YamlError> {
    let doc = crate::yaml::parse(bytes)?;
    let mut entries = Vec::new();
    if let Some(NodeKind::Map(sections)) = doc.root.as_ref().map(|r| &r.kind) {
        for (k, v) in sections {
            let Some(name) = k.as_str().filter(|n| *n != "metadata") else {
                continue;
            };
            collect(v, &mut vec![name.to_string()], &mut entries);
        }
    }
    Ok(Registry {
        entries,
        origin: Origin::Loaded {
            file: file.to_string(),
        },
        warnings: Vec::new(),
        runs: Default::default(),
        repeats: Vec::new(),
    })
}

/// Key segments under which YouRA's registry keeps what a gate required, not what ran.
const DECLARED_SEGMENTS: &[&str] = &["required", "threshold"];

fn collect(node: &Node, at: &mut Vec<String>, out: &mut Vec<Entry>) {
    if let Some(entry) = youra_entry(node, at) {
        out.push(entry);
        return;
    }
    match &node.kind {
        NodeKind::Map(entries) => {
            for (k, v) in entries {
                at.push(k.as_str().unwrap_or("?").to_string());
                collect(v, at, out);
                at.pop();
            }
        }
        NodeKind::Seq(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push(i.to_string());
                collect(v, at, out);
                at.pop();
            }
        }
        NodeKind::Scalar(_) => {
            let mut leaves = Vec::new();
            yaml_leaves(node, &mut Vec::new(), &mut leaves);
            if let Some((_, v)) = leaves.first() {
                let entry = Entry::new(at.join("."), *v);
                // YouRA's registry keeps a gate's required value beside the actual one
                // (`criteria_met.0.required: 200`): a threshold the run declared, not a
                // measurement, so it binds to no claim (as youra's `declared: true`).
                let declared = at.iter().any(|s| DECLARED_SEGMENTS.contains(&s.as_str()));
                out.push(if declared { entry.declared() } else { entry });
            }
        }
    }
}

/// A youra value mapping: `{value: <number>, source:, path:, unit:}`.
fn youra_entry(node: &Node, at: &[String]) -> Option<Entry> {
    let value = node.get("value")?;
    let only_entry_keys = node.as_map()?.iter().all(|(k, _)| {
        matches!(
            k.as_str(),
            Some("value" | "unit" | "source" | "path" | "declared")
        )
    });
    if !only_entry_keys {
        return None;
    }
    let mut leaves = Vec::new();
    yaml_leaves(value, &mut Vec::new(), &mut leaves);
    let v = leaves.first().filter(|(p, _)| p.is_empty())?.1;
    let key = at.join(".");
    let text = |k: &str| node.get(k).and_then(Node::as_str).map(str::to_string);
    Some(Entry {
        unit: text("unit").or_else(|| unit_from_key(&key)),
        source: text("source"),
        path: text("path"),
        key,
        value: v,
        declared: node
            .get("declared")
            .and_then(Node::as_str)
            .is_some_and(|d| d == "true"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_keys_values_and_origins() {
        let registry = Registry {
            entries: vec![
                Entry::new("h-e1.results.metrics.accuracy".into(), 0.8123).with_origin(
                    "h-e1/results/experiment_results.json",
                    "/metrics/accuracy".into(),
                ),
                Entry::new("h-e1.metrics.loss.best".into(), 0.7)
                    .with_origin("h-e1/results/metrics.jsonl", "line 2: /loss".into()),
                Entry::new("h-m1.results.sparsity_pct".into(), 96.5).with_origin(
                    "h-m1/results/experiment_results.json",
                    "/sparsity_pct".into(),
                ),
                Entry::new("h-m1.gate.failed_checks.0.actual".into(), -0.31),
            ],
            origin: Origin::Measured {
                files: vec!["h-e1/results/experiment_results.json".into()],
            },
            warnings: Vec::new(),
            runs: Default::default(),
            repeats: Vec::new(),
        };
        let text = to_yaml(&registry, "2026-01-01T00:00:00Z");
        assert!(
            text.contains("\nh-e1:\n  results.metrics.accuracy:\n    value: 0.8123\n"),
            "{text}"
        );
        let back = from_yaml(text.as_bytes(), "x.yaml").expect("parse");
        assert_eq!(back.entries.len(), 4, "{:?}", back.entries);
        for (a, b) in registry.entries.iter().zip(&back.entries) {
            assert_eq!(a.key, b.key);
            assert_eq!(a.value, b.value);
            assert_eq!(a.unit, b.unit);
            assert_eq!(a.source, b.source);
            assert_eq!(a.path, b.path);
        }
    }

    #[test]
    fn bare_values_and_lists_become_dotted_keys() {
        let text = "metadata:\n  n: 3\nregistry:\n  n_total_models: 4493\n  label: x\n\
                    features:\n  with_variance:\n    - name: a\n      prevalence_pct: 2.1\n\
                    claims:\n  - ground_truth: {beta: -3.45, p_value: 1.1e-8}\n";
        let r = from_yaml(text.as_bytes(), "f.yaml").expect("parse");
        assert_eq!(r.value("registry.n_total_models"), Some(4493.0));
        assert_eq!(
            r.value("features.with_variance.0.prevalence_pct"),
            Some(2.1)
        );
        assert!(
            r.get("features.with_variance.0.prevalence_pct")
                .is_some_and(Entry::is_percent)
        );
        assert_eq!(r.value("claims.0.ground_truth.beta"), Some(-3.45));
        assert_eq!(r.value("claims.0.ground_truth.p_value"), Some(1.1e-8));
        assert_eq!(r.get("metadata.n"), None);
        assert_eq!(r.len(), 4);
    }

    #[test]
    fn a_gates_required_value_is_declared_and_its_actual_measured() {
        let text = "gate_results:\n  h_e1_v2:\n    criteria_met:\n      - name: models\n\
                    \x20       required: 200\n        actual: 212\n        threshold: 0.9\n";
        let r = from_yaml(text.as_bytes(), "f.yaml").expect("parse");
        let declared = |k: &str| r.get(k).map(|e| e.declared);
        assert_eq!(
            declared("gate_results.h_e1_v2.criteria_met.0.required"),
            Some(true)
        );
        assert_eq!(
            declared("gate_results.h_e1_v2.criteria_met.0.threshold"),
            Some(true)
        );
        assert_eq!(
            declared("gate_results.h_e1_v2.criteria_met.0.actual"),
            Some(false)
        );
    }
}
