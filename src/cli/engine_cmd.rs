//! `youra run`, `youra demo`, and the engine thread behind `youra tui --run` (`youra init`
//! is `init_cmd.rs`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use color_eyre::eyre::{WrapErr, eyre};

use crate::engine::init::{InitOptions, init};
use crate::engine::{Engine, Options, RunEnd};
use crate::rundir::events::Event;

/// The replay bundle of the offline demo, compiled in so an installed `youra` has it.
pub const DEMO_BUNDLE: &str = include_str!("../../assets/demo/replay.jsonl");
/// The demo's RECORDED literature search (real works' metadata), replayed offline like the
/// model replies: Literature Grounding reads it instead of the network.
pub const DEMO_LITERATURE: &str = include_str!("../../assets/demo/literature.jsonl");
pub const DEMO_TOPIC: &str = include_str!("../../assets/demo/topic.txt");

/// Run the engine in the foreground until the run completes, stops or (optionally) pauses,
/// printing its events (`json`: as JSON lines of `events.jsonl`'s shape, closed by a
/// `run_end` event). Exit 0 on completion, 1 when it stopped, 3 when it paused.
pub fn run_cmd(dir: &Path, detach: bool, until_pause: bool, json: bool) -> color_eyre::Result<i32> {
    if detach {
        return detach_run(dir);
    }
    // Flushed when this returns: the engine's last lines reach the file.
    let _log = crate::logging::init(dir);
    let options = Options {
        exit_when_paused: until_pause,
        ..Options::default()
    };
    let mut engine = Engine::open(dir, options)
        .wrap_err_with(|| format!("cannot start the engine on {}", dir.display()))?;
    // Once the lock is held: a second `youra run` refused above never handles a signal.
    // SIGTERM, SIGINT, SIGHUP end the experiments, write a stop event and exit 128+n.
    crate::engine::signals::install(dir, std::env::var_os("YOURA_DETACHED").is_some())
        .wrap_err("cannot install the signal handlers")?;
    for w in engine.config_warnings() {
        eprintln!("warning: {w}");
    }
    let (tx, rx) = std::sync::mpsc::channel::<Event>();
    engine.events().listen(tx);
    let word = crate::notice::message::shell_word(&dir.display().to_string());
    let printer = std::thread::spawn(move || {
        for e in rx {
            if json {
                println!("{}", serde_json::to_string(&e).unwrap_or_default());
            } else {
                println!("{}", describe(&e));
                // A step's pause (`--step`, `youra steer … step`) says how to go on: this
                // engine waits for the next directive.
                if e.kind == "paused" {
                    println!(
                        "paused; `youra steer {word} step` runs the next stage, \
                         `youra steer {word} resume` runs on (this engine waits for either)"
                    );
                }
            }
        }
    });
    let end = engine.run().wrap_err("the engine failed")?;
    drop(engine);
    let _ = printer.join();
    if json {
        let (result, message, code) = match &end {
            RunEnd::Completed | RunEnd::Cancelled => ("completed", None, 0),
            RunEnd::Stopped(r) => ("stopped", Some(r.clone()), 1),
            RunEnd::Paused => ("paused", None, 3),
        };
        let mut e = Event::new("run_end").result(result);
        if let Some(m) = message {
            e = e.message(m);
        }
        println!("{}", serde_json::to_string(&e)?);
        return Ok(code);
    }
    Ok(report(&end, dir))
}

fn report(end: &RunEnd, dir: &Path) -> i32 {
    match end {
        RunEnd::Completed => {
            println!("run complete");
            0
        }
        RunEnd::Stopped(reason) => {
            println!("MUST_STOP: {reason}");
            1
        }
        RunEnd::Paused => {
            let word = crate::notice::message::shell_word(&dir.display().to_string());
            println!(
                "paused: `youra steer {word} resume` then `youra run {word}` runs on \
                 (or `youra run {word} --step` for one stage)"
            );
            3
        }
        RunEnd::Cancelled => 0,
    }
}

fn describe(e: &Event) -> String {
    let mut parts = vec![
        e.time.get(11..19).unwrap_or(&e.time).to_string(),
        e.kind.clone(),
    ];
    parts.extend(
        [&e.stage, &e.hypothesis, &e.action, &e.result, &e.message]
            .into_iter()
            .flatten()
            .cloned(),
    );
    parts.join("  ")
}

