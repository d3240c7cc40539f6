//! The tolerant reader: a parsed YAML tree in, the typed [`Vsa`] plus what was normalised out.
//! It never fails on content: anything unexpected becomes a [`Warning`] with its line.

use serde::Serialize;

use super::enums::{ExecutionMode, HypothesisStatus, HypothesisType, Parsed, WorkflowStatus};
use super::model::{HypothesisLayout, MainHypothesis, SubHypothesis, Vsa, Workflow};
use crate::yaml::{Document, Node, NodeKind};

/// Something the reader normalised or could not use, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub line: usize,
    pub message: String,
}

const KNOWN_TOP: &[&str] = &[
    "pipeline",
    "metadata",
    "main_hypothesis",
    "episode",
    "workflow",
    "sub_hypotheses",
    "hypotheses",
    "gate_violations",
    "modification_history",
    "history",
    "statistics",
    "serena_memory",
    "revision",
    "schema_version",
];

/// A consistent reading of the file.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The parse of the file; after a write of youra's, less the history items before
    /// the last few (`elided`): nothing reads them from the tree, and carrying them cost
    /// a copy per write (`read_back.rs`). [`Snapshot::whole`] has them all.
    pub doc: Document,
    pub vsa: Vsa,
    pub warnings: Vec<Warning>,
    /// History items at the head of the list that `doc` leaves out; `vsa.history` and
    /// `warnings` still cover them.
    pub elided: usize,
}

#[derive(Default)]
pub(super) struct Reader {
    warnings: Vec<Warning>,
    pub(super) naive_timestamps: Vec<usize>,
}

impl Snapshot {
    /// A snapshot of `text` held in memory (no file, no lock): what pure rules and their
    /// tests read.
    pub fn of_text(text: &str) -> Result<Snapshot, crate::yaml::YamlError> {
        let doc = crate::yaml::parse(text.as_bytes())?;
        let (vsa, warnings) = read(&doc);
        Ok(Snapshot {
            doc,
            vsa,
            warnings,
            elided: 0,
        })
    }
}

/// Build the typed view of a parsed VSA.
pub fn read(doc: &Document) -> (Vsa, Vec<Warning>) {
    let mut r = Reader::default();
    for d in &doc.duplicates {
        r.warn(
            d.line,
            format!(
                "duplicate key `{}` (first on line {}): the last one is used, as YouRA's tools do",
                d.key, d.first_line
            ),
        );
    }
    let vsa = match &doc.root {
        Some(root) if root.as_map().is_some() => r.vsa(root),
        Some(root) => {
            r.warn(
                root.pos.line,
                format!(
                    "the file holds a {}, not a mapping of VSA sections",
                    root.kind_name()
                ),
            );
            Vsa::default()
        }
        None => {
            r.warn(1, "the file is empty".into());
            Vsa::default()
        }
    };
    if let Some(&first) = r.naive_timestamps.first() {
        let n = r.naive_timestamps.len();
        r.warn(
            first,
            format!("{n} timestamp(s) without a time zone (first here) were read as UTC"),
        );
    }
    r.warnings.sort_by_key(|w| w.line);
    (vsa, r.warnings)
}

pub(super) fn text(node: Option<&Node>) -> Option<String> {
    node.and_then(Node::as_str).map(str::to_string)
}

impl Reader {
    pub(super) fn warn(&mut self, line: usize, message: String) {
        self.warnings.push(Warning { line, message });
    }

    fn vsa(&mut self, root: &Node) -> Vsa {
        let meta = root.get("metadata");
        let workflow = match root.get("workflow") {
            Some(w) => self.workflow(w),
            None => {
                self.warn(
                    1,
                    "no `workflow` block: workflow status and next action are unknown".into(),
                );
                Workflow::default()
            }
        };
        let (sub_hypotheses, layout) = self.hypotheses(root);
        Vsa {
            schema_version: text(meta.and_then(|m| m.get("schema_version")))
                .or_else(|| text(root.get("schema_version"))),
            revision: self.revision(root.get("revision")),
            project_name: text(meta.and_then(|m| m.get("project_name"))),
            replayed_from: text(meta.and_then(|m| m.get("replayed_from"))),
            main_hypothesis: root.get("main_hypothesis").map(|m| MainHypothesis {
                id: text(m.get("id")),
                title: text(m.get("title")),
                statement: text(m.get("statement")),
            }),
            episode_status: text(root.get("episode").and_then(|e| e.get("status"))),
            workflow,
            sub_hypotheses,
            layout,
            history: self.history(root.get("history")),
            unknown_keys: root
                .as_map()
                .unwrap_or_default()
                .iter()
                .filter_map(|(k, _)| k.as_str())
                .filter(|k| !KNOWN_TOP.contains(k))
                .map(str::to_string)
                .collect(),
        }
    }

    fn revision(&mut self, node: Option<&Node>) -> u64 {
        let Some(node) = node else { return 0 };
        match node
            .as_scalar()
            .and_then(|s| s.as_i64())
            .and_then(|n| u64::try_from(n).ok())
        {
            Some(n) => n,
            None => {
                self.warn(
                    node.pos.line,
                    "`revision` is not a non-negative whole number: read as 0".into(),
                );
                0
            }
        }
    }

