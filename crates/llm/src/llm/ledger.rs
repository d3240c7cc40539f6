//! The token ledger `ledger.tsv`: one row per LLM call, appended, with its cost from the
//! price table. The budget (plan tree) is charged from it: a row made while a sub-hypothesis
//! is searched carries the plan node it serves (`plan_node`) and what it was for
//! (`plan_kind`: planning, execution or diagnosis), set by the engine through
//! [`Ledger::set_plan_tag`]; `-` in both is a call of no search.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::LlmError;

pub const HEADER: &str = "time\trole\tstage\tmodel\tinput_tokens\toutput_tokens\tcost_usd\tplan_node\treasoning_tokens\tplan_kind";

/// The legacy `plan_node` prefix of a planning row (`expand:<node>`), from before the
/// `plan_kind` column; still read, and accepted by [`Ledger::set_plan_node`].
pub const EXPAND_PREFIX: &str = "expand:";
/// `plan_kind` values (the plan's `SpendKind` names them the same).
pub const PLANNING: &str = "planning";
pub const EXECUTION: &str = "execution";
pub const DIAGNOSIS: &str = "diagnosis";

/// The plan node a row serves and what it was for (one of [`PLANNING`], [`EXECUTION`],
/// [`DIAGNOSIS`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanTag {
    pub node: String,
    pub kind: &'static str,
}

impl PlanTag {
    pub fn new(node: impl Into<String>, kind: &'static str) -> PlanTag {
        PlanTag {
            node: node.into(),
            kind,
        }
    }

    /// A legacy tag: `expand:<node>` is planning, a bare node execution.
    pub(crate) fn from_legacy(tag: &str) -> PlanTag {
        match tag.strip_prefix(EXPAND_PREFIX) {
            Some(node) => PlanTag::new(node, PLANNING),
            None => PlanTag::new(tag, EXECUTION),
        }
    }
}

/// The cost column of a row whose model has no price: its tokens count, its dollars are
/// unknown (never a silent `$0`).
pub(crate) const UNKNOWN_COST: &str = "unknown";

/// US dollars per million tokens, by model name.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct PriceTable(pub BTreeMap<String, Price>);

/// List prices (US$ per million tokens, input/output) of widely used hosted models, as
/// their providers published them in 2025; `[llm.prices]` in youra.toml overrides any of
/// them and adds others. A model in neither costs "unknown", never $0.
const LIST_PRICES: [(&str, f64, f64); 8] = [
    ("gpt-4o", 2.5, 10.0),
    ("gpt-4o-mini", 0.15, 0.6),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4.1-mini", 0.4, 1.6),
    ("o4-mini", 1.1, 4.4),
    ("claude-sonnet-4-20250514", 3.0, 15.0),
    ("claude-opus-4-20250514", 15.0, 75.0),
    ("claude-3-5-haiku-20241022", 0.8, 4.0),
];

impl PriceTable {
    /// The list prices, then `overrides` (youra.toml's `[llm.prices]`) on top.
    pub fn with_list_prices(overrides: &PriceTable) -> PriceTable {
        let mut table: BTreeMap<String, Price> = LIST_PRICES
            .iter()
            .map(|(m, input, output)| {
                (
                    m.to_string(),
                    Price {
                        input: *input,
                        output: *output,
                    },
                )
            })
            .collect();
        table.extend(overrides.0.iter().map(|(k, v)| (k.clone(), *v)));
        PriceTable(table)
    }

