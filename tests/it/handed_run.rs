//! A handed run folder is data (issue 39, item 4), from the attacker's side: someone gives
//! the researcher a run folder whose plan packets, per-node repositories and `youra.toml`
//! were written to run something here. `youra plan diff` with a packet `commit` of
//! `--output=<file>` writes no file; `plan checkout`, `plan diff` and a resumed node commit
//! run none of the repository's filters, diff drivers, hooks, fsmonitor or pager; `youra
//! replay` keeps neither `[notify]` command nor webhook and copies nothing through a linked
//! `data/`. Real binaries, real git, real files; every attack leaves a mark when it works.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use common::script::{SCOPING, Script, replay_run};
use youra::plan::NodeId;
use youra::plan::node_code::{self, ObjectId, Repo};

/// The example run with n-0001 of h-e1 committed from `files` (path under `code/`, text).
fn run_with_code(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, ObjectId) {
    let (g, run) = common::temp_run(&common::example_run());
    let code = run.join("h-e1/code");
    let _ = std::fs::remove_dir_all(&code);
    for (rel, text) in files {
        let p = code.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let repo = Repo::open(&run, "h-e1").unwrap();
    let argv = ["python3".to_string(), "train.py".to_string()];
    let done = repo
        .commit_node(
            &NodeId::new("n-0001").unwrap(),
            None,
            None,
            "# Plan\n",
            Some(&argv),
        )
        .unwrap();
    (g, run, done.commit)
}

fn packet_path(run: &Path) -> PathBuf {
    run.join("plan/nodes/n-0001/packet.json")
}

fn set_packet_commit(run: &Path, value: &str) {
    let path = packet_path(run);
    let mut packet: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    packet["commit"] = serde_json::Value::String(value.to_string());
    std::fs::write(&path, serde_json::to_vec_pretty(&packet).unwrap()).unwrap();
}

#[test]
fn a_packet_commit_that_is_a_git_option_writes_no_file() {
    let (g, run, _) = run_with_code(&[("train.py", "acc = 0.93\n")]);
    let target = g.path().join("overwritten");
    for value in [
        format!("--output={}", target.display()),
        "HEAD~1".to_string(),
        "4b825dc642cb6eb9a060e54bf8d69288fbee490".to_string(),
    ] {
        set_packet_commit(&run, &value);
        let r = run.to_str().unwrap();
        let out = common::youra(&["plan", "diff", r, "h-e1", "n-0001"]);
        let (stdout, stderr) = common::text(&out);
        assert_eq!(out.status.code(), Some(1), "{value}: {stdout}{stderr}");
        assert!(
            stderr.contains("plan/nodes/n-0001/packet.json") && stderr.contains("`commit`"),
            "the error names the packet file and field: {stderr}"
        );
        assert!(!target.exists(), "{value}: git wrote no file");
        let into = g.path().join("checkout");
        let out = common::youra(&[
            "plan",
            "checkout",
            r,
            "h-e1",
            "n-0001",
            "--into",
            into.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1), "checkout refuses too");
        assert!(!target.exists());
        assert!(!into.exists(), "nothing written");
    }
}

/// A handed repository's own config and attributes, each naming a command that leaves
/// `mark/<name>` when it runs.
fn arm(repo: &Path, mark: &Path) {
    std::fs::create_dir_all(mark).unwrap();
    let touch = |name: &str| format!("touch {}", mark.join(name).display());
    let mut config = std::fs::OpenOptions::new()
        .append(true)
        .open(repo.join("config"))
        .unwrap();
    write!(
        config,
        "[filter \"x\"]\n\tsmudge = \"{}; cat\"\n\tclean = \"{}; cat\"\n\tprocess = \"{}\"\n\trequired = true\n\
         [diff \"x\"]\n\ttextconv = \"{}; cat\"\n\tcommand = \"{}\"\n\
         [diff]\n\texternal = \"{}\"\n\
         [core]\n\tfsmonitor = \"{}\"\n\tpager = \"{}\"\n\thooksPath = {}\n",
        touch("smudge"),
        touch("clean"),
        touch("process"),
        touch("textconv"),
        touch("diff-command"),
        touch("diff-external"),
        touch("fsmonitor"),
        touch("pager"),
        repo.join("evil-hooks").display(),
    )
    .unwrap();
    let hooks = repo.join("evil-hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    for hook in ["reference-transaction", "post-index-change", "pre-commit"] {
        let p = hooks.join(hook);
        std::fs::write(&p, format!("#!/bin/sh\n{}\n", touch(hook))).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::create_dir_all(repo.join("info")).unwrap();
    std::fs::write(repo.join("info/attributes"), "* filter=x diff=x\n").unwrap();
}

fn marks(mark: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(mark)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_handed_repositorys_filters_drivers_and_hooks_run_nothing() {
    let attributes = "* filter=x diff=x\n";
    let (g, run, commit) =
        run_with_code(&[(".gitattributes", attributes), ("train.py", "acc = 0.93\n")]);
    let repo = Repo::existing(&run, "h-e1").unwrap();
    let mark = g.path().join("mark");
    arm(repo.git_dir(), &mark);
    // The mark is real: plain git on this repository runs the smudge filter.
    let probe = g.path().join("probe");
    std::fs::create_dir_all(&probe).unwrap();
    let o = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(repo.git_dir())
        .arg("--work-tree")
        .arg(&probe)
        .args(["checkout", "-f", commit.as_str(), "--", "."])
        .env("GIT_INDEX_FILE", g.path().join("probe-index"))
        .output()
        .unwrap();
    assert!(
        marks(&mark).contains(&"smudge".to_string())
            || marks(&mark).contains(&"process".to_string()),
        "plain git runs the handed filter (else this test proves nothing): {:?} {}",
        marks(&mark),
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::remove_dir_all(&mark).unwrap();
    std::fs::create_dir_all(&mark).unwrap();
    set_packet_commit(&run, commit.as_str());
    let r = run.to_str().unwrap();
    let into = g.path().join("checkout");
    let out = common::youra(&[
        "plan",
        "checkout",
        r,
        "h-e1",
        "n-0001",
        "--into",
        into.to_str().unwrap(),
    ]);
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert_eq!(
        std::fs::read_to_string(into.join("code/train.py")).unwrap(),
        "acc = 0.93\n",
        "the blob's bytes, as data"
    );
    assert_eq!(
        std::fs::read_to_string(into.join("code/.gitattributes")).unwrap(),
        attributes
    );
    let out = common::youra(&["plan", "diff", r, "h-e1", "n-0001"]);
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("+acc = 0.93"),
        "the diff as stored: {stdout}"
    );
    // A resumed run commits the node again over the handed repository.
    std::fs::write(run.join("h-e1/code/train.py"), "acc = 0.94\n").unwrap();
    let again = repo
        .commit_node(
            &NodeId::new("n-0001").unwrap(),
            None,
            None,
            "# Plan\n",
            None,
        )
        .unwrap();
    let files: std::collections::BTreeMap<_, _> =
        repo.files(&again.commit).unwrap().into_iter().collect();
    assert_eq!(files["code/train.py"], b"acc = 0.94\n", "no clean filter");
    repo.start_from(Some(&again.commit)).unwrap();
    repo.restore(&again.commit).unwrap();
    assert_eq!(
        marks(&mark),
        Vec::<String>::new(),
        "no filter, driver, hook, fsmonitor or pager ran"
    );
}

#[test]
fn a_repository_that_includes_a_fifo_or_borrows_objects_is_refused_at_once() {
    let (g, run, commit) = run_with_code(&[("train.py", "acc = 0.93\n")]);
    set_packet_commit(&run, commit.as_str());
    let git_dir = Repo::existing(&run, "h-e1")
        .unwrap()
        .git_dir()
        .to_path_buf();
    let fifo = g.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let config = git_dir.join("config");
    let plain = std::fs::read_to_string(&config).unwrap();
    let r = run.to_str().unwrap().to_string();
    type Arm<'a> = Box<dyn Fn() + 'a>;
    let attacks: [(&str, Arm<'_>); 3] = [
        (
            "includes other files",
            Box::new(|| {
                std::fs::write(
                    &config,
                    format!("{plain}[ Include ]\n\tpath = {}\n", fifo.display()),
                )
                .unwrap()
            }),
        ),
        (
            "its config cannot be read as a plain file",
            Box::new(|| {
                std::fs::remove_file(&config).unwrap();
                std::os::unix::fs::symlink(&fifo, &config).unwrap();
            }),
        ),
        (
            "objects/info/alternates",
            Box::new(|| {
                let _ = std::fs::remove_file(&config);
                std::fs::write(&config, &plain).unwrap();
                std::fs::create_dir_all(git_dir.join("objects/info")).unwrap();
                std::fs::write(git_dir.join("objects/info/alternates"), "/tmp\n").unwrap();
            }),
        ),
    ];
    for (why, arm) in attacks {
        arm();
        let started = std::time::Instant::now();
        let out = common::youra(&["plan", "diff", &r, "h-e1", "n-0001"]);
        let (stdout, stderr) = common::text(&out);
        assert_eq!(out.status.code(), Some(1), "{why}: {stdout}{stderr}");
        assert!(stderr.contains(why), "{why}: {stderr}");
        assert!(started.elapsed().as_secs() < 20, "{why}: refused at once");
    }
}

#[test]
fn a_tree_entry_that_leaves_the_folder_is_not_written() {
    let (g, run, _) = run_with_code(&[("train.py", "acc = 0.93\n")]);
    let repo = Repo::existing(&run, "h-e1").unwrap();
    let git = |args: &[&str], stdin: &[u8]| {
        let mut c = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(repo.git_dir())
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        c.stdin.take().unwrap().write_all(stdin).unwrap();
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "git {args:?}");
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    let blob = git(&["hash-object", "-w", "--stdin"], b"planted\n");
    // A tree with `..` and `.git` entries, written as raw objects (git's own tools refuse).
    let raw_tree = |entries: &[(&str, &str, &str)]| {
        let mut bytes = Vec::new();
        for (mode, name, oid) in entries {
            bytes.extend_from_slice(format!("{mode} {name}\0").as_bytes());
            for i in 0..20 {
                bytes.push(u8::from_str_radix(&oid[2 * i..2 * i + 2], 16).unwrap());
            }
        }
        git(
            &["hash-object", "-w", "-t", "tree", "--literally", "--stdin"],
            &bytes,
        )
    };
    let inner = raw_tree(&[("100644", "hooks", &blob)]);
    let top = raw_tree(&[("100644", "..", &blob), ("40000", ".git", &inner)]);
    let commit = git(&["commit-tree", &top, "-m", "x"], b"");
    set_packet_commit(&run, &commit);
    let into = g.path().join("checkout/inner");
    let out = common::youra(&[
        "plan",
        "checkout",
        run.to_str().unwrap(),
        "h-e1",
        "n-0001",
        "--into",
        into.to_str().unwrap(),
    ]);
    let (stdout, stderr) = common::text(&out);
    assert!(
        stdout.contains("not written: ..") && stdout.contains("not written: .git/hooks"),
        "{stdout}{stderr}"
    );
    assert!(!g.path().join("checkout/planted").exists());
    assert!(!into.join(".git").exists());
}

fn run_to_stop(dir: &Path) {
    let options = youra::engine::Options {
        exit_when_paused: true,
        ..Default::default()
    };
    let mut e = youra::engine::Engine::open(dir, options).expect("engine opens");
    let _ = e.run().expect("runs");
}

#[test]
fn a_replay_runs_no_notice_command_posts_nowhere_and_follows_no_data_link() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("notified");
    let (url, hits) = common::listener();
    let secret_dir = tmp.path().join("home-of-the-recipient");
    std::fs::create_dir_all(&secret_dir).unwrap();
    let key = "sk-RECIPIENTS-OWN-KEY-0123456789";
    std::fs::write(secret_dir.join("api_key.txt"), key).unwrap();
    let mut s = Script::default();
    s.reply("executor", "problem_scoping", None, 1, SCOPING)
        .reply(
            "controller",
            "problem_scoping",
            None,
            1,
            r#"{"decision":"MUST_STOP","reason":"end of test"}"#,
        );
    let command = format!("echo ran >> '{}'", marker.display());
    let (_g, a) = replay_run(
        &s,
        &format!(
            "semantic_scholar_url = \"{url}\"\n\n[notify]\ncommand = [\"sh\", \"-c\", {command:?}]\nwebhook = \"{url}\"\ntimeout_s = 2\n"
        ),
    );
    run_to_stop(&a);
    assert!(
        marker.exists(),
        "the recorded run's notice command ran there"
    );
    let before = hits.load(Ordering::SeqCst);
    assert!(before >= 1, "the recorded run posted to its webhook");
    std::fs::remove_file(&marker).unwrap();
    // The recorded run's data/ is a link to the recipient's own folder.
    let _ = std::fs::remove_dir_all(a.join("data"));
    std::os::unix::fs::symlink(&secret_dir, a.join("data")).unwrap();

    let b = tmp.path().join("b");
    let out = common::youra(&["replay", a.to_str().unwrap(), b.to_str().unwrap()]);
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for named in [
        "[notify] command: runs `sh -c echo ran >>",
        "[notify] webhook: posts the run's notices to http://127.0.0.1:",
        "[engine] semantic_scholar_url: sends literature searches",
        "data: a link to",
    ] {
        assert!(stdout.contains(named), "{named}:\n{stdout}");
    }
    let copied = std::fs::read_to_string(b.join("youra.toml")).unwrap();
    let table: toml::Table = toml::from_str(&copied).unwrap();
    assert!(
        !copied.contains(&url) && table.get("notify").is_none(),
        "{copied}"
    );
    assert!(
        std::fs::symlink_metadata(b.join("data")).is_err(),
        "no data link in the copy"
    );
    let mut stack = vec![b.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let t = e.file_type().unwrap();
            assert!(
                !t.is_symlink(),
                "no link in the copy: {}",
                e.path().display()
            );
            if t.is_dir() {
                stack.push(e.path());
            } else {
                let bytes = std::fs::read(e.path()).unwrap();
                assert!(
                    !String::from_utf8_lossy(&bytes).contains(key),
                    "the key reached {}",
                    e.path().display()
                );
            }
        }
    }
    run_to_stop(&b);
    assert!(!marker.exists(), "the copy ran no notice command");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        hits.load(Ordering::SeqCst),
        before,
        "the copy posted nothing"
    );
}

#[test]
fn node_code_locate_names_the_packet_for_a_bad_commit() {
    let (_g, run, _) = run_with_code(&[("train.py", "x\n")]);
    set_packet_commit(&run, "--output=/tmp/never");
    let t = youra::plan::load(&run, youra::plan::Plans::Skip)
        .unwrap()
        .tree;
    let err = node_code::locate(&run, &t, &NodeId::new("n-0001").unwrap()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("plan/nodes/n-0001/packet.json: field `commit`: \"--output=/tmp/never\" is not a git object id"),
        "{err}"
    );
}
