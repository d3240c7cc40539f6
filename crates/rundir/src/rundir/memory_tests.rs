//! Unit tests of the Reflective Memory parser on crafted records.

use super::*;

fn parse(id: &str, text: &str) -> MemoryRecord {
    parse_record(id, Path::new("m.md"), text)
}

#[test]
fn crlf_bom_and_no_trailing_newline() {
    let r = parse(
        "x",
        "\u{feff}# Failure: h-x2\r\n\r\n**Date:** 2025-01-02\r\n**Hypothesis:** H-X2 - Name\r\n**Run:** 4\r\n**Final Status:** FAIL",
    );
    assert_eq!(r.title.as_deref(), Some("Failure: h-x2"));
    assert_eq!((r.hypothesis.as_deref(), r.run), (Some("h-x2"), Some(4)));
    assert_eq!(r.final_status.as_deref(), Some("FAIL"));
    assert_eq!(r.date.as_deref(), Some("2025-01-02"));
    assert!(!r.body.contains('\r') && !r.body.starts_with('\u{feff}'));
}

#[test]
fn bullet_metadata_and_precedence() {
    let text = "## Metadata\n- **Hypothesis ID:** h-q\n* **Gate Type:** SHOULD_WORK\n  - **Gate Result**: FAIL\n1. **Numbered**: no\n**Timestamp:** t1\n```\n**Code:** no\n# not a title\n```\n";
    let r = parse("notes", text);
    let keys: Vec<_> = r.fields.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        keys,
        ["Hypothesis ID", "Gate Type", "Gate Result", "Timestamp"]
    );
    assert_eq!(
        (r.hypothesis.as_deref(), r.gate_type.as_deref()),
        (Some("h-q"), Some("SHOULD_WORK"))
    );
    assert_eq!(
        (r.final_status.as_deref(), r.date.as_deref()),
        (Some("FAIL"), Some("t1"))
    );
    assert_eq!((r.title, r.kind), (None, MemoryKind::Other));
}

#[test]
fn front_matter_closed_and_unclosed() {
    let r = parse(
        "l",
        "---\r\nname: 'lim_h-z'\r\ndescription: \"a: b\"\r\n  nested: no\r\n---\r\n# L\r\n",
    );
    let fm: Vec<_> = r
        .front_matter
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(fm, [("name", "lim_h-z"), ("description", "a: b")]);
    assert_eq!(r.title.as_deref(), Some("L"));
    let r = parse("l", "---\nname: x\n# T");
    assert!(r.front_matter.is_empty());
    assert_eq!(r.title.as_deref(), Some("T"));
}

#[test]
fn names_give_kind_ids_run_and_date() {
    use MemoryKind::*;
    let cases = [
        (
            "failure_h-e2_run3",
            Failure,
            Some("h-e2"),
            None,
            Some(3),
            None,
        ),
        (
            "phase5_failure_h-e1_run1",
            Phase5Failure,
            Some("h-e1"),
            None,
            Some(1),
            None,
        ),
        (
            "limitation_h-e1_20250101",
            Limitation,
            Some("h-e1"),
            None,
            None,
            Some("20250101"),
        ),
        (
            "pivot_h-e1_h-e1-v2",
            Pivot,
            Some("h-e1"),
            Some("h-e1-v2"),
            None,
            None,
        ),
        (
            "pivot/h-a_to_h-a-v3_scope",
            Pivot,
            Some("h-a"),
            Some("h-a-v3"),
            None,
            None,
        ),
        ("pivots/h-a_notes", Pivot, Some("h-a"), None, None, None),
        (
            "superseded_h-m2",
            Superseded,
            Some("h-m2"),
            None,
            None,
            None,
        ),
        (
            "snapshot_h-e1_20250101_120000",
            Snapshot,
            Some("h-e1"),
            None,
            None,
            Some("20250101_120000"),
        ),
        (
            "phase4/h-e1_completion_snapshot_20250101T120000",
            Snapshot,
            Some("h-e1"),
            None,
            None,
            Some("20250101T120000"),
        ),
        ("phase4/h-e1_notes", Other, Some("h-e1"), None, None, None),
        (
            "failures/h-m1_must_work_fail",
            Failure,
            Some("h-m1"),
            None,
            None,
            None,
        ),
        (
            "snapshot/H-M1_phase4_failed",
            Snapshot,
            Some("h-m1"),
            None,
            None,
            None,
        ),
        (
            "phase5_comparison_h-e1",
            Other,
            Some("h-e1"),
            None,
            None,
            None,
        ),
        ("project_overview", Other, None, None, None, None),
    ];
    for (id, kind, hyp, to, run, date) in cases {
        let r = parse(id, "");
        let got = (
            r.kind,
            r.hypothesis.as_deref(),
            r.to_hypothesis.as_deref(),
            r.run,
            r.date.as_deref(),
        );
        assert_eq!(got, (kind, hyp, to, run, date), "{id}");
    }
}

