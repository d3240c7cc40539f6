//! Files as editors and other tools leave them: a byte-order mark, CRLF line ends, a
//! symlinked VSA, a NUL byte. youra keeps the file's conventions and says what is wrong.

use crate::common;

use common::*;
use youra::vsa::store::Store;

#[test]
fn a_bom_and_crlf_line_ends_survive_every_write() {
    let (_d, run) = temp_run(&example_run());
    let vsa = run.join("verification_state.yaml");
    let text = std::fs::read_to_string(&vsa).unwrap().replace('\n', "\r\n");
    std::fs::write(&vsa, format!("\u{feff}{text}")).unwrap();
    let store = Store::new(&vsa);
    set_field(&store, "workflow.next_action", "first");
    let a = set_field(&store, "workflow.next_action", "second");
    assert_eq!(
        a.editor_changes, 0,
        "youra's own CRLF write is not a hand edit"
    );
    let bytes = std::fs::read(&vsa).unwrap();
    assert!(bytes.starts_with("\u{feff}".as_bytes()), "the BOM is kept");
    let lone_lf = bytes
        .windows(2)
        .filter(|w| w[1] == b'\n' && w[0] != b'\r')
        .count();
    assert_eq!(lone_lf, 0, "appended history lines are CRLF too");
    let snap = store.load().unwrap();
    assert_eq!(snap.vsa.workflow.next_action.as_deref(), Some("second"));
    assert_eq!(snap.vsa.revision, 9);
}

#[test]
fn a_symlinked_vsa_stays_a_link() {
    let (_d, run) = temp_run(&example_run());
    let real = run.join("kept/verification_state.yaml");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::rename(run.join("verification_state.yaml"), &real).unwrap();
    std::os::unix::fs::symlink(
        "kept/verification_state.yaml",
        run.join("verification_state.yaml"),
    )
    .unwrap();
    let store = Store::new(run.join("verification_state.yaml"));
    set_field(&store, "workflow.next_action", "through the link");
    let meta = std::fs::symlink_metadata(run.join("verification_state.yaml")).unwrap();
    assert!(
        meta.file_type().is_symlink(),
        "not replaced by a regular file"
    );
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .contains("through the link")
    );
}

#[test]
fn a_nul_byte_is_named_as_such() {
    let (_d, run) = temp_run(&example_run());
    let vsa = run.join("verification_state.yaml");
    let mut bytes = std::fs::read(&vsa).unwrap();
    let at = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes.insert(at, 0);
    std::fs::write(&vsa, &bytes).unwrap();
    let o = youra(&["vsa", "validate", run.to_str().unwrap()]);
    let (out, err) = text(&o);
    let all = format!("{out}{err}");
    assert_eq!(o.status.code(), Some(1));
    assert!(all.contains(":2:1:") && all.contains("NUL byte"), "{all}");
    assert!(!all.contains("tabs"), "not a tab problem: {all}");
}

#[test]
fn orphan_temp_files_of_killed_writers_are_removed_under_the_lock() {
    let (_d, run) = temp_run(&example_run());
    let orphan = run.join(".verification_state.yaml.99999.0.tmp");
    std::fs::write(&orphan, "half a file").unwrap();
    let other = run.join(".tree.json.99999.0.tmp");
    std::fs::write(&other, "not ours").unwrap();
    let store = Store::new(run.join("verification_state.yaml"));
    set_field(&store, "workflow.next_action", "x");
    assert!(!orphan.exists(), "the VSA's orphan is gone");
    assert!(
        other.exists(),
        "another file's temp is not the store's to remove"
    );
}

#[test]
fn a_lock_held_by_a_stopped_process_is_named_not_waited_for() {
    let (_d, run) = temp_run(&example_run());
    let store = Store::new(run.join("verification_state.yaml"));
    set_field(&store, "workflow.next_action", "x");
    let mut holder = hold_lock(&run, "30");
    // Stop it as ^Z would.
    unsafe { libc::kill(holder.id() as i32, libc::SIGSTOP) };
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args([
            "vsa",
            "set",
            run.to_str().unwrap(),
            "workflow.next_action",
            "y",
        ])
        .args(["--reason", "r"])
        .env("YOURA_LOCK_TIMEOUT_S", "0.5")
        .output()
        .unwrap();
    unsafe { libc::kill(holder.id() as i32, libc::SIGKILL) };
    let _ = holder.wait();
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("pid {} (stopped)", holder.id())) && err.contains("kill -CONT"),
        "{err}"
    );
    assert_eq!(
        store.load().unwrap().vsa.workflow.next_action.as_deref(),
        Some("x"),
        "nothing written"
    );
}

#[test]
fn a_ten_level_alias_bomb_and_deep_nesting_fail_fast_in_bounded_memory() {
    let (_d, run) = temp_run(&example_run());
    let vsa = run.join("verification_state.yaml");
    let clean = std::fs::read_to_string(&vsa).unwrap();
    let mut bomb = format!("{clean}bomb:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        let refs = vec![format!("*l{p}"); 10].join(", ");
        bomb.push_str(&format!("  l{i}: &l{i} [{refs}]\n"));
    }
    let deep = format!("{clean}deep: {}{}\n", "[".repeat(300), "]".repeat(300));
    for (what, yaml) in [("10-level alias bomb", bomb), ("300 nested lists", deep)] {
        std::fs::write(&vsa, &yaml).unwrap();
        // Under a 512 MB address-space limit: an expanding parser would be killed or abort.
        let script = format!(
            "ulimit -v 524288; exec {} vsa validate {}",
            env!("CARGO_BIN_EXE_youra"),
            run.display()
        );
        let t = std::time::Instant::now();
        let o = std::process::Command::new("sh")
            .args(["-c", &script])
            .output()
            .unwrap();
        let (out, err) = text(&o);
        assert!(t.elapsed().as_secs_f64() < 5.0, "{what}: {:?}", t.elapsed());
        assert_eq!(o.status.code(), Some(1), "{what}: {out}{err}");
        assert!(
            out.contains("verification_state.yaml:")
                && (out.contains("alias") || out.contains("nest")),
            "{what}: {out}{err}"
        );
    }
}