/// Start `youra run <dir>` in its own session, logging to `<run>/youra.log`, so it outlives
/// the SSH session that started it.
fn detach_run(dir: &Path) -> color_eyre::Result<i32> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().wrap_err("cannot find the youra executable")?;
    let log_path = dir.join("youra.log");
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .wrap_err_with(|| format!("cannot open {}", log_path.display()))?;
    let err = log
        .try_clone()
        .wrap_err("cannot duplicate the log handle")?;
    // The configuration flags travel with it: the child resolves its settings itself.
    let f = crate::config_sources::flags();
    let mut flag_args: Vec<String> = Vec::new();
    for (flag, value) in [
        ("--provider", &f.provider),
        ("--model", &f.model),
        ("--base-url", &f.base_url),
    ] {
        if let Some(v) = value {
            flag_args.extend([flag.to_string(), v.clone()]);
        }
    }
    for (role, model) in &f.roles {
        flag_args.extend(["--role".to_string(), format!("{role}={model}")]);
    }
    let child = std::process::Command::new(exe)
        .arg("run")
        .arg(dir)
        .args(&flag_args)
        .env("YOURA_DETACHED", "1")
        .stdin(std::process::Stdio::null())
        .stdout(log)
        .stderr(err)
        .process_group(0)
        .spawn()
        .wrap_err("cannot start the detached engine")?;
    println!(
        "engine started in the background (pid {}); log: {}",
        child.id(),
        log_path.display()
    );
    Ok(0)
}

/// A detached engine ignores the hang-up of the terminal that started it.
pub fn ignore_hangup() {
    if std::env::var_os("YOURA_DETACHED").is_some() {
        let _ = signal_hook::flag::register(
            signal_hook::consts::SIGHUP,
            Arc::new(AtomicBool::new(false)),
        );
    }
}

/// Start the engine on its own thread for `youra tui --run`; the returned flag stops it.
/// Start the engine on its own thread for `youra tui --run`; the flag stops it at its next
/// boundary, and the receiver gets how it ended.
pub fn engine_thread(
    dir: &Path,
) -> color_eyre::Result<(Arc<AtomicBool>, std::sync::mpsc::Receiver<String>)> {
    let cancel = Arc::new(AtomicBool::new(false));
    let options = Options {
        exit_when_paused: false,
        cancel: cancel.clone(),
    };
    let mut engine = Engine::open(dir, options)
        .wrap_err_with(|| format!("cannot start the engine on {}", dir.display()))?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let end = match engine.run() {
            Ok(end) => format!("{end:?}"),
            Err(e) => format!("engine error: {e}"),
        };
        let _ = tx.send(end);
    });
    Ok((cancel, rx))
}

pub fn stop_engine(cancel: &AtomicBool) {
    cancel.store(true, Ordering::Relaxed);
}

/// The demo's real data (Palmer penguins, CC0) and its licence note.
const DEMO_DATA: &[u8] = include_bytes!("../../assets/demo/data/penguins.csv");
const DEMO_DATA_LICENSE: &str = include_str!("../../assets/demo/data/LICENSE.md");

/// The second recorded study (`youra demo --study sex`): a small network telling a
/// penguin's sex from its measurements, trained for epochs; its path needs what the
/// penguins never do (a redesign the controller chooses where the table would reset, a
/// SHOULD_WORK miss retried from Experiment Design). docs/decisions/0042-second-study.md.
pub const SEX_BUNDLE: &str = include_str!("../../assets/studies/sex/replay.jsonl");
pub const SEX_TOPIC: &str = include_str!("../../assets/studies/sex/topic.txt");

/// Which recorded study `youra demo` replays.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Study {
    /// The species from calipers (the default): INTERACTIVE, an escalation to answer.
    #[default]
    Penguins,
    /// Sex from measurements with a small network: UNATTENDED, the routers part.
    Sex,
}

