//! The token ledger `ledger.tsv`: one row per LLM call, appended, with its cost from the
//! price table. The budget (plan tree) is charged from it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Deserialize;

use super::LlmError;

pub const HEADER: &str =
    "time\trole\tstage\tmodel\tinput_tokens\toutput_tokens\tcost_usd\tplan_node";

/// US dollars per million tokens, by model name.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct PriceTable(pub BTreeMap<String, Price>);

impl PriceTable {
    /// Cost of one call; a model missing from the table costs 0 (its tokens still count).
    pub fn cost(&self, model: &str, input: u64, output: u64) -> f64 {
        self.0.get(model).map_or(0.0, |p| {
            (input as f64 * p.input + output as f64 * p.output) / 1e6
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct LedgerRow {
    pub time: String,
    pub role: String,
    pub stage: String,
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub plan_node: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

pub struct Ledger {
    path: PathBuf,
    prices: PriceTable,
    lock: Mutex<()>,
    /// The plan node being executed: rows written meanwhile are charged to it (the plan
    /// budget's `node_tokens`, a node's packet cost).
    node: Mutex<Option<String>>,
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
            node: Mutex::new(None),
        }
    }

    /// Charge the rows that follow to `node` (`None`: to no node).
    pub fn set_plan_node(&self, node: Option<String>) {
        *self.node.lock().unwrap_or_else(|p| p.into_inner()) = node;
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
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(io)?;
        let cost = self
            .prices
            .cost(&row.model, row.input_tokens, row.output_tokens);
        let mut line = String::new();
        if new {
            line.push_str(HEADER);
            line.push('\n');
        }
        line.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{cost:.6}\t{}\n",
            field(&row.time),
            field(&row.role),
            field(&row.stage),
            field(&row.model),
            row.input_tokens,
            row.output_tokens,
            field(
                row.plan_node
                    .clone()
                    .or_else(|| self.node.lock().unwrap_or_else(|p| p.into_inner()).clone())
                    .as_deref()
                    .unwrap_or("-")
            )
        ));
        f.write_all(line.as_bytes()).map_err(io)
    }
}

/// Sum a ledger file; rows that do not parse are skipped (a torn last line after a kill).
pub fn totals(text: &str) -> Totals {
    let mut t = Totals::default();
    for line in text.lines().filter(|l| !l.starts_with("time\t")) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (Some(i), Some(o), Some(c)) = (cols.get(4), cols.get(5), cols.get(6)) else {
            continue;
        };
        let (Ok(i), Ok(o), Ok(c)) = (i.parse::<u64>(), o.parse::<u64>(), c.parse::<f64>()) else {
            continue;
        };
        t.calls += 1;
        t.input_tokens += i;
        t.output_tokens += o;
        t.cost_usd += c;
    }
    t
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
        assert!((p.cost("m", 1_000_000, 500_000) - 3.0).abs() < 1e-12);
        assert_eq!(p.cost("unknown", 10, 10), 0.0);
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
