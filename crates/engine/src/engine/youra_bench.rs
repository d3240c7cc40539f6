//! `youra bench routing --youra <fixtures>`: YouRA's own failures replayed through both of
//! youra's routers. YouRA publishes, per archived recovery, only the level it took
//! (`analysis/VSA/routing_levels_detail.csv`: backbone, task, snapshot, level) and, for the
//! runs it ships, the Reflective Memory failure records with their root causes. The levels
//! alone cannot be replayed (no cause, no gate), so each *failure record* is: its hypothesis,
//! gate type, failed checks and root causes become a failure in a scratch run, youra's
//! attribution (generator, critic, clamp judge, on the endpoints the given configuration
//! names) ranks the causes, SAGE's table routes, and the Independent Controller chooses with
//! the record itself among its memory. Each answer is compared with the level YouRA took
//! for that record (its own routing line, else the level every archived recovery of that
//! task took in the CSV). Nothing is tuned to the file: the table's thresholds and the
//! controller's prompt are the product's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::gates::{FailedCheck, GateOutcome, Verdict};
use super::recovery::{Failure, propose};
use super::route_choice::choose;
use super::{Engine, Options};
use crate::reflect::routing::{Level, youra_level};
use crate::reflect::veto::Route;
use crate::rundir::memory::{MemoryRecord, load_dir};
use crate::stage::Stage;

#[path = "youra_bench_agreement.rs"]
mod agreement;
pub use agreement::Agreement;

/// One archived recovery as YouRA's CSV lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelRow {
    pub backbone: String,
    pub task: String,
    pub snapshot: String,
    pub level: Level,
}

/// The levels file's rows; a row whose level is neither `reset` nor `redesign` is an error
/// naming its line.
pub fn read_levels(text: &str) -> Result<Vec<LevelRow>, String> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.splitn(5, ',').collect();
        if cells.len() < 4 {
            return Err(format!(
                "line {}: expected backbone,task,snapshot,level,…",
                i + 1
            ));
        }
        let level = match cells[3].trim() {
            "reset" => Level::Reset,
            "redesign" => Level::Redesign,
            other => return Err(format!("line {}: unknown level `{other}`", i + 1)),
        };
        rows.push(LevelRow {
            backbone: cells[0].trim().to_string(),
            task: cells[1].trim().to_string(),
            snapshot: cells[2].trim().to_string(),
            level,
        });
    }
    Ok(rows)
}

/// The results folder a backbone's runs are shipped under (`Sonnet 4.5` → `sonnet45`).
pub(crate) fn lane(backbone: &str) -> String {
    backbone
        .to_ascii_lowercase()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

/// The level YouRA's record says it took: `ROUTED_TO_PHASE_0` / `ROUTE_TO_0` a reset,
/// `PHASE_2A` a redesign; anything else (a self-modification, a limitation) is not one of
/// the two levels the CSV classifies.
pub(crate) fn record_level(routing: &str) -> Option<Level> {
    let r = routing.to_ascii_uppercase().replace([' ', '-'], "_");
    if r.contains("PHASE_0") || r.contains("ROUTE_TO_0") {
        Some(Level::Reset)
    } else if r.contains("PHASE_2A") {
        Some(Level::Redesign)
    } else {
        None
    }
}

/// A failure record to replay, and the level YouRA took for it.
#[derive(Debug, Clone)]
pub struct Case {
    pub lane: String,
    pub task: String,
    pub record: MemoryRecord,
    pub youra: Option<Level>,
    /// Where `youra` came from: the record's routing line or the task's CSV rows.
    pub source: String,
}

/// Every failure record of the shipped runs, each paired with its level.
pub fn cases(fixtures: &Path, rows: &[LevelRow]) -> Vec<Case> {
    let base = fixtures.join("results/generations/youra");
    let mut out = Vec::new();
    let Ok(lanes) = std::fs::read_dir(&base) else {
        return out;
    };
    let mut lanes: Vec<PathBuf> = lanes.filter_map(|e| Some(e.ok()?.path())).collect();
    lanes.sort();
    for lane_dir in lanes {
        let lane_name = lane_dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let Ok(tasks) = std::fs::read_dir(&lane_dir) else {
            continue;
        };
        let mut tasks: Vec<PathBuf> = tasks.filter_map(|e| Some(e.ok()?.path())).collect();
        tasks.sort();
        for task_dir in tasks {
            let folder = task_dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            let task = folder.trim_start_matches("iclr2025_").to_string();
            let csv: Vec<Level> = rows
                .iter()
                .filter(|r| r.task == task && lane(&r.backbone) == lane_name)
                .map(|r| r.level)
                .collect();
            let unanimous = csv.first().filter(|l| csv.iter().all(|x| x == *l)).copied();
            let (records, _) = load_dir(&task_dir.join(".serena/memories"));
            for record in records.into_iter().filter(|r| r.kind.as_str() == "failure") {
                let own = record.routing_decision.as_deref().and_then(record_level);
                let (youra, source) = match (own, unanimous) {
                    (Some(l), _) => (Some(l), "record".to_string()),
                    (None, Some(l)) => (Some(l), format!("csv ({} rows)", csv.len())),
                    (None, None) => (None, "none".to_string()),
                };
                out.push(Case {
                    lane: lane_name.clone(),
                    task: task.clone(),
                    record,
                    youra,
                    source,
                });
            }
        }
    }
    out
}

/// The gate a record's results table describes: every row whose last cell says it failed.
pub fn gate_of(record: &MemoryRecord) -> GateOutcome {
    let mut failed = Vec::new();
    let mut measured = BTreeMap::new();
    if let Some(t) = &record.results_table {
        for row in &t.rows {
            let cell = |i: usize| row.get(i).map(|s| s.trim().to_string()).unwrap_or_default();
            let passed = cell(row.len().saturating_sub(1)).to_ascii_lowercase();
            let name = cell(0);
            if let Ok(v) = cell(1).trim_start_matches(['~', '≈']).parse::<f64>() {
                measured.insert(name.clone(), v);
            }
            if passed.contains('❌') || passed.contains("fail") || passed == "no" {
                failed.push(FailedCheck {
                    criterion: name,
                    required: cell(2),
                    actual: cell(1),
                    reason: "below its threshold (as the record says)".into(),
                });
            }
        }
    }
    GateOutcome::recorded(Verdict::Fail, failed, measured)
}

/// What each router chose for one case.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub table: Level,
    pub controller: Option<Level>,
    /// `controller`, or why the table decided instead.
    pub by: String,
}