impl Study {
    fn bundle(self) -> &'static str {
        match self {
            Study::Penguins => DEMO_BUNDLE,
            Study::Sex => SEX_BUNDLE,
        }
    }

    fn topic(self) -> &'static str {
        match self {
            Study::Penguins => DEMO_TOPIC,
            Study::Sex => SEX_TOPIC,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Study::Penguins => "penguins-demo",
            Study::Sex => "penguins-sex-study",
        }
    }

    fn mode(self) -> &'static str {
        match self {
            Study::Penguins => "INTERACTIVE",
            Study::Sex => "UNATTENDED",
        }
    }

    /// `[plan]` and `[recovery]`: the penguins search on after a pass; the second study
    /// settles at its first pass and confirms it on fresh seeds.
    fn plan(self) -> &'static str {
        match self {
            Study::Penguins => {
                "# The plan tree: each Coding & Validation attempt executes a node; refinements expand it.\n\
                 # After a pass the search tries one more node, and the best node's result is the gate's.\n\
                 # The reflector drafts each search's first plan from the design.\n\
                 [plan]\nbudget_tokens = 150000\npolicy = \"adaptive\"\nafter_pass = 1\nroot_plan = \"reflector\"\n"
            }
            Study::Sex => {
                "# The plan tree: each Coding & Validation attempt executes a node; a failed one is\n\
                 # expanded by the reflector. A search settles at its first pass and confirms it on\n\
                 # fresh seeds. The reflector drafts each search's first plan from the design.\n\
                 [plan]\nbudget_tokens = 150000\nafter_pass = 0\nroot_plan = \"reflector\"\n\n\
                 # Who routes a failure: the Independent Controller (the default), bounded by SAGE's\n\
                 # table; `router = \"table\"` for the table alone (the two part at h-c1). A gate is\n\
                 # refined at most once: h-m1's second miss, which its retries would allow, reaches\n\
                 # the cap and is recorded as a limitation.\n\
                 [recovery]\nrouter = \"controller\"\nshould_work_retries = 2\nmax_refines = 1\n"
            }
        }
    }
}

/// How `youra demo` runs: the pace of the replayed replies, whether anyone watches (headless
/// runs answer the escalation by the waiting policy), and `--step`'s breakpoint.
#[derive(Debug, Clone, Copy, Default)]
pub struct DemoOptions {
    /// Each replayed reply waits this long, so the TUI can be watched.
    pub pace_ms: u64,
    /// Nobody answers the escalation: the waiting policy does, after `POLICY_WAIT_S`.
    pub headless: bool,
    /// Start with a one-shot breakpoint before Coding & Validation.
    pub step: bool,
    /// Where the experiments run (`--exec slurm`: `[exec] backend = "slurm"`).
    pub exec: crate::exec::BackendKind,
    /// Which recorded study.
    pub study: Study,
    /// `--router table`: SAGE's table routes every failure (the bundle answers either).
    pub table_router: bool,
}

/// The pace of the demo in the TUI: about a minute to the escalation.
pub const DEMO_PACE_MS: u64 = 1200;
/// How long a headless demo's escalation waits before the waiting policy rejects it.
pub const POLICY_WAIT_S: f64 = 0.5;

