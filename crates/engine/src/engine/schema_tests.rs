//! Every structured reply's schema against the replies its parser takes and the shapes it
//! must refuse: a wrong enum word, a missing key, a number out of range, a list too long.

use serde_json::{Value, json};

use crate::llm::ReplySchema;
use crate::llm::schema::unsupported_keywords;

fn all() -> Vec<(ReplySchema, Vec<Value>, Vec<Value>)> {
    let candidate = |cat: &str| json!({"description": "d", "category": cat, "evidence": "decay: flat", "fix": "f"});
    let item = |id: &str, kind: &str, gate: &str| json!({"id": id, "type": kind, "statement": "s", "gate": {"type": gate, "criterion": "c"}, "prerequisites": []});
    let criteria = json!({"SPECIFIC": true, "MECHANISM": true, "PREDICTIONS": false, "NOVELTY": true, "FEASIBILITY": true, "OBJECTIONS": false});
    vec![
        (
            super::controller::schema(),
            vec![
                json!({"decision": "PHASE_COMPLETE", "reason": "ok"}),
                json!({"decision": "resume", "reason": "r", "resume_prompt": "p"}),
            ],
            vec![
                json!({"decision": "SHOCKED", "reason": "x"}),
                json!({"reason": "x"}),
            ],
        ),
        (
            super::stages::debate::moderator_schema(),
            vec![json!({"criteria": criteria, "next_persona": "novelty", "reason": "r"})],
            vec![
                json!({"criteria": criteria, "next_persona": "the boss", "reason": "r"}),
                json!({"criteria": {"SPECIFIC": "yes"}, "next_persona": "novelty", "reason": "r"}),
            ],
        ),
        (
            super::stages::debate::synthesis_schema(),
            vec![
                json!({"hypothesis": "h", "mechanism": "m", "predictions": ["p"], "novelty": "n"}),
            ],
            vec![
                json!({"hypothesis": "h", "predictions": ["p"]}),
                json!({"hypothesis": "h", "mechanism": "m", "predictions": []}),
            ],
        ),
        (
            super::stages::debate::refinement_schema(),
            vec![
                json!({"main_hypothesis": {"statement": "s", "id": "H-1"}, "predictions": ["p"], "falsification": "f"}),
            ],
            vec![json!({"main_hypothesis": "s", "predictions": ["p"], "falsification": "f"})],
        ),
        (
            super::stages::planning::schema(),
            vec![
                json!({"sub_hypotheses": [item("h-e1", "EXISTENCE", "MUST_WORK"), item("h-m1", "mechanism", "SHOULD_WORK"), item("h-c1", "CONDITION", "should work")]}),
            ],
            vec![
                json!({"sub_hypotheses": [item("h-e1", "GUESS", "MUST_WORK"), item("h-m1", "MECHANISM", "MUST_WORK"), item("h-c1", "CONDITION", "MUST_WORK")]}),
                json!({"sub_hypotheses": [item("h-e1", "EXISTENCE", "MUST_WORK")]}),
            ],
        ),
        (
            super::stages::implementation::schema(),
            vec![
                json!({"tasks": [{"id": "T1", "title": "t", "spec_section": "Model", "test_first": false}], "prd": "p", "architecture": "a", "logic": "l", "config": "c"}),
            ],
            vec![
                json!({"tasks": [], "prd": "p", "architecture": "a", "logic": "l", "config": "c"}),
                json!({"tasks": [{"id": "T1"}], "prd": "p", "architecture": "a", "logic": "l", "config": "c"}),
            ],
        ),
        (
            super::stages::coding::code_schema(),
            vec![
                json!({"files": [{"path": "a.py", "content": "print(1)"}], "command": ["python3", "a.py"]}),
            ],
            vec![
                json!({"files": [{"path": "a.py"}], "command": ["python3"]}),
                json!({"files": [{"path": "a.py", "content": ""}], "command": []}),
            ],
        ),
        (
            super::stages::coding_write::fabrication_schema(),
            vec![
                json!({"consistent": true, "findings": []}),
                json!({"consistent": false, "findings": [{"file": "a.py", "line": 3, "problem": "literal"}]}),
            ],
            vec![
                json!({"consistent": "yes", "findings": []}),
                json!({"consistent": false}),
            ],
        ),
        (
            super::stages::review::findings_schema(),
            vec![
                json!({"findings": []}),
                json!({"findings": [{"severity": "minor", "claim": "c", "problem": "p", "fix": "f"}]}),
            ],
            vec![json!({"findings": [{"severity": "FATAL", "claim": "c", "problem": "p"}]})],
        ),
        (
            crate::reflect::attribution::generator_schema(),
            vec![
                json!({"candidates": [candidate("Method"), candidate("design"), candidate("Method")]}),
            ],
            vec![
                json!({"candidates": [candidate("Mood"), candidate("Design"), candidate("Method")]}),
                json!({"candidates": [candidate("Method")]}),
                json!({"candidates": (0..6).map(|_| candidate("Method")).collect::<Vec<_>>()}),
            ],
        ),
        (
            crate::reflect::attribution::critic_schema(),
            vec![
                json!({"scores": [{"candidate": 1, "severity": 0.7}, {"candidate": 2, "severity": 0.2, "category": "Design"}, {"candidate": 3, "severity": 0}]}),
            ],
            vec![
                json!({"scores": [{"candidate": 1, "severity": 1.7}, {"candidate": 2, "severity": 0.2}, {"candidate": 3, "severity": 0.1}]}),
                json!({"scores": [{"candidate": 0, "severity": 0.5}, {"candidate": 2, "severity": 0.2}, {"candidate": 3, "severity": 0.1}]}),
            ],
        ),
        (
            super::recovery::verdict_schema(),
            vec![
                json!({"verdict": "Valid", "kappa": 0.55}),
                json!({"verdict": "NotValid", "kappa": 1, "reason": "r"}),
            ],
            vec![
                json!({"verdict": "maybe", "kappa": 0.5}),
                json!({"verdict": "valid", "kappa": -0.1}),
                json!({"verdict": "valid"}),
            ],
        ),
        (
            super::plan_search::expansion_schema(3),
            vec![json!({"children": [{"plan": "p", "prior": {"estimate": 0.4, "risks": ["r"]}}]})],
            vec![
                json!({"children": []}),
                json!({"children": [{"plan": "p", "prior": {"estimate": 1.4}}]}),
            ],
        ),
    ]
}