    pub(super) fn enum_value<T: std::fmt::Display>(
        &mut self,
        node: Option<&Node>,
        what: &str,
        parse: fn(&str) -> Parsed<T>,
        read: fn(&str) -> T,
        names: &[&str],
    ) -> Option<T> {
        let node = node?;
        let raw = node.as_str()?;
        match parse(raw) {
            Parsed::Exact(v) => Some(v),
            Parsed::Alias(v) => {
                self.warn(node.pos.line, format!("{what} `{raw}` read as {v}"));
                Some(v)
            }
            Parsed::Unknown => {
                self.warn(
                    node.pos.line,
                    format!(
                        "unknown {what} `{raw}` (known: {}): kept as written",
                        names.join(", ")
                    ),
                );
                Some(read(raw))
            }
        }
    }

    fn workflow(&mut self, w: &Node) -> Workflow {
        Workflow {
            present: true,
            status: self.enum_value(
                w.get("status"),
                "workflow status",
                WorkflowStatus::parse,
                WorkflowStatus::read,
                WorkflowStatus::NAMES,
            ),
            current_phase: text(w.get("current_phase")),
            next_action: text(w.get("next_action")),
            execution_mode: self.enum_value(
                w.get("execution_mode"),
                "execution mode",
                ExecutionMode::parse,
                ExecutionMode::read,
                ExecutionMode::NAMES,
            ),
            stop_reason: text(w.get("stop_reason")),
            breakpoints: w
                .get("breakpoints")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(|n| text(Some(n)))
                .collect(),
            pending_transition: w
                .get("pending_transition")
                .and_then(super::transition::Transition::read),
            escalation: w
                .get("pending_escalation")
                .and_then(super::escalation::Escalation::read),
            review: w
                .get("pending_review")
                .and_then(super::review::PendingReview::read),
        }
    }

    fn hypotheses(&mut self, root: &Node) -> (Vec<SubHypothesis>, HypothesisLayout) {
        if let Some((key, node)) = root.entry("sub_hypotheses") {
            match &node.kind {
                NodeKind::Map(entries) => {
                    let list = entries
                        .iter()
                        .filter_map(|(k, v)| Some(self.hypothesis(k.as_str()?.to_string(), v)))
                        .collect();
                    return (list, HypothesisLayout::Map);
                }
                NodeKind::Seq(items) => {
                    self.warn(
                        key.pos.line,
                        "`sub_hypotheses` is a list, not a map by id: read by each item's `id`"
                            .into(),
                    );
                    return (self.hypothesis_list(items), HypothesisLayout::List);
                }
                NodeKind::Scalar(_) if node.is_null() => {
                    return (Vec::new(), HypothesisLayout::Map);
                }
                NodeKind::Scalar(_) => self.warn(
                    node.pos.line,
                    "`sub_hypotheses` is a single value, not a map: ignored".into(),
                ),
            }
        }
        if let Some((key, node)) = root.entry("hypotheses") {
            self.warn(
                key.pos.line,
                "`hypotheses:` list read as `sub_hypotheses` (YouRA v3.5 uses a map by id)".into(),
            );
            let items = node.as_seq().unwrap_or_default();
            return (self.hypothesis_list(items), HypothesisLayout::List);
        }
        (Vec::new(), HypothesisLayout::Map)
    }

    fn hypothesis_list(&mut self, items: &[Node]) -> Vec<SubHypothesis> {
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match text(item.get("id")) {
                Some(id) => out.push(self.hypothesis(id, item)),
                None => self.warn(
                    item.pos.line,
                    format!("hypothesis #{} has no `id`: skipped", i + 1),
                ),
            }
        }
        out
    }

    fn hypothesis(&mut self, id: String, h: &Node) -> SubHypothesis {
        let status = self
            .enum_value(
                h.get("status"),
                "status",
                HypothesisStatus::parse,
                HypothesisStatus::read,
                HypothesisStatus::NAMES,
            )
            .unwrap_or(HypothesisStatus::NotStarted);
        let prereq_node = match h.get("prerequisites") {
            Some(p) => Some(p),
            None => {
                let dep = h.get("dependencies");
                if let Some(d) = dep {
                    self.warn(
                        d.pos.line,
                        format!("{id}: `dependencies` read as `prerequisites`"),
                    );
                }
                dep
            }
        };
        SubHypothesis {
            kind: self.enum_value(
                h.get("type"),
                "hypothesis type",
                HypothesisType::parse,
                HypothesisType::read,
                HypothesisType::NAMES,
            ),
            statement: text(h.get("statement")),
            status,
            gate: self.gate(&id, h.get("gate")),
            prerequisites: self.id_list(prereq_node),
            post_hoc: text(h.get("post_hoc")).is_some_and(|t| t.trim() == "true")
                || text(h.get("stated_after_pivots"))
                    .and_then(|t| t.trim().parse::<u32>().ok())
                    .is_some_and(|n| n > 0),
            confirmation_seeds: h
                .get("search")
                .and_then(|s| text(s.get("confirmation_seeds")))
                .filter(|t| !t.trim().is_empty()),
            line: h.pos.line,
            id,
        }
    }

    fn id_list(&mut self, node: Option<&Node>) -> Vec<String> {
        let Some(node) = node else { return Vec::new() };
        match &node.kind {
            NodeKind::Seq(items) => items.iter().filter_map(|n| text(Some(n))).collect(),
            NodeKind::Scalar(_) => {
                let Some(raw) = node.as_str() else {
                    return Vec::new();
                };
                self.warn(
                    node.pos.line,
                    "prerequisites written as one string: split on commas".into(),
                );
                raw.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            }
            NodeKind::Map(_) => {
                self.warn(
                    node.pos.line,
                    "prerequisites written as a mapping: its keys are used".into(),
                );
                node.as_map()
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|(k, _)| text(Some(k)))
                    .collect()
            }
        }
    }
}