#[test]
fn fields_beat_names_and_placeholders_do_not() {
    let r = parse(
        "pivot_h-a_h-b",
        "**From:** h-c\n**To:** h-d\n*Written at: w*\n",
    );
    assert_eq!(
        (r.hypothesis.as_deref(), r.to_hypothesis.as_deref()),
        (Some("h-c"), Some("h-d"))
    );
    assert_eq!(r.date.as_deref(), Some("w"));
    let r = parse(
        "failure_h-a_run2",
        "**Hypothesis:** {{hypothesis_id}}\n**Run:** {{run}}\n",
    );
    assert_eq!((r.hypothesis.as_deref(), r.run), (Some("h-a"), Some(2)));
}

#[test]
fn root_causes_and_lessons() {
    let text = "## Root Cause Analysis\n\n### Primary\n- **Error:** tz\n### Secondary\n1. **Retry**: none\n2. plain\n\n\
        ## Lessons Learned\n### 1. Dates\n- **Lesson:** use UTC\n- **Impact:** high\n### 2. Gates\n- check n\n\
        ## Other\n- Root cause: labelled\n- nothing here\n**Root Causes:**\n\n- a\n- b\nprose ends it\n- c\n\
        ## Root Cause\nFirst line\nsame paragraph.\n\n| t | t |\n\nSecond.\n";
    let r = parse("x", text);
    assert_eq!(
        r.root_causes,
        [
            "**Error:** tz",
            "**Retry**: none",
            "plain",
            "Root cause: labelled",
            "a",
            "b",
            "First line same paragraph.",
            "Second."
        ]
    );
    assert_eq!(
        r.lessons,
        [
            "Dates — **Lesson:** use UTC; **Impact:** high",
            "Gates — check n"
        ]
    );
}

#[test]
fn routing_sources_in_order() {
    let route = |t: &str| parse("x", t).routing_decision;
    let both = "**Reflection Outcome:** B\n## Routing Decision\n- **Outcome:** A\n";
    assert_eq!(route(both).as_deref(), Some("A"));
    assert_eq!(
        route("## Reflection\n- Outcome: SELF_MODIFY\n").as_deref(),
        Some("SELF_MODIFY")
    );
    assert_eq!(
        route("**Reflection:** C\n## Reflection\n- Outcome: D").as_deref(),
        Some("C")
    );
    assert_eq!(
        route("## Routing\n\n→ Phase 0 redo\n").as_deref(),
        Some("→ Phase 0 redo")
    );
    assert_eq!(route("## Notes\n- Outcome: no"), None);
}

