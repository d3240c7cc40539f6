//! Charging the budget from the ledger (`<run>/ledger.tsv`, one row per LLM call, written by
//! `llm::ledger`). Every call made while a sub-hypothesis is searched counts (PrimeScientist
//! §3.2: U = C_exec + C_refl): each such row names its plan node (`plan_node`) and what it
//! was for (`plan_kind`: the reflector's planning; the coder's and fabrication judge's
//! execution; the attribution, critic, clamp judge and controller's diagnosis of an attempt).
//! Rows of the old shape read as before: `expand:<node>` planning, a bare node execution.
//! Everything else the run spends (the debate, the papers) is not the search's, so r = 1 at
//! the first selection and the budget starts with the plan. The budget is charged from the
//! one record of the calls, not from each caller's estimate: its spent tokens are the sum of
//! the plan's rows, by node and by kind.
//!
//! Each plan row is also counted to its node's sub-hypothesis (`Budget::hypothesis_tokens`),
//! whose search reads only its own spend against its own budget (`Budget::for_hypothesis`).
//!
//! Idempotent: `budget.ledger_offset` remembers the bytes already charged and is saved in
//! the same atomic write as the totals (`save_budget`), so a restart charges only the rows
//! after it. Only complete lines are charged: a torn last line (a kill mid-append) waits
//! until its newline arrives. A complete line that does not parse is skipped with a note.

use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::path::Path;

use super::budget::{Budget, SpendKind};
use super::error::{PlanError, io};

/// The ledger's file name in a run folder.
pub const LEDGER_FILE: &str = "ledger.tsv";
/// The `plan_node` value of a row charged to no node.
const NO_NODE: &str = "-";
/// The `plan_node` prefix of an expansion's rows: `expand:<node>` (planning, charged to the
/// budget but not to the node's own execution cost).
pub const EXPAND_PREFIX: &str = "expand:";

/// What one charge did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Charged {
    /// Rows charged.
    pub rows: u64,
    /// Input plus output tokens charged.
    pub tokens: u64,
    /// Wall seconds charged (only when the budget has a time limit).
    pub secs: f64,
    /// The ledger ends in a line without its newline (left for the next charge).
    pub torn: bool,
    /// One note per complete line that could not be read (1-based line in the new part).
    pub skipped: Vec<String>,
}

/// Charge the complete rows of `chunk`, the ledger from `budget.ledger_offset` on (pure),
/// attributing none to a sub-hypothesis.
pub fn charge_rows(budget: &mut Budget, chunk: &[u8]) -> Charged {
    charge_rows_owned(budget, chunk, &mut |_| None)
}

/// `charge_rows`, each plan row also counted to the sub-hypothesis `owner` names for its
/// node (`Budget::hypothesis_tokens`): the per-sub-hypothesis budget's spend.
pub fn charge_rows_owned(
    budget: &mut Budget,
    chunk: &[u8],
    owner: &mut dyn FnMut(&str) -> Option<String>,
) -> Charged {
    let mut out = Charged::default();
    let mut consumed = 0usize;
    for (n, line) in chunk.split_inclusive(|&b| b == b'\n').enumerate() {
        if line.last() != Some(&b'\n') {
            out.torn = true;
            break;
        }
        consumed += line.len();
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end_matches(['\n', '\r']);
        if text.is_empty() || text.starts_with("time\t") {
            continue;
        }
        match parse_row(text) {
            // A row of no node is not the plan's call: read past, not charged.
            Ok((_, None)) => {}
            Ok((tokens, Some((node, kind)))) => {
                budget.used_tokens = budget.used_tokens.saturating_add(tokens);
                budget.split.add(kind, tokens);
                if kind != SpendKind::Planning {
                    let slot = budget.node_tokens.entry(node.to_string()).or_default();
                    *slot = slot.saturating_add(tokens);
                }
                if let Some(h) = owner(node) {
                    let slot = budget.hypothesis_tokens.entry(h).or_default();
                    *slot = slot.saturating_add(tokens);
                }
                out.rows += 1;
                out.tokens = out.tokens.saturating_add(tokens);
            }
            Err(why) => out.skipped.push(format!("line {}: {why}; skipped", n + 1)),
        }
    }
    budget.ledger_offset = budget.ledger_offset.saturating_add(consumed as u64);
    out
}