fn level_of(route: Route) -> Level {
    match route {
        Route::Act(a) => youra_level(a),
        Route::Limitation => Level::Continue,
    }
}

/// Replay one case in a fresh scratch run at `dir` made with `llm_toml`'s endpoints.
pub fn replay(case: &Case, dir: &Path, llm_toml: &str) -> Result<Outcome, String> {
    let r = &case.record;
    let h = r.hypothesis.clone().unwrap_or_else(|| "h-x1".into());
    let opts = super::init::InitOptions {
        topic: r
            .title
            .clone()
            .unwrap_or_else(|| format!("{} {}", case.lane, case.task)),
        name: Some("replay".into()),
        mode: "UNATTENDED".into(),
        llm_toml: llm_toml.to_string(),
    };
    super::init::init(dir, &opts).map_err(|e| e.to_string())?;
    let gate_type = match r.gate_type.as_deref().unwrap_or("MUST_WORK") {
        g if g.to_ascii_uppercase().contains("SHOULD") => "SHOULD_WORK",
        _ => "MUST_WORK",
    };
    let statement = crate::yaml::format_scalar(
        &r.title.clone().unwrap_or_default(),
        crate::yaml::Style::SingleQuoted,
    );
    let vsa = dir.join("verification_state.yaml");
    let mut text = crate::fsutil::read_run_text(&vsa).map_err(|e| e.to_string())?;
    text.push_str(&format!(
        "sub_hypotheses:\n  {h}:\n    statement: {statement}\n    status: FAILED\n    gate:\n      type: {gate_type}\n      result: FAIL\n"
    ));
    let text = text.replacen("sub_hypotheses: {}\n", "", 1);
    std::fs::write(&vsa, text).map_err(|e| e.to_string())?;
    // The record is the failure's whole story: the brief the generator reads, the log tail
    // it cites, and the memory the controller is given.
    std::fs::create_dir_all(dir.join(&h)).map_err(|e| e.to_string())?;
    std::fs::write(dir.join(&h).join("02c_experiment_brief.md"), &r.body)
        .map_err(|e| e.to_string())?;
    let log = dir.join(&h).join("experiment.log");
    std::fs::write(&log, r.root_causes.join("\n")).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(dir.join("memory")).map_err(|e| e.to_string())?;
    std::fs::write(
        dir.join("memory")
            .join(format!("{}.md", r.id.replace('/', "_"))),
        &r.body,
    )
    .map_err(|e| e.to_string())?;
    let engine = Engine::open(dir, Options::default()).map_err(|e| e.to_string())?;
    engine.replay_failure(&h, gate_of(r), log)
}