#[test]
fn every_schema_takes_good_replies_and_refuses_bad_ones() {
    for (schema, good, bad) in all() {
        assert!(
            unsupported_keywords(&schema.schema).is_empty(),
            "{}: {:?}",
            schema.name,
            unsupported_keywords(&schema.schema)
        );
        for mut g in good {
            let shown = g.to_string();
            schema
                .check(&mut g)
                .unwrap_or_else(|e| panic!("{} refused {shown}: {e}", schema.name));
        }
        for mut b in bad {
            let shown = b.to_string();
            assert!(
                schema.check(&mut b).is_err(),
                "{} took {shown}",
                schema.name
            );
        }
    }
}

#[test]
fn checked_replies_are_what_the_parsers_read() {
    // The folded words reach the parsers in the spelling they match on.
    let schema = super::controller::schema();
    let mut v = json!({"decision": "must-stop", "reason": "no data"});
    schema.check(&mut v).unwrap();
    assert_eq!(
        super::controller::parse_decision(&v.to_string()),
        Ok(super::controller::Decision::MustStop {
            reason: "no data".into()
        })
    );
    let mut plan = json!({"sub_hypotheses": [
        {"id": "h-e1", "type": "existence", "statement": "s", "gate": {"type": "must work", "criterion": "c"}, "prerequisites": []},
        {"id": "h-m1", "type": "MECHANISM", "statement": "s", "gate": {"type": "SHOULD_WORK", "criterion": "c"}, "prerequisites": ["h-e1"]},
        {"id": "h-c1", "type": "CONDITION", "statement": "s", "gate": {"type": "SHOULD_WORK", "criterion": "c"}, "prerequisites": ["h-e1"]}
    ]});
    super::stages::planning::schema().check(&mut plan).unwrap();
    assert!(super::stages::planning::validate(&plan).is_ok());
}
