//! One item of `workflow.breakpoints`: when the engine stops, and whether the stop uses it
//! up. The VSA keeps each item as text, so a hand edit, `youra steer RUN break …`, the TUI's
//! `b` and `[breakpoints] set` in youra.toml all write the same words, and an older item (a
//! bare stage, `Phase 4`) still reads as "before this stage". Pure: the engine asks
//! [`Breakpoint::trips_on`] about each event a step wrote (its kind and result), and checks
//! the stage and budget conditions itself (`engine/run_steer.rs`, `engine/breakpoints.rs`).

use crate::stage::Stage;

/// Which verdicts of a gate stop the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Fail,
    Inconclusive,
    Any,
}

/// When a breakpoint stops the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Before a step of this stage starts.
    BeforeStage(Stage),
    /// After a step whose gate gave this verdict.
    AfterGate(Verdict),
    /// Once the plan search's spent token share reaches this percentage (1 to 100).
    Budget(u8),
    /// Before the first experiment of a new branch of the plan tree: a sub-hypothesis that
    /// has no gate verdict yet (its tree's root).
    NewBranch,
    /// At any escalation: it waits for the researcher, whatever the waiting policy says.
    Escalation,
    /// After a step whose experiment broke the sandbox's rules.
    SandboxViolation,
}

/// A breakpoint: its condition, and whether it is removed when it stops the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Breakpoint {
    pub when: When,
    pub once: bool,
}

/// The forms `parse` reads, for error messages and help.
pub const FORMS: &str = "a stage (`Phase 4`, `Coding & Validation`), `after gate FAIL|INCONCLUSIVE|any`, \
     `budget 50%`, `new branch`, `escalation` or `sandbox violation`, each optionally after `once`";

impl Breakpoint {
    pub fn persistent(when: When) -> Breakpoint {
        Breakpoint { when, once: false }
    }

    /// Read one item as written (case and spacing as typed); `None` when it is none of the
    /// [`FORMS`].
    pub fn parse(raw: &str) -> Option<Breakpoint> {
        let t = raw.trim();
        let lower = t.to_ascii_lowercase();
        let (once, rest, lower) = match lower.strip_prefix("once") {
            Some(r) if r.starts_with([' ', ':']) => {
                let cut = t.len() - r.len();
                let rest = t[cut..].trim_start_matches([' ', ':']).trim();
                (true, rest, rest.to_ascii_lowercase())
            }
            _ => (false, t, lower.clone()),
        };
        let words: Vec<&str> = lower.split_whitespace().collect();
        let when = match words.as_slice() {
            ["after", "gate", v] | ["gate", v] => When::AfterGate(match *v {
                "fail" | "failed" => Verdict::Fail,
                "inconclusive" => Verdict::Inconclusive,
                "any" | "*" => Verdict::Any,
                _ => return None,
            }),
            ["budget", share] => {
                let n = share.trim_end_matches('%').parse::<u8>().ok()?;
                if !(1..=100).contains(&n) {
                    return None;
                }
                When::Budget(n)
            }
            ["new", "branch"] => When::NewBranch,
            ["escalation"] | ["any", "escalation"] => When::Escalation,
            ["sandbox", "violation"] => When::SandboxViolation,
            _ => {
                let stage = rest.strip_prefix("before ").unwrap_or(rest);
                When::BeforeStage(Stage::parse(stage)?)
            }
        };
        Some(Breakpoint { when, once })
    }

    /// The item as youra writes it (`parse` reads it back as the same breakpoint).
    pub fn text(&self) -> String {
        let what = match self.when {
            When::BeforeStage(s) => s.label().to_string(),
            When::AfterGate(v) => format!(
                "after gate {}",
                match v {
                    Verdict::Fail => "FAIL",
                    Verdict::Inconclusive => "INCONCLUSIVE",
                    Verdict::Any => "any",
                }
            ),
            When::Budget(n) => format!("budget {n}%"),
            When::NewBranch => "new branch".into(),
            When::Escalation => "escalation".into(),
            When::SandboxViolation => "sandbox violation".into(),
        };
        if self.once {
            format!("once {what}")
        } else {
            what
        }
    }

    /// For a reader: "before Coding & Validation (Phase 4)", "after a gate's FAIL (once)".
    pub fn describe(&self) -> String {
        let what = match self.when {
            When::BeforeStage(s) => format!("before {s}"),
            When::AfterGate(Verdict::Any) => "after any gate verdict".into(),
            When::AfterGate(Verdict::Fail) => "after a gate's FAIL".into(),
            When::AfterGate(Verdict::Inconclusive) => "after a gate's INCONCLUSIVE".into(),
            When::Budget(n) => format!("when {n}% of the plan budget is spent"),
            When::NewBranch => "before the first experiment of a new plan branch".into(),
            When::Escalation => "at any escalation".into(),
            When::SandboxViolation => "after a sandbox violation".into(),
        };
        if self.once {
            format!("{what} (once)")
        } else {
            what
        }
    }

    /// The same stop, one-shot or not (`--off` removes either; a second `set` is refused).
    pub fn same_condition(&self, other: &Breakpoint) -> bool {
        self.when == other.when
    }