    /// Cost of one call; `None` for a model missing from the table (its tokens still count).
    pub fn cost(&self, model: &str, input: u64, output: u64) -> Option<f64> {
        self.0
            .get(model)
            .map(|p| (input as f64 * p.input + output as f64 * p.output) / 1e6)
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LedgerRow {
    pub time: String,
    pub role: String,
    pub stage: String,
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub plan_node: Option<String>,
    /// What the row was for when `plan_node` is set; unset: the legacy reading of the tag
    /// ([`PlanTag::from_legacy`]).
    pub plan_kind: Option<&'static str>,
    /// Of `output_tokens`, those a reasoning model spent thinking.
    pub reasoning_tokens: u64,
    /// Costs nothing unless the price table says otherwise: a local server (Ollama, vLLM,
    /// llama.cpp), a replayed reply, a tool result.
    pub free: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The dollars of the priced rows.
    pub cost_usd: f64,
    /// Rows whose model has no price: `cost_usd` leaves them out.
    pub unpriced_calls: u64,
    pub reasoning_tokens: u64,
}

impl Totals {
    /// `$0.0123`, or `$0.0123 + unknown` when some calls were unpriced.
    pub fn cost_text(&self) -> String {
        match (self.unpriced_calls, self.cost_usd > 0.0) {
            (0, _) => format!("${:.4}", self.cost_usd),
            (_, true) => format!("${:.4} + unknown", self.cost_usd),
            (_, false) => "cost unknown".to_string(),
        }
    }
}

pub struct Ledger {
    path: PathBuf,
    prices: PriceTable,
    lock: Mutex<()>,
    /// The plan node served now and what for: rows written meanwhile carry it, and the plan
    /// budget is charged from them (`plan::charge`).
    tag: Mutex<Option<PlanTag>>,
    /// Unpriced models already warned about, and the warnings not yet taken.
    warned: Mutex<(std::collections::BTreeSet<String>, Vec<String>)>,
}

fn field(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

impl Ledger {
    pub fn new(path: PathBuf, prices: PriceTable) -> Ledger {
        Ledger {
            path,
            prices,
            lock: Mutex::new(()),
            tag: Mutex::new(None),
            warned: Mutex::new(Default::default()),
        }
    }

    /// Warnings since the last call (an unpriced model, once per model per run process):
    /// the engine turns them into `warning` events.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.warned.lock().unwrap_or_else(|p| p.into_inner()).1)
    }

    /// Charge the rows that follow to `node` (`None`: to no node); `expand:<node>` is the
    /// node's planning, a bare node its execution.
    pub fn set_plan_node(&self, node: Option<String>) {
        self.set_plan_tag(node.as_deref().map(PlanTag::from_legacy));
    }

    /// Tag the rows that follow (`None`: no plan node); returns the tag it replaces.
    pub fn set_plan_tag(&self, tag: Option<PlanTag>) -> Option<PlanTag> {
        std::mem::replace(
            &mut *self.tag.lock().unwrap_or_else(|p| p.into_inner()),
            tag,
        )
    }

    /// The tag rows get now.
    pub fn plan_tag(&self) -> Option<PlanTag> {
        self.tag.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn append(&self, row: &LedgerRow) -> Result<(), LlmError> {
        let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let io = |e: std::io::Error| {
            LlmError::Io(format!("cannot append to {}: {e}", self.path.display()))
        };
        let new = !self.path.exists();
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(io)?;
        let cost = match self
            .prices
            .cost(&row.model, row.input_tokens, row.output_tokens)
        {
            Some(c) => format!("{c:.6}"),
            None if row.free => format!("{:.6}", 0.0),
            None => {
                let mut w = self.warned.lock().unwrap_or_else(|p| p.into_inner());
                if w.0.insert(row.model.clone()) {
                    w.1.push(format!(
                        "the model `{}` has no price: its cost shows as unknown; add it under [llm.prices] in youra.toml (`\"{}\" = {{ input = 2.5, output = 10.0 }}`, US$ per million tokens)",
                        row.model, row.model
                    ));
                }
                UNKNOWN_COST.to_string()
            }
        };
        let mut line = String::new();
        // A row torn by a full disk or a kill stays one bad row: this one starts a line.
        if crate::fsutil::ends_open(&f).map_err(io)? {
            line.push('\n');
        }
        if new {
            line.push_str(HEADER);
            line.push('\n');
        }
        let tag = match &row.plan_node {
            Some(node) => Some(match row.plan_kind {
                Some(kind) => PlanTag::new(node.as_str(), kind),
                None => PlanTag::from_legacy(node),
            }),
            None => self.plan_tag(),
        };
        let (node, kind) = tag
            .as_ref()
            .map_or(("-", "-"), |t| (t.node.as_str(), t.kind));
        line.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{cost}\t{}\t{}\t{kind}\n",
            field(&row.time),
            field(&row.role),
            field(&row.stage),
            field(&row.model),
            row.input_tokens,
            row.output_tokens,
            field(node),
            row.reasoning_tokens,
        ));
        f.write_all(line.as_bytes()).map_err(io)
    }
}

/// Sum the ledger file at `path` (`None` when there is none). Read as bytes: a row that is
/// not UTF-8 (a character torn at the end) is skipped alone, never the whole file.
pub fn read_totals(path: &Path) -> Option<Totals> {
    let bytes = crate::fsutil::read_run_file(path).ok()?;
    Some(totals_of(
        crate::fsutil::utf8_lines(&bytes).filter_map(Result::ok),
    ))
}

/// Sum a ledger file; rows that do not parse are skipped (a torn last line after a kill).
pub fn totals(text: &str) -> Totals {
    totals_of(text.lines())
}

fn totals_of<'a>(lines: impl Iterator<Item = &'a str>) -> Totals {
    let mut t = Totals::default();
    for line in lines {
        t.add_row(line);
    }
    t
}

