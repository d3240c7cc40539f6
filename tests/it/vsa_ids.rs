//! Ids are names, never paths (issue 32, item 7): a sub-hypothesis id that is absolute,
//! climbs out (`..`), holds a separator, a dot or a newline is refused by `youra vsa set`
//! (even with `--force`), reported as an error by `youra vsa validate`, and stops the
//! engine, naming the id and the rule, before it makes a folder of it.

use crate::common;

use common::script::{Script, replay_run};
use common::*;
use youra::engine::RunEnd;
use youra::vsa::Store;

/// Unsafe ids, each with the words the refusal must use for it.
const UNSAFE: &[(&str, &str)] = &[
    ("/abs/dir", "absolute path"),
    ("../escape", "path separator"),
    ("..", "`..`"),
    (".", "`.`"),
    ("a/b", "path separator"),
    ("a\\b", "path separator"),
    (".hidden", "starts with a dot"),
    ("h.1", "holds a `.`"),
    ("h\n1", "control character"),
];

fn run_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    temp_run(&example_run())
}

#[test]
fn vsa_set_refuses_every_unsafe_id_even_forced() {
    let (_d, run) = run_dir();
    let vsa = run.join("verification_state.yaml");
    let before = std::fs::read(&vsa).unwrap();
    for &(id, why) in UNSAFE {
        for force in [false, true] {
            let path = format!("sub_hypotheses.\"{id}\".statement");
            let mut args = vec!["vsa", "set", "--create"];
            if force {
                args.push("--force");
            }
            args.extend([run.to_str().unwrap(), &path, "a new claim", "--reason", "t"]);
            let o = youra(&args);
            let (out, err) = text(&o);
            let all = format!("{out}{err}");
            assert_ne!(o.status.code(), Some(0), "{id:?} force={force}: {all}");
            let shown = id.escape_debug().to_string();
            assert!(
                all.contains(&format!("sub-hypothesis id `{shown}` refused")) && all.contains(why),
                "{id:?} force={force}: {all}"
            );
            assert!(all.contains("safe-id"), "{id:?}: {all}");
            assert_eq!(
                std::fs::read(&vsa).unwrap(),
                before,
                "{id:?}: the file changed"
            );
        }
    }
    // The same command with a plain name works: the refusal is the id's, not the command's.
    let o = youra(&[
        "vsa",
        "set",
        "--create",
        run.to_str().unwrap(),
        "sub_hypotheses.h-new.statement",
        "a new claim",
        "--reason",
        "t",
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(run.parent().is_some_and(|p| !p.join("abs").exists()));
}

/// The example VSA with its `h-m2` renamed by hand to `id` (a YAML double-quoted key).
fn hand_renamed(run: &std::path::Path, id: &str) {
    let vsa = run.join("verification_state.yaml");
    let text = std::fs::read_to_string(&vsa).unwrap();
    let key: String = id.escape_default().collect();
    let edited = text.replacen("\n  h-m2:\n", &format!("\n  \"{key}\":\n"), 1);
    assert_ne!(edited, text, "the example has `h-m2:` as a key");
    std::fs::write(&vsa, edited).unwrap();
    let snap = Store::new(&vsa).load().unwrap();
    assert!(snap.vsa.hypothesis(id).is_some(), "{id:?} reads back");
}

#[test]
fn vsa_validate_names_every_unsafe_id_as_an_error() {
    for &(id, why) in UNSAFE {
        let (_d, run) = run_dir();
        hand_renamed(&run, id);
        let o = youra(&["vsa", "validate", run.to_str().unwrap()]);
        let (out, err) = text(&o);
        let all = format!("{out}{err}");
        assert_eq!(o.status.code(), Some(1), "{id:?}: {all}");
        let shown = id.escape_debug().to_string();
        assert!(
            all.contains(&format!(
                "error: invariant [safe-id] sub-hypothesis id `{shown}` refused"
            )) && all.contains(why),
            "{id:?}: {all}"
        );
        assert!(all.contains("1 unsafe id(s)"), "{id:?}: {all}");
    }
    let (_d, run) = run_dir();
    let o = youra(&["vsa", "validate", run.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
}

#[test]
fn the_engine_stops_on_a_hand_edited_unsafe_id_before_making_its_folder() {
    for id in ["../escape", "/abs-youra-id-test"] {
        let mut s = Script::default();
        s.through_design();
        let (_g, run) = replay_run(&s, "");
        let first = common::script::run_engine(&run, true);
        assert!(matches!(first, RunEnd::Stopped(_)), "{first:?}");
        assert!(run.join("h-e1").is_dir(), "{first:?}");
        // The researcher renames h-e1 by hand (its folder too) and resumes the run.
        let vsa = run.join("verification_state.yaml");
        let store = Store::new(&vsa);
        set_field(&store, "workflow.status", "ACTIVE");
        let text = std::fs::read_to_string(&vsa).unwrap();
        let edited = text.replacen("\n  h-e1:\n", &format!("\n  \"{id}\":\n"), 1);
        assert_ne!(edited, text, "h-e1 is a key of sub_hypotheses");
        std::fs::write(&vsa, edited).unwrap();
        let before: Vec<_> = std::fs::read_dir(run.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.file_name()))
            .collect();
        let end = common::script::run_engine(&run, true);
        let RunEnd::Stopped(reason) = &end else {
            panic!("{id}: expected a stop, got {end:?}")
        };
        assert!(
            reason.contains(&format!("sub-hypothesis id `{id}` refused"))
                && reason.contains("one plain name")
                && reason.contains("rename it"),
            "{id}: {reason}"
        );
        let after: Vec<_> = std::fs::read_dir(run.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.file_name()))
            .collect();
        assert_eq!(before, after, "{id}: a folder was made beside the run");
        assert!(!std::path::Path::new(id).exists(), "{id}: made");
        let snap = store.load().unwrap();
        assert_eq!(
            snap.vsa.workflow.status.as_ref().map(|s| s.as_str()),
            Some("STOPPED")
        );
        assert!(
            snap.vsa
                .workflow
                .stop_reason
                .as_deref()
                .is_some_and(|r| r.contains("refused")),
            "{id}"
        );
        let events = youra::rundir::events::read(&run.join("events.jsonl"));
        assert!(
            events
                .iter()
                .any(|e| e.kind == "stop" && e.message.as_deref().is_some_and(|m| m.contains(id))),
            "{id}: no stop event naming it"
        );
    }
}