/// A plan row's node and kind.
type Tag<'a> = (&'a str, SpendKind);

/// (input + output tokens, plan node and kind) of one row, or what is wrong with it.
fn parse_row(line: &str) -> Result<(u64, Option<Tag<'_>>), String> {
    let cols: Vec<&str> = line.split('\t').collect();
    if cols.len() < 6 {
        return Err(format!("{} columns, expected 8", cols.len()));
    }
    let count = |i: usize, name: &str| {
        cols[i]
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("{name} `{}` is not a token count", cols[i]))
    };
    let tokens = count(4, "input_tokens")?.saturating_add(count(5, "output_tokens")?);
    let Some(node) = cols
        .get(7)
        .map(|n| n.trim())
        .filter(|n| !n.is_empty() && *n != NO_NODE)
    else {
        return Ok((tokens, None));
    };
    let kind = cols
        .get(9)
        .map(|k| k.trim())
        .filter(|k| !k.is_empty() && *k != NO_NODE);
    let tag = match (kind, node.strip_prefix(EXPAND_PREFIX)) {
        (None, Some(expanded)) => (expanded, SpendKind::Planning),
        (None, None) => (node, SpendKind::Execution),
        (Some(k), _) => {
            let kind = SpendKind::parse(k).ok_or_else(|| {
                format!("plan_kind `{k}` is not planning, execution or diagnosis")
            })?;
            (node.strip_prefix(EXPAND_PREFIX).unwrap_or(node), kind)
        }
    };
    Ok((tokens, Some(tag)))
}

/// Wall time since the last charge, when the budget has a time limit (pure). The first
/// charge after a start only sets the clock: see `Budget::clock_at`.
pub fn charge_clock(budget: &mut Budget, now_unix: f64) -> f64 {
    if budget.time_budget_secs.is_none() || !now_unix.is_finite() {
        return 0.0;
    }
    let secs = match budget.clock_at {
        Some(at) if now_unix > at => now_unix - at,
        _ => 0.0,
    };
    budget.charge(0, secs);
    budget.clock_at = Some(now_unix);
    secs
}

/// Charge `<run>/ledger.tsv` from where the last charge stopped, and wall time when `now`
/// (Unix seconds) is given. The caller saves the budget (`save_budget`) to make it stick.
pub fn charge_from_ledger(
    run: &Path,
    budget: &mut Budget,
    now_unix: Option<f64>,
) -> Result<Charged, PlanError> {
    let path = run.join(LEDGER_FILE);
    let chunk = read_from(&path, budget.ledger_offset)?.unwrap_or_default();
    // A row's sub-hypothesis is its node's root's: the tree is read once, and only when a
    // plan row needs it. A node the tree does not hold (yet) is counted to none.
    let mut tree: Option<Option<super::PlanTree>> = None;
    let mut owner = |node: &str| {
        let t =
            tree.get_or_insert_with(|| super::load(run, super::Plans::Skip).ok().map(|l| l.tree));
        let id = super::NodeId::new(node).ok()?;
        super::node_code::node_hypothesis(t.as_ref()?, &id)
    };
    let mut out = charge_rows_owned(budget, &chunk, &mut owner);
    if let Some(now) = now_unix {
        out.secs = charge_clock(budget, now);
    }
    Ok(out)
}

/// The budget as the ledger has it now: `budget` as saved, plus the rows written since its
/// last charge, in memory. For readers (`youra status`, the Plan pane): nothing is saved, so
/// the engine's next charge still counts each row exactly once.
pub fn spent_now(run: &Path, budget: &Budget) -> Result<Budget, PlanError> {
    let mut b = budget.clone();
    charge_from_ledger(run, &mut b, None)?;
    Ok(b)
}

