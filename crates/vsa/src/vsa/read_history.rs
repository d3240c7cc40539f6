//! Reading the `history:` log. Entries mix YouRA's event and status shapes and youra's
//! field edits; all become [`HistoryEntry`].

use super::history_list::History;
use super::model::HistoryEntry;
use super::read::{Reader, text};
use super::read_gate::scalar_text;
use super::timestamp::Timestamp;
use crate::yaml::{Node, NodeKind};

impl Reader {
    pub(super) fn history(&mut self, node: Option<&Node>) -> History {
        let Some(node) = node.filter(|n| !n.is_null()) else {
            return History::default();
        };
        let Some(items) = node.as_seq() else {
            self.warn(
                node.pos.line,
                format!("`history` is a {}, not a list: ignored", node.kind_name()),
            );
            return History::default();
        };
        items.iter().map(|item| self.history_entry(item)).collect()
    }

    fn history_entry(&mut self, item: &Node) -> HistoryEntry {
        if !matches!(item.kind, NodeKind::Map(_)) {
            return HistoryEntry {
                details: scalar_text(Some(item)),
                ..HistoryEntry::default()
            };
        }
        HistoryEntry {
            timestamp: self.timestamp(item.get("timestamp").or_else(|| item.get("at"))),
            event: text(item.get("event")).or_else(|| text(item.get("action"))),
            actor: text(item.get("actor")),
            phase: text(item.get("phase")),
            hypothesis: text(item.get("hypothesis_id")).or_else(|| text(item.get("hypothesis"))),
            status: text(item.get("status")),
            details: scalar_text(item.get("details")),
            reason: scalar_text(item.get("reason")).or_else(|| scalar_text(item.get("trigger"))),
            path: text(item.get("path")),
            old: scalar_text(item.get("old")),
            new: scalar_text(item.get("new")),
            revision: item
                .get("revision")
                .and_then(Node::as_scalar)
                .and_then(|s| s.as_i64())
                .and_then(|n| u64::try_from(n).ok()),
            forced: item
                .get("forced")
                .and_then(Node::as_scalar)
                .and_then(|s| s.as_bool())
                .unwrap_or(false),
        }
    }

    pub(super) fn timestamp(&mut self, node: Option<&Node>) -> Option<Timestamp> {
        let node = node?;
        let raw = scalar_text(Some(node))?;
        match Timestamp::parse(&raw) {
            Some(t) => {
                if t.naive {
                    self.naive_timestamps.push(node.pos.line);
                }
                Some(t)
            }
            None => {
                self.warn(
                    node.pos.line,
                    format!("timestamp `{raw}` is not a date and time: ignored"),
                );
                None
            }
        }
    }
}