impl Engine {
    fn replay_failure(&self, h: &str, gate: GateOutcome, log: PathBuf) -> Result<Outcome, String> {
        let ctx = self.ctx(Stage::CodingValidation, Some(h.to_string()), 0, 1, None);
        let f = Failure {
            hypothesis: h.to_string(),
            criteria: Vec::new(),
            gate,
            metrics: Vec::new(),
            log,
            improvement_path: false,
        };
        let p = propose(&ctx, &f, 0, ctx.recovery).map_err(|e| e.to_string())?;
        let table = if p.limitation {
            Level::Continue
        } else {
            youra_level(p.action)
        };
        let routed = choose(&ctx, &f, &p, 0);
        let controller = routed
            .by
            .starts_with("controller")
            .then(|| level_of(routed.route));
        Ok(Outcome {
            table,
            controller,
            by: routed.by,
        })
    }
}

fn word(l: Level) -> &'static str {
    match l {
        Level::Continue => "proceed",
        Level::Retry => "repair",
        Level::RedoDesign => "design-retry",
        Level::Redesign => "redesign",
        Level::Reset => "reset",
    }
}

/// The report: the CSV's levels, then each replayed record and the agreement of each router
/// with the levels YouRA took.
pub fn render(rows: &[LevelRow], results: &[(Case, Result<Outcome, String>)]) -> String {
    let mut out = String::new();
    let resets = rows.iter().filter(|r| r.level == Level::Reset).count();
    out.push_str(&format!(
        "YouRA's routing levels: {} archived recoveries ({} reset, {} redesign); the file gives no root cause, so they are replayed through the failure records shipped with the runs.\n\n",
        rows.len(),
        resets,
        rows.len() - resets
    ));
    out.push_str(&format!(
        "{:<52} {:<10} {:<14} {:<13} {:<13} {}\n",
        "record", "youra", "from", "table", "controller", "by"
    ));
    let (mut table_pairs, mut ctl_pairs) = (Vec::new(), Vec::new());
    for (c, res) in results {
        let name = format!("{}/{}/{}", c.lane, c.task, c.record.id);
        let youra = c.youra.map_or("-", word);
        match res {
            Ok(o) => {
                let ctl = o.controller.map_or("(table)", word);
                out.push_str(&format!(
                    "{name:<52} {youra:<10} {:<14} {:<13} {ctl:<13} {}\n",
                    c.source,
                    word(o.table),
                    crate::term::escape(&o.by)
                ));
                if let Some(y) = c.youra {
                    table_pairs.push((y, o.table));
                    if let Some(l) = o.controller {
                        ctl_pairs.push((y, l));
                    }
                }
            }
            Err(e) => out.push_str(&format!(
                "{name:<52} {youra:<10} {:<14} not replayed: {}\n",
                c.source,
                crate::term::escape(e)
            )),
        }
    }
    let (table, ctl) = (Agreement::of(&table_pairs), Agreement::of(&ctl_pairs));
    out.push_str(&format!(
        "\nagreement with YouRA's level: table {}/{}, controller {}/{} (where it answered)\n\n",
        table.agreed, table.n, ctl.agreed, ctl.n
    ));
    // Accuracy alone flatters a router on a skewed set (81 of 86 recoveries were resets):
    // the baseline and κ say whether it beats always answering the common level.
    out.push_str(&table.render("SAGE's table", word));
    out.push_str(&ctl.render("the controller (not shown the table's choice)", word));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_levels_file_reads_with_crlf_and_refuses_an_unknown_level() {
        let rows = read_levels("backbone,task,snapshot,level,classification_reason\r\nSonnet 4.5,bi_align,s1,reset,_ARCHIVED.md route_target='Phase 0'\r\nOpus 4.5,scope,s2,redesign,x, with a comma\r\n").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].level, rows[1].level),
            (Level::Reset, Level::Redesign)
        );
        assert_eq!(lane(&rows[0].backbone), "sonnet45");
        let e = read_levels("h\nA,b,c,pivot,x\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("pivot"), "{e}");
    }

    #[test]
    fn a_record_says_its_level_in_youras_words() {
        assert_eq!(record_level("ROUTED_TO_PHASE_0"), Some(Level::Reset));
        assert_eq!(record_level("reason=ROUTE_TO_0"), Some(Level::Reset));
        assert_eq!(record_level("Routed to Phase 2A"), Some(Level::Redesign));
        assert_eq!(record_level("SELF_MODIFY → h-e1-v2"), None);
    }
}