#[test]
fn first_table_and_sections() {
    let text = "```\n| a | b |\n|---|---|\n```\n## Results\n| A | B \\| C |\n|:--|--:|\n| 1 | 2 |\n|3|\n\n### Sub\nbody\n#### deep\nmore\n# Top\n";
    let r = parse("x", text);
    let table = r.results_table.unwrap_or_default();
    assert_eq!(table.header, ["A", "B \\| C"]);
    assert_eq!(table.rows, [vec!["1", "2"], vec!["3"]]);
    let titles: Vec<_> = r
        .sections
        .iter()
        .map(|s| (s.level, s.title.as_str()))
        .collect();
    assert_eq!(titles, [(2, "Results"), (3, "Sub")]);
    assert_eq!(r.sections[1].body, "body\n#### deep\nmore");
    assert_eq!(parse("x", "| a |\n| b |\n").results_table, None);
}

#[test]
fn empty_and_junk_inputs_never_panic() {
    let r = parse("", "");
    assert!(r.title.is_none() && r.fields.is_empty() && r.sections.is_empty() && r.body.is_empty());
    let junk = String::from_utf8_lossy(b"\xff\xfe# \xc3\x28\n**\xe2\x82:** \x00\n|\xff|\n|-|\n");
    let r = parse("failure_\u{fffd}_run99999999999", &junk);
    assert_eq!(r.run, None);
    for t in [
        "#", "**", "**:**", "** :**", "|", "|-|", "---", "---\n", "1.", "- ", "```", "\r", "*a:*",
        "###### ", "1)x", "\u{feff}",
    ] {
        let _ = parse("pivot/_to_", t);
        let _ = parse("snapshot_2", &t.repeat(3));
    }
}

#[test]
fn kind_names_round_trip() {
    for kind in MemoryKind::ALL {
        assert_eq!(kind.as_str().parse::<MemoryKind>(), Ok(kind));
        assert_eq!(
            serde_json::to_string(&kind).ok(),
            Some(format!("\"{kind}\""))
        );
    }
    assert_eq!("Phase5-Failure".parse(), Ok(MemoryKind::Phase5Failure));
    assert!("failures".parse::<MemoryKind>().is_err());
}

#[test]
fn load_dir_walks_sorted_and_lossy() {
    let root = std::env::temp_dir().join(format!("youra-memory-test-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(root.join("pivot")).unwrap();
    fs::write(root.join("snapshot_h-e1_20250101.MD"), "").unwrap();
    fs::write(root.join("pivot/h-a_to_h-b_x.md"), b"**Date:** \xff\r\n").unwrap();
    fs::write(root.join("failure_h-a_run1.md"), "# F").unwrap();
    fs::write(root.join("notes.txt"), "x").unwrap();
    let (records, warnings) = load_dir(&root);
    let _ = fs::remove_dir_all(&root);
    let ids: Vec<_> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "failure_h-a_run1",
            "pivot/h-a_to_h-b_x",
            "snapshot_h-e1_20250101"
        ]
    );
    assert_eq!(records[1].date.as_deref(), Some("\u{fffd}"));
    assert!(warnings.is_empty());
    assert_eq!(load_dir(&root), (Vec::new(), Vec::new()));
}

#[test]
fn failure_category_from_fields_then_gate_and_result() {
    let cat = |text: &str| parse("failure_h-x_run1", text).category;
    assert_eq!(
        cat("**Failure Type:** MUST_WORK_FAIL\n").as_deref(),
        Some("MUST_WORK_FAIL")
    );
    assert_eq!(
        cat("**Failure Type:** IMPLEMENTATION_BUG - Complete data collection failure\n").as_deref(),
        Some("IMPLEMENTATION_BUG")
    );
    assert_eq!(
        cat("**Failure Type:** MUST_WORK_GATE_FAIL — directional inversion\n").as_deref(),
        Some("MUST_WORK_GATE_FAIL")
    );
    assert_eq!(
        cat("- **Gate Type:** SHOULD_WORK\n- **Gate Result:** fail\n").as_deref(),
        Some("SHOULD_WORK_FAIL")
    );
    assert_eq!(
        cat("**Category:** design flaw\n**Failure Type:** X\n").as_deref(),
        Some("DESIGN_FLAW")
    );
    assert_eq!(cat("# nothing\n"), None);
    assert_eq!(parse("failure_h-x_run1", "x").provenance, None);
}