/// Make a fresh demo run: the bundled replay transcript and the penguin data, INTERACTIVE
/// with the plan tree on (a token budget), under `dir` or a new folder in the temp dir.
pub fn demo_dir(dir: Option<PathBuf>, o: DemoOptions) -> color_eyre::Result<PathBuf> {
    let dir = dir.unwrap_or_else(|| {
        let t = chrono::Utc::now().format("%Y%m%dT%H%M%S");
        std::env::temp_dir().join(format!("youra-demo-{t}"))
    });
    if dir.join("verification_state.yaml").exists() {
        return Err(eyre!(
            "{} already holds a run; give --dir a new folder",
            dir.display()
        ));
    }
    // Watched, the escalation waits for the researcher (0 = forever); headless, the waiting
    // policy rejects it, which keeps the hypothesis and refines the method.
    let wait = if o.headless { POLICY_WAIT_S } else { 0.0 };
    let llm = format!(
        "# The offline demo: every model reply is served from a recorded bundle (replay provider).\n\
         [llm.default]\nprovider = \"replay\"\nreplay = \"replay/demo.jsonl\"\nreplay_delay_ms = {pace}\n\n\
         [engine]\ncontroller_retry_wait_s = 0.0\nliterature_search = false\nexperiment_time_limit_s = 120.0\n\
         # An escalation waits this long for the researcher (0 = until answered), then:\n\
         approval_timeout_s = {wait:.1}\napproval_default = \"reject\"\n\n\
         {plan}\n\
         # Every gate reads 5 seeds x 5 folds and decides on its 95% interval\n\
         # (docs/decisions/0035-gates-on-repeats.md); `[evidence]` changes how many.\n\
         {exec}",
        pace = o.pace_ms,
        plan = o.study.plan(),
        exec = match o.exec {
            crate::exec::BackendKind::Local => "",
            // The clients find the cluster through SLURM_CONF or /etc/slurm/slurm.conf.
            crate::exec::BackendKind::Slurm => {
                "\n# The experiments run as Slurm jobs (youra demo --exec slurm).\n[exec]\nbackend = \"slurm\"\n"
            }
        },
    );
    let llm = match (o.table_router, o.study) {
        (false, _) => llm,
        (true, Study::Sex) => llm.replace("router = \"controller\"", "router = \"table\""),
        (true, Study::Penguins) => format!(
            "{llm}\n# SAGE's table routes every failure (youra demo --router table).\n[recovery]\nrouter = \"table\"\n"
        ),
    };
    let opts = InitOptions {
        topic: o.study.topic().trim().to_string(),
        name: Some(o.study.name().into()),
        mode: o.study.mode().into(),
        llm_toml: llm,
    };
    init(&dir, &opts).wrap_err("cannot create the demo run")?;
    let write = |rel: &str, bytes: &[u8]| -> color_eyre::Result<()> {
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)
                .wrap_err_with(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&p, bytes).wrap_err_with(|| format!("cannot write {}", p.display()))
    };
    write("replay/demo.jsonl", o.study.bundle().as_bytes())?;
    write(
        crate::engine::literature::RECORDED,
        DEMO_LITERATURE.as_bytes(),
    )?;
    write("data/penguins.csv", DEMO_DATA)?;
    write("data/LICENSE.md", DEMO_DATA_LICENSE.as_bytes())?;
    if o.step {
        let store = crate::vsa::store::Store::new(dir.join("verification_state.yaml"));
        // One-shot: the stop uses it up, so `c` runs on to the end (a persistent one would
        // stop again before every Coding & Validation step).
        let once = format!("once {}", crate::stage::Stage::CodingValidation.label());
        let mut req = crate::steer::Request::new(
            crate::steer::Verb::Breakpoint,
            Some(&once),
            "youra demo --step: stop before the first experiment",
        );
        req.actor = "youra demo".into();
        crate::steer::apply(&store, &req, crate::rundir::Layout::Native)
            .map_err(|e| eyre!("cannot set the --step breakpoint: {e}"))?;
    }
    Ok(dir)
}

pub fn demo_cmd(
    dir: Option<PathBuf>,
    headless: bool,
    fast: bool,
    step: bool,
    exec: crate::exec::BackendKind,
    study: Study,
    table_router: bool,
) -> color_eyre::Result<i32> {
    // In the TUI the replies come at a watchable pace (--fast: quickly); headless, as fast
    // as they are read.
    let pace_ms = match (headless, fast) {
        (true, _) => 0,
        (false, true) => 60,
        (false, false) => DEMO_PACE_MS,
    };
    let dir = demo_dir(
        dir,
        DemoOptions {
            pace_ms,
            headless,
            step,
            exec,
            study,
            table_router,
        },
    )?;
    super::trust_cmd::record_own(&dir, "demo");
    println!(
        "demo run: {} (offline: replayed model replies)",
        dir.display()
    );
    if headless {
        println!(
            "headless: nobody answers the escalation, so the waiting policy does — \
             reject after {POLICY_WAIT_S} s (youra.toml [engine] approval_timeout_s, approval_default)"
        );
        return run_cmd(&dir, false, false, false);
    }
    tui_with_engine(&dir, &crate::tui::Options::default())
}

pub fn tui_with_engine(dir: &Path, opts: &crate::tui::Options) -> color_eyre::Result<i32> {
    // The log, never the terminal: the TUI owns the screen.
    let _log = crate::logging::init(dir);
    let (cancel, ended) = engine_thread(dir)?;
    let ui = crate::tui::run(dir, opts);
    stop_engine(&cancel);
    // Quitting does not wait for a long step (an experiment) to end: the engine stops at its
    // next boundary if that comes soon, otherwise the process ends and `youra run` resumes
    // the run from its last completed step, as after any kill.
    let end = ended
        .recv_timeout(std::time::Duration::from_secs(2))
        .unwrap_or_else(|_| format!("stopped mid-step; `youra run {}` resumes it", dir.display()));
    ui?;
    eprintln!("engine: {end}");
    Ok(0)
}