/// The file's bytes from `offset`; `None` when there is no ledger yet.
fn read_from(path: &Path, offset: u64) -> Result<Option<Vec<u8>>, PlanError> {
    let mut f = match crate::fsutil::open_nofollow(path) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("read", path)(e)),
    };
    let len = f.metadata().map_err(io("read", path))?.len();
    if len < offset {
        return Err(PlanError::LedgerShrank {
            path: path.to_path_buf(),
            len,
            offset,
        });
    }
    f.seek(SeekFrom::Start(offset)).map_err(io("read", path))?;
    let mut bytes = Vec::with_capacity((len - offset) as usize);
    f.read_to_end(&mut bytes).map_err(io("read", path))?;
    Ok(Some(bytes))
}

impl Budget {
    /// After a restart: the time the engine was not running is not charged.
    pub fn restart_clock(&mut self) {
        self.clock_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = crate::llm::ledger::HEADER;

    fn row(input: u64, output: u64, node: &str) -> String {
        format!("2026-03-17T10:00:00Z\treflector\tplan\tm\t{input}\t{output}\t0.001\t{node}\n")
    }

    fn tagged(input: u64, node: &str, kind: &str) -> String {
        format!(
            "2026-03-17T10:00:00Z\tcritic\tcoding_validation\tm\t{input}\t0\t0.001\t{node}\t0\t{kind}\n"
        )
    }

    #[test]
    fn kinds_table() {
        use crate::llm::ledger as l;
        // The ledger writes the names the budget reads.
        for (k, name) in SpendKind::ALL
            .iter()
            .zip([l::PLANNING, l::EXECUTION, l::DIAGNOSIS])
        {
            assert_eq!(k.name(), name);
        }
        // (row, charged, node charged, planning, execution, diagnosis)
        type Row = (String, u64, Option<&'static str>, u64, u64, u64);
        let table: Vec<Row> = vec![
            (tagged(10, "n-0001", "planning"), 10, None, 10, 0, 0),
            (
                tagged(10, "n-0001", "execution"),
                10,
                Some("n-0001"),
                0,
                10,
                0,
            ),
            (
                tagged(10, "n-0002", "diagnosis"),
                10,
                Some("n-0002"),
                0,
                0,
                10,
            ),
            (tagged(10, "-", "-"), 0, None, 0, 0, 0),
            (tagged(10, "n-0001", "-"), 10, Some("n-0001"), 0, 10, 0),
            (tagged(10, "expand:n-0001", "-"), 10, None, 10, 0, 0),
            (row(10, 0, "expand:n-0001"), 10, None, 10, 0, 0),
            (row(10, 0, "n-0003"), 10, Some("n-0003"), 0, 10, 0),
            (tagged(10, "n-0001", "reflection"), 0, None, 0, 0, 0),
        ];
        for (text, charged, node, p, e, d) in table {
            let mut b = Budget::tokens(1000);
            let c = charge_rows(&mut b, text.as_bytes());
            assert_eq!(b.used_tokens, charged, "{text:?}");
            assert_eq!(
                (b.split.planning, b.split.execution, b.split.diagnosis),
                (p, e, d),
                "{text:?}"
            );
            assert_eq!(b.split.total(), b.used_tokens, "{text:?}");
            match node {
                Some(n) => assert_eq!(b.node_tokens[n], charged, "{text:?}"),
                None => assert!(b.node_tokens.is_empty(), "{text:?}"),
            }
            if text.contains("reflection") {
                assert!(
                    c.skipped[0].contains("plan_kind `reflection`"),
                    "{:?}",
                    c.skipped
                );
            }
        }
    }

    #[test]
    fn rows_table() {
        // (ledger text, rows, tokens, torn, skipped, bytes consumed)
        let a = row(100, 20, "n-0001");
        let b = row(5, 5, "-");
        let torn = "2026-03-17T10:01:00Z\tcoder\texec\tm\t7";
        let bad = "t\tr\ts\tm\tlots\t3\t0\t-\n";
        let header = format!("{HEADER}\n");
        type Row = (String, u64, u64, bool, usize, usize);
        let table: Vec<Row> = vec![
            (String::new(), 0, 0, false, 0, 0),
            (header.clone(), 0, 0, false, 0, header.len()),
            (
                format!("{header}{a}{b}"),
                1,
                120,
                false,
                0,
                header.len() + a.len() + b.len(),
            ),
            (format!("{a}{torn}"), 1, 120, true, 0, a.len()),
            (
                format!("{a}{bad}{b}"),
                1,
                120,
                false,
                1,
                a.len() + bad.len() + b.len(),
            ),
            ("short\tline\n".into(), 0, 0, false, 1, 11),
        ];
        for (text, rows, tokens, is_torn, skipped, consumed) in table {
            let mut budget = Budget::tokens(1000);
            let c = charge_rows(&mut budget, text.as_bytes());
            assert_eq!(
                (c.rows, c.tokens, c.torn, c.skipped.len()),
                (rows, tokens, is_torn, skipped),
                "{text:?}"
            );
            assert_eq!(budget.used_tokens, tokens);
            assert_eq!(budget.ledger_offset, consumed as u64, "{text:?}");
        }
    }

    #[test]
    fn rows_are_counted_to_their_sub_hypothesis() {
        // (row, sub-hypothesis its node belongs to)
        let text = [
            tagged(100, "n-0001", "execution"),
            tagged(40, "expand:n-0001", "planning"),
            tagged(30, "n-0002", "diagnosis"),
            tagged(7, "n-0009", "execution"),
            tagged(1000, "-", "-"),
        ]
        .concat();
        let owner = |n: &str| match n {
            "n-0001" => Some("h-e1".to_string()),
            "n-0002" => Some("h-e2".to_string()),
            _ => None,
        };
        let mut b = Budget::tokens(1000);
        charge_rows_owned(&mut b, text.as_bytes(), &mut |n| owner(n));
        // The expansion's planning is its node's sub-hypothesis's; a node of none (n-0009)
        // and a row of no node count to the run only.
        assert_eq!(b.hypothesis_tokens["h-e1"], 140);
        assert_eq!(b.hypothesis_tokens["h-e2"], 30);
        assert_eq!(b.hypothesis_tokens.len(), 2);
        assert_eq!(b.used_tokens, 177);
        assert_eq!(b.for_hypothesis("h-e2").remaining_share(), 0.97);
        assert_eq!(b.for_hypothesis("h-e3").remaining_share(), 1.0);
    }

    #[test]
    fn tokens_per_node() {
        let mut budget = Budget::tokens(1000);
        let text = format!(
            "{}{}{}",
            row(10, 1, "n-0001"),
            row(3, 0, "n-0002"),
            row(1, 1, "n-0001"),
        ) + &row(50, 50, "expand:n-0001")
            + &row(1000, 1000, "-");
        charge_rows(&mut budget, text.as_bytes());
        assert_eq!(budget.node_tokens["n-0001"], 13);
        assert_eq!(budget.node_tokens["n-0002"], 3);
        assert_eq!(budget.node_tokens.len(), 2);
        // The expansion is planning: charged to the budget, not to the node's execution.
        // The row of no node (the debate, a paper) is not the plan's.
        assert_eq!(budget.used_tokens, 16 + 100);
    }

    #[test]
    fn clock_only_with_a_time_limit() {
        let mut b = Budget::tokens(10);
        assert_eq!(charge_clock(&mut b, 100.0), 0.0);
        assert_eq!(b.clock_at, None);
        b.time_budget_secs = Some(60.0);
        // (now, charged, used after)
        let table = [
            (100.0, 0.0, 0.0),
            (130.0, 30.0, 30.0),
            (120.0, 0.0, 30.0),
            (150.0, 30.0, 60.0),
        ];
        for (now, secs, used) in table {
            assert_eq!(charge_clock(&mut b, now), secs, "{now}");
            assert_eq!(b.used_secs, used, "{now}");
        }
        assert!(b.exhausted());
        b.restart_clock();
        assert_eq!(charge_clock(&mut b, 1000.0), 0.0);
        assert_eq!(charge_clock(&mut b, f64::NAN), 0.0);
    }
}