    /// Whether an event a step wrote (its `kind` and `result`) trips this breakpoint (the
    /// conditions that follow what happened: a gate's verdict, a sandbox violation). The
    /// others never trip on an event.
    pub fn trips_on(&self, kind: &str, result: Option<&str>) -> bool {
        match self.when {
            When::AfterGate(v) if kind == "gate" => {
                let r = result.unwrap_or_default();
                match v {
                    Verdict::Any => !r.is_empty(),
                    Verdict::Fail => r.eq_ignore_ascii_case("FAIL"),
                    Verdict::Inconclusive => r.eq_ignore_ascii_case("INCONCLUSIVE"),
                }
            }
            When::SandboxViolation => kind == "sandbox_violation",
            _ => false,
        }
    }
}

/// `[breakpoints]` in youra.toml: items the engine adds to `workflow.breakpoints` the first
/// time it starts on the run (after that the VSA's list is the truth: a breakpoint the
/// researcher cleared stays cleared). Each item is checked at load, so a typo is refused
/// with its file and line rather than never stopping the run.
#[derive(Debug, Clone, Default, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct BreakpointsSection {
    #[serde(deserialize_with = "checked_items")]
    pub set: Vec<String>,
}

fn checked_items<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let items = <Vec<String> as serde::Deserialize>::deserialize(d)?;
    for i in &items {
        if Breakpoint::parse(i).is_none() {
            return Err(serde::de::Error::custom(format!(
                "`{i}` is not a breakpoint: give {FORMS}"
            )));
        }
    }
    Ok(items)
}

/// The history event of the engine's one write of `[breakpoints] set`.
pub const CONFIG_EVENT: &str = "breakpoints_config";

/// The breakpoints of a VSA's list, each with its index there; items that read as none of
/// the [`FORMS`] are left out (the engine says so once: `engine/breakpoints.rs`).
pub fn read_all(items: &[String]) -> Vec<(usize, Breakpoint)> {
    items
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Breakpoint::parse(t).map(|b| (i, b)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_back_as_written_and_odd_text_is_none() {
        for (typed, text) in [
            ("Phase 4", "Phase 4"),
            ("Coding & Validation", "Phase 4"),
            ("before phase 2c", "Phase 2C"),
            ("once Coding & Validation", "once Phase 4"),
            ("once: Phase 4", "once Phase 4"),
            ("after gate FAIL", "after gate FAIL"),
            ("gate inconclusive", "after gate INCONCLUSIVE"),
            ("After Gate any", "after gate any"),
            ("budget 50%", "budget 50%"),
            ("once budget 100", "once budget 100%"),
            ("new branch", "new branch"),
            ("escalation", "escalation"),
            ("once sandbox violation", "once sandbox violation"),
        ] {
            let b = Breakpoint::parse(typed).unwrap_or_else(|| panic!("{typed}"));
            assert_eq!(b.text(), text, "{typed}");
            assert_eq!(Breakpoint::parse(&b.text()), Some(b), "{typed}");
        }
        for bad in [
            "",
            "once",
            "lunch",
            "budget 0%",
            "budget 101%",
            "budget half",
            "after gate PASS",
            "gate",
            "oncePhase 4",
        ] {
            assert_eq!(Breakpoint::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_config_section_refuses_what_is_not_a_breakpoint() {
        let ok: BreakpointsSection =
            toml::from_str("set = [\"once Phase 4\", \"after gate FAIL\"]").unwrap();
        assert_eq!(ok.set, ["once Phase 4", "after gate FAIL"]);
        let e = toml::from_str::<BreakpointsSection>("set = [\"gate PASS\"]")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`gate PASS` is not a breakpoint"), "{e}");
        assert!(toml::from_str::<BreakpointsSection>("sett = []").is_err());
    }

    #[test]
    fn events_trip_only_their_own_condition() {
        let gate = |r: &'static str| ("gate", Some(r));
        let fail = Breakpoint::persistent(When::AfterGate(Verdict::Fail));
        let inc = Breakpoint::persistent(When::AfterGate(Verdict::Inconclusive));
        let any = Breakpoint::persistent(When::AfterGate(Verdict::Any));
        let sandbox = Breakpoint::persistent(When::SandboxViolation);
        let stage = Breakpoint::persistent(When::BeforeStage(Stage::CodingValidation));
        let cases = [
            (gate("FAIL"), [true, false, true, false, false]),
            (gate("INCONCLUSIVE"), [false, true, true, false, false]),
            (gate("PASS"), [false, false, true, false, false]),
            (
                ("sandbox_violation", None),
                [false, false, false, true, false],
            ),
            (("stage_start", None), [false; 5]),
            (("escalation", None), [false; 5]),
            // A gate event without a verdict is no verdict.
            (("gate", None), [false; 5]),
        ];
        for ((kind, result), want) in cases {
            let got = [&fail, &inc, &any, &sandbox, &stage].map(|b| b.trips_on(kind, result));
            assert_eq!(got, want, "{kind} {result:?}");
        }
    }
}
