//! Property: any sequence of valid edits keeps the file readable, reads back every value,
//! and leaves exactly one history entry and one revision per edit.

use crate::common;

use common::*;
use proptest::prelude::*;
use youra::vsa::path::{Resolved, VsaPath, resolve};
use youra::vsa::{SetRequest, Store};

#[derive(Debug, Clone)]
enum Edit {
    Text(&'static str, String),
    Enum(&'static str, &'static str),
    Number(&'static str, i64),
}

const TEXT_FIELDS: &[&str] = &[
    "workflow.next_action",
    "workflow.current_phase",
    "sub_hypotheses.h-m2.statement",
    "main_hypothesis.statement",
    "metadata.project_name",
    "workflow.pending_escalation.proposed_action",
];

fn edit() -> impl Strategy<Value = Edit> {
    // Strings full of YAML syntax: quotes, colons, hashes, dashes, brackets, unicode, newlines.
    let text =
        proptest::string::string_regex("[a-zA-Z0-9 :#'\"\\-\\[\\]{}>|*&!%@,?.\\\\ßé→\n\t]{0,40}")
            .unwrap();
    prop_oneof![
        (proptest::sample::select(TEXT_FIELDS), text).prop_map(|(p, t)| Edit::Text(p, t)),
        proptest::sample::select(&["MUST_WORK", "SHOULD_WORK", "DETERMINES_SUCCESS"][..])
            .prop_map(|v| Edit::Enum("sub_hypotheses.h-m2.gate.type", v)),
        proptest::sample::select(&["ACTIVE", "PAUSED", "AWAITING_APPROVAL", "STOPPED"][..])
            .prop_map(|v| Edit::Enum("workflow.status", v)),
        (-1000i64..100_000).prop_map(|n| Edit::Number("statistics.total_sub_hypotheses", n)),
    ]
}

fn read_back(store: &Store, path: &str) -> Option<String> {
    let snap = store.load().expect("file reads after every edit");
    let root = snap.doc.root.as_ref()?;
    match resolve(root, &VsaPath::parse(path).ok()?) {
        Ok(Resolved::Found(n)) => n
            .as_scalar()
            .filter(|s| !s.is_null())
            .map(|s| s.text.clone()),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_valid_edits_keep_the_file_sound(edits in proptest::collection::vec(edit(), 1..8)) {
        let (_dir, vsa) = temp_copy(&example_run().join("verification_state.yaml"));
        let store = Store::new(&vsa);
        let start = store.load().unwrap().vsa.clone();
        let mut writes = 0u64;
        for e in &edits {
            let (path, value) = match e {
                Edit::Text(p, t) => (*p, t.clone()),
                Edit::Enum(p, v) => (*p, v.to_string()),
                Edit::Number(p, n) => (*p, n.to_string()),
            };
            let req = SetRequest { path, value: &value, reason: "proptest", actor: "prop", force: false, create: true, base: None };
            let applied = store.set(&req).map_err(|err| TestCaseError::fail(format!("{path} = {value:?}: {err}")))?;
            if !applied.unchanged {
                writes += 1;
            }
            let expected = match e { Edit::Number(_, n) => n.to_string(), _ => value.clone() };
            let got = read_back(&store, path);
            // An empty string is written as '' and reads back as the empty string.
            prop_assert_eq!(got.unwrap_or_default(), expected, "{} read back", path);
        }
        let end = store.load().unwrap().vsa.clone();
        prop_assert_eq!(end.revision, start.revision + writes);
        prop_assert_eq!(end.history.len() as u64, start.history.len() as u64 + writes);
        let recorded = end.history.since(start.history.len()).filter(|h| h.actor.as_deref() == Some("prop")).count() as u64;
        prop_assert_eq!(recorded, writes);
    }
}