impl Totals {
    /// Count one ledger row (the header and rows that do not parse are skipped): a reader
    /// that follows the file adds what was appended instead of summing it again.
    pub fn add_row(&mut self, line: &str) {
        if line.starts_with("time\t") {
            return;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let (Some(i), Some(o), Some(c)) = (cols.get(4), cols.get(5), cols.get(6)) else {
            return;
        };
        let (Ok(i), Ok(o)) = (i.parse::<u64>(), o.parse::<u64>()) else {
            return;
        };
        let cost = match c.parse::<f64>() {
            Ok(c) => Some(c),
            Err(_) if *c == UNKNOWN_COST => None,
            Err(_) => return,
        };
        self.calls += 1;
        self.input_tokens += i;
        self.output_tokens += o;
        match cost {
            Some(c) => self.cost_usd += c,
            None => self.unpriced_calls += 1,
        }
        self.reasoning_tokens += cols.get(8).and_then(|r| r.parse::<u64>().ok()).unwrap_or(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_from_price_table() {
        let mut p = PriceTable::default();
        p.0.insert(
            "m".into(),
            Price {
                input: 1.0,
                output: 4.0,
            },
        );
        assert!((p.cost("m", 1_000_000, 500_000).unwrap() - 3.0).abs() < 1e-12);
        assert_eq!(p.cost("unknown", 10, 10), None);
    }

    #[test]
    fn an_unpriced_model_is_unknown_and_warned_once() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path().join("ledger.tsv"), PriceTable::default());
        let row = |model: &str, free: bool| LedgerRow {
            time: "t".into(),
            model: model.into(),
            input_tokens: 10,
            output_tokens: 5,
            reasoning_tokens: 2,
            free,
            ..LedgerRow::default()
        };
        ledger.append(&row("gpt-x", false)).unwrap();
        ledger.append(&row("gpt-x", false)).unwrap();
        ledger.append(&row("local", true)).unwrap();
        let warnings = ledger.take_warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("gpt-x") && warnings[0].contains("[llm.prices]"));
        assert!(ledger.take_warnings().is_empty());
        let t = totals(&std::fs::read_to_string(ledger.path()).unwrap());
        assert_eq!((t.calls, t.unpriced_calls, t.reasoning_tokens), (3, 2, 6));
        assert_eq!(t.cost_text(), "cost unknown");
    }

    #[test]
    fn a_torn_character_costs_one_row_and_the_next_row_is_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.tsv");
        let ledger = Ledger::new(path.clone(), PriceTable::default());
        let row = LedgerRow {
            time: "t".into(),
            model: "local".into(),
            input_tokens: 10,
            free: true,
            ..LedgerRow::default()
        };
        ledger.append(&row).unwrap();
        // A full disk tore the next row inside a UTF-8 character.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut f, b"t\tr\tcaf\xc3").unwrap();
        assert_eq!(read_totals(&path).map(|t| t.calls), Some(1));
        ledger.append(&row).unwrap();
        let t = read_totals(&path).unwrap();
        assert_eq!((t.calls, t.input_tokens), (2, 20));
        assert!(read_totals(&dir.path().join("none.tsv")).is_none());
    }

    #[test]
    fn rows_carry_the_plan_tag() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path().join("ledger.tsv"), PriceTable::default());
        let row = LedgerRow {
            time: "t".into(),
            model: "local".into(),
            free: true,
            ..LedgerRow::default()
        };
        // (tag set on the ledger, the row's own node and kind, columns 7 and 9 written)
        type Case = (
            Option<PlanTag>,
            Option<&'static str>,
            Option<&'static str>,
            &'static str,
            &'static str,
        );
        let table: [Case; 6] = [
            (None, None, None, "-", "-"),
            (
                Some(PlanTag::new("n-0002", DIAGNOSIS)),
                None,
                None,
                "n-0002",
                DIAGNOSIS,
            ),
            (None, Some("expand:n-0001"), None, "n-0001", PLANNING),
            (None, Some("n-0003"), None, "n-0003", EXECUTION),
            (None, Some("n-0003"), Some(DIAGNOSIS), "n-0003", DIAGNOSIS),
            (
                Some(PlanTag::new("n-0009", PLANNING)),
                Some("n-0004"),
                None,
                "n-0004",
                EXECUTION,
            ),
        ];
        for (tag, node, kind, want_node, want_kind) in table {
            ledger.set_plan_tag(tag);
            let r = LedgerRow {
                plan_node: node.map(str::to_string),
                plan_kind: kind,
                ..row.clone()
            };
            ledger.append(&r).unwrap();
            let text = std::fs::read_to_string(ledger.path()).unwrap();
            let last: Vec<&str> = text.lines().last().unwrap().split('\t').collect();
            assert_eq!(last.len(), HEADER.split('\t').count());
            assert_eq!(
                (last[7], last[9]),
                (want_node, want_kind),
                "{node:?} {kind:?}"
            );
        }
        ledger.set_plan_node(Some("expand:n-0005".into()));
        assert_eq!(ledger.plan_tag(), Some(PlanTag::new("n-0005", PLANNING)));
        assert_eq!(
            ledger.set_plan_tag(None),
            Some(PlanTag::new("n-0005", PLANNING))
        );
    }

    #[test]
    fn totals_skip_torn_rows() {
        let text = format!(
            "{HEADER}\nt\tr\ts\tm\t10\t5\t0.5\t-\nt\tr\ts\tm\t1\t2\t0.25\t-\nt\tr\ts\tm\t7"
        );
        let t = totals(&text);
        assert_eq!(t.calls, 2);
        assert_eq!((t.input_tokens, t.output_tokens), (11, 7));
        assert!((t.cost_usd - 0.75).abs() < 1e-12);
    }
}