#[test]
fn a_writer_that_waits_over_a_second_says_who_holds_the_lock_and_goes_on() {
    let (_d, run) = temp_run(&example_run());
    let store = Store::new(run.join("verification_state.yaml"));
    set_field(&store, "workflow.next_action", "x");
    let mut holder = hold_lock(&run, "2");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args([
            "vsa",
            "set",
            run.to_str().unwrap(),
            "workflow.next_action",
            "y",
        ])
        .args(["--reason", "r"])
        .output()
        .unwrap();
    let _ = holder.wait();
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("waiting for the VSA lock") && err.contains(&format!("pid {}", holder.id())),
        "{err}"
    );
    assert_eq!(
        err.matches("waiting for the VSA lock").count(),
        1,
        "said once: {err}"
    );
    assert_eq!(
        store.load().unwrap().vsa.workflow.next_action.as_deref(),
        Some("y")
    );
}

/// Another process (`flock … sleep <secs>`) holding the run's VSA lock, its pid written in
/// the lock file as a youra writer would; returned once it holds the lock.
fn hold_lock(run: &std::path::Path, secs: &str) -> std::process::Child {
    let lock = run.join(".youra/vsa.lock");
    let holder = std::process::Command::new("flock")
        .arg(&lock)
        .args(["sleep", secs])
        .spawn()
        .expect("flock (util-linux) runs");
    let t = std::time::Instant::now();
    while std::fs::File::open(&lock).unwrap().try_lock().is_ok() {
        assert!(t.elapsed().as_secs() < 10, "flock never took the lock");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::fs::write(&lock, format!("{}\n", holder.id())).unwrap();
    holder
}

/// The example VSA broken as agents break it: (name, broken text).
fn agent_breakages(good: &str) -> Vec<(&'static str, String)> {
    let last_item =
        &good[good.rfind("- event: field_edit").unwrap()..good.find("statistics:").unwrap()];
    let stray = good.replace(last_item, "") + last_item;
    let block = "    gate:\n      type: MUST_WORK\n      satisfied: true\n      result: PASS\n";
    assert!(good.contains(block));
    let deeper: String = block.lines().map(|l| format!("    {l}\n")).collect();
    let spliced = good.replacen(block, &deeper, 1);
    vec![("stray history", stray), ("spliced block", spliced)]
}

#[test]
fn vsa_repair_undoes_agent_breakage_only_with_write_and_keeps_a_backup() {
    let good = std::fs::read_to_string(example_run().join("verification_state.yaml")).unwrap();
    for (name, broken) in agent_breakages(&good) {
        let (_d, run) = temp_run(&example_run());
        let vsa = run.join("verification_state.yaml");
        std::fs::write(&vsa, &broken).unwrap();
        let v = youra(&["vsa", "validate", vsa.to_str().unwrap()]);
        assert_eq!(v.status.code(), Some(1), "{name}: the breakage is real");
        // Proposed, not written.
        let o = youra(&["vsa", "repair", vsa.to_str().unwrap()]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{name}: {err}");
        assert!(
            out.contains("--write") && out.contains("@@"),
            "{name}: {out}"
        );
        assert_eq!(std::fs::read_to_string(&vsa).unwrap(), broken, "{name}");
        // The diff touches only the moved lines: every changed line is one of the broken ones.
        let changed: Vec<&str> = out
            .lines()
            .filter(|l| {
                (l.starts_with('-') || l.starts_with('+'))
                    && !l.starts_with("---")
                    && !l.starts_with("+++")
            })
            .map(|l| l[1..].trim())
            .collect();
        let moved: Vec<&str> = broken
            .lines()
            .filter(|l| !good.contains(&format!("\n{l}\n")))
            .map(str::trim)
            .collect();
        assert!(
            changed
                .iter()
                .all(|c| moved.contains(c) || good.lines().any(|g| g.trim() == *c)),
            "{name}: {out}"
        );
        let o = youra(&["vsa", "repair", vsa.to_str().unwrap(), "--write"]);
        assert!(o.status.success(), "{name}: {:?}", text(&o));
        assert_eq!(
            std::fs::read_to_string(&vsa).unwrap(),
            good,
            "{name}: restored"
        );
        assert_eq!(
            std::fs::read_to_string(run.join("verification_state.yaml.bak")).unwrap(),
            broken,
            "{name}: the backup"
        );
        let v = youra(&["vsa", "validate", vsa.to_str().unwrap()]);
        assert_eq!(v.status.code(), Some(0), "{name}: {:?}", text(&v));
    }
    // Another break: named with line:col, nothing changed.
    let (_d, run) = temp_run(&example_run());
    let vsa = run.join("verification_state.yaml");
    let other = good.replacen("revision: 7", "revision: [7", 1);
    std::fs::write(&vsa, &other).unwrap();
    let o = youra(&["vsa", "repair", vsa.to_str().unwrap(), "--write"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("not one of the shapes") && err.contains(":"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&vsa).unwrap(), other);
    assert!(!run.join("verification_state.yaml.bak").exists());
}
