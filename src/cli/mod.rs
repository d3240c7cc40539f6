//! The `youra` command line: argument parsing and dispatch. Each subcommand lives in its
//! own module and composes the library layers; nothing here writes a file by itself.

use demo_args::{ExecArg, RouterArg, StudyArg};
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use color_eyre::eyre::WrapErr;

// Every human-readable line a command writes can carry text from a model, an experiment or
// a file (a statement, a lesson, an event, a log line). These four macros shadow the std
// ones for every module below (textual macro scope), so each write goes through
// `crate::term::escape` and no print site can forget it: control characters and bidi
// overrides are shown as `\uXXXX`. `--json` output passes through too and stays exact (the
// escape form is JSON's own). youra's CLI writes no styling of its own, so nothing is lost.
macro_rules! print {
    ($($arg:tt)*) => { ::std::print!("{}", $crate::term::escape(&::std::format!($($arg)*))) };
}
macro_rules! println {
    () => { ::std::println!() };
    ($($arg:tt)*) => { ::std::println!("{}", $crate::term::escape(&::std::format!($($arg)*))) };
}
#[allow(unused_macros)] // none today; here so that a new `eprint!` is escaped too
macro_rules! eprint {
    ($($arg:tt)*) => { ::std::eprint!("{}", $crate::term::escape(&::std::format!($($arg)*))) };
}
macro_rules! eprintln {
    () => { ::std::eprintln!() };
    ($($arg:tt)*) => { ::std::eprintln!("{}", $crate::term::escape(&::std::format!($($arg)*))) };
}

mod audit_cmd;
mod bench_cmd;
mod compare_cmd;
mod data_cmd;
mod demo_args;
mod doctor_cmd;
pub mod engine_cmd;
mod init_cmd;
mod memory_cmd;
mod memory_import;
mod memory_records;
mod plan_cmd;
mod replay_cmd;
mod report_cmd;
mod status;
mod steer_cmd;
mod tools_cmd;
mod trust_cmd;
mod vsa_cmd;

/// youra: an autonomous research agent (YouRA lifecycle) and the tools to watch and steer it.
///
/// Every command takes a run folder: a youra run, a YouRA research folder
/// (docs/youra_research/<run>), or a YouRA task folder (the run inside is found for you).
#[derive(Debug, Parser)]
#[command(
    name = "youra",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// The provider of every role without its own (openai, anthropic, openrouter, ollama,
    /// vllm, llamacpp, replay); over YOURA_PROVIDER and youra.toml.
    #[arg(long, global = true, value_name = "NAME")]
    pub provider: Option<String>,
    /// The model of every role without its own; over YOURA_MODEL and youra.toml.
    #[arg(long, global = true, value_name = "MODEL")]
    pub model: Option<String>,
    /// The endpoint of every role without its own; over YOURA_BASE_URL and youra.toml.
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// One role's model, e.g. `--role controller=gpt-4o` (repeatable).
    #[arg(long = "role", global = true, value_name = "ROLE=MODEL", value_parser = crate::config_sources::parse_role)]
    pub roles: Vec<(String, String)>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Where the research stands: stage, workflow, sub-hypotheses and their gates, recent
    /// history, memory records and archives.
    Status {
        /// Run folder (youra run, YouRA research folder or task folder).
        dir: PathBuf,
        /// Print machine-readable JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Read and edit the verification state (verification_state.yaml) safely.
    #[command(subcommand)]
    Vsa(vsa_cmd::VsaCommand),
    /// Browse Reflective Memory: failure, pivot, limitation and snapshot records.
    #[command(subcommand)]
    Memory(memory_cmd::MemoryCommand),
    /// Steer a running youra engine: pause, step, retry or redesign a sub-hypothesis,
    /// answer an escalation, set breakpoints.
    ///
    /// Nothing happens behind your back: each verb is written to the run's
    /// verification_state.yaml (with your reason, name and the time) and the engine acts
    /// on it at its next safe point. Exit 0 when recorded, 1 when refused (the message says
    /// why), 2 for wrong arguments or a folder that holds no run.
    #[command(after_help = steer_cmd::verbs_help())]
    Steer(steer_cmd::SteerArgs),
    /// Grounded reporting: check a paper's numbers against the measured results and its
    /// methods against the code, configs and logs the run executed.
    #[command(subcommand)]
    Report(report_cmd::ReportCommand),
    /// MCP tool servers: list a run's configured servers (or one given with --stdio or
    /// --http) with their health and tools.
    #[command(subcommand)]
    Tools(tools_cmd::ToolsCommand),
    /// Watch and steer a run in the terminal: lifecycle, gates, reflection, events, live.
    /// `?` lists the keys of the focused pane; `q` quits.
    ///
    /// With several runs (`youra tui new-run old-a old-b`), the first is the one shown and
    /// steered; the Reflection pane also lists the others' memory records, each with its
    /// run's name, to browse and search lessons before `youra memory import`.
    Tui {
        /// Run folders (youra run, YouRA research folder or task folder); the first is shown.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// A keymap file whose keys override the defaults (see keymaps/default.toml).
        #[arg(long, value_name = "FILE")]
        keymap: Option<PathBuf>,
        /// dark, light, mono, or a theme file (see themes/). NO_COLOR is honoured.
        #[arg(long, value_name = "NAME|FILE")]
        theme: Option<String>,
        /// Capture the mouse (off by default, so the terminal still selects text).
        #[arg(long)]
        mouse: bool,
        /// Also run the engine on this run (on its own thread) while the UI shows it.
        #[arg(long)]
        run: bool,
    },
    /// Is the data behind a research output's results real? Any folder (a youra run, a
    /// YouRA research folder, another agent's output, a plain repository): its Python and
    /// notebooks are parsed, each reported metric followed to where its value comes from
    /// (loader, generator, literal, mock), and the verdict is Real, Synthetic, Fabricated or
    /// Unknown with a confidence and evidence as `file:line — rule — excerpt`. Nothing outside
    /// the folder is read and no link is followed. Exit 0 real, 1 not real (synthetic or
    /// fabricated), 3 unknown, 2 for a usage error.
    Audit(audit_cmd::AuditArgs),
    /// A plan node's code: write its files into a folder, or print its diff from its parent.
    #[command(subcommand)]
    Plan(plan_cmd::PlanCommand),
    /// The run's data: fetch a data set from the network into `data/` (the download step).
    #[command(subcommand)]
    Data(data_cmd::DataCommand),
    /// Benchmarks that are part of the product.
    #[command(subcommand)]
    Bench(bench_cmd::BenchCommand),
    /// Create a new run folder: its youra.toml and a fresh verification_state.yaml.
    Init {
        /// The folder to create (must not hold a run yet).
        dir: PathBuf,
        /// The research topic, in a sentence or two.
        #[arg(long)]
        topic: String,
        /// interactive (escalations wait for you) or unattended.
        #[arg(long, default_value = "interactive")]
        mode: String,
        /// A name for the run (default: the folder's name).
        #[arg(long)]
        name: Option<String>,
        /// Files or folders copied read-only into <dir>/data/, where experiments read them
        /// (they have no network); each file's sha256 goes to data/MANIFEST.sha256.
        #[arg(long, num_args = 1.., value_name = "PATH")]
        data: Vec<PathBuf>,
    },
    /// Run the engine on a run folder, headless: until the lifecycle completes or stops.
    /// Exit 0 when complete, 1 when it stopped (MUST_STOP), 3 when paused with --until-pause,
    /// 2 when the folder holds no run ("no run here", as every command says it).
    Run {
        dir: PathBuf,
        /// Start in the background, detached from this terminal (log: <run>/youra.log).
        #[arg(long)]
        detach: bool,
        /// Return when the run pauses instead of waiting for `resume`.
        #[arg(long)]
        until_pause: bool,
        /// Events as JSON lines (the shape of `events.jsonl`), the last a `run_end` event.
        #[arg(long, conflicts_with = "detach")]
        json: bool,
        /// Run exactly one stage, then pause (a `step` directive, as `youra steer <dir>
        /// step` writes); each further `youra steer <dir> step` (or `n` in the TUI) runs one
        /// more. With --until-pause it returns after that stage (exit 3).
        #[arg(long)]
        step: bool,
    },
    /// Make a replay copy of a recorded run: a new run with the same topic, mode and
    /// settings whose model replies are the recorded ones (replay provider over a copy of
    /// its transcripts/), its data/, and `metadata.replayed_from` naming the original.
    /// Step through it with new code and compare the routes with `youra compare`.
    Replay {
        /// The recorded run (a folder `youra run` or `youra demo` ran).
        recorded: PathBuf,
        /// Where to create the copy (must not hold a run yet).
        dir: PathBuf,
        /// Keep the recorded run's tool commands ([[tools.servers]], [tools.coding_agent])
        /// and its sandbox/allow_network settings; without it they are left out and named.
        #[arg(long)]
        keep_commands: bool,
    },
    /// Where two runs diverge, stage by stage (per sub-hypothesis and attempt in the
    /// hypothesis loop): gate results (measured vs required, PASS/FAIL) and recovery
    /// routes (h*, proposal, route taken, escalation decision). `»` marks the first
    /// divergence. Exit 0 when they agree, 1 when they diverge, 2 when a run cannot be read.
    Compare {
        /// The first run (for a replay copy: the recorded run).
        a: PathBuf,
        /// The second run.
        b: PathBuf,
        /// Print one JSON object: `diverged`, `first_divergence`, `rows`, `end`.
        #[arg(long)]
        json: bool,
    },
    /// Check every role's model endpoint: reachable, model listed, which structured-reply
    /// dialect constrains its replies (remembered for `structured = "auto"`), streaming, tool
    /// calls, reasoning output, latency and speed. Exit 0 when every role can work, 1 when
    /// one cannot (the problems say what to change), 2 when the folder holds no run.
    Doctor {
        dir: PathBuf,
        /// Print the report as one JSON object (with `"ok"`).
        #[arg(long)]
        json: bool,
    },
    /// The run's configuration as it takes effect.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Allow what a run's own youra.toml names: programs youra would start (`[notify]
    /// command`, tool servers, a coding agent), addresses it would send to (webhooks,
    /// `base_url`, literature URLs) and confinement it would lift (`sandbox = "off"`).
    /// Until you do, `youra run`, `tui --run`, `doctor` and `tools list` refuse a run whose own
    /// file sets them, listing each with its file:line; a change to any of them asks again.
    /// The record is kept in your config folder, never in the run.
    Trust(trust_cmd::TrustArgs),
    /// Print a shell completion script, e.g.
    /// `youra completions bash > ~/.local/share/bash-completion/completions/youra`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `youra man | man -l -`.
    Man,
    /// Internal: compile the paper's Typst jobs read on stdin, in the bounded child process
    /// `paper::bounded` starts (never run by hand).
    #[command(name = "__paper-pdf", hide = true)]
    PaperPdf,
    /// The offline demo: a fresh run from a recorded transcript (replayed model replies),
    /// shown in the TUI, or headless.
    Demo {
        /// Where to create the demo run (default: a new folder in the temp dir).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Run without the TUI, printing events; exit 0 when the run completes. Nobody
        /// answers the escalation, so the waiting policy rejects it after 0.5 s.
        #[arg(long)]
        headless: bool,
        /// Replay the recorded replies quickly (for tests; the default pace is watchable).
        #[arg(long)]
        fast: bool,
        /// Start with a breakpoint before Coding & Validation (`n` runs one stage, `c` resumes).
        #[arg(long)]
        step: bool,
        /// Where the experiments run: `local` processes, or `slurm` jobs (the cluster's
        /// clients must work here: SLURM_CONF or /etc/slurm/slurm.conf).
        #[arg(long, value_enum, default_value = "local")]
        exec: ExecArg,
        /// Which recorded study: `penguins` (the species from calipers, an escalation to
        /// answer) or `sex` (a small network trained for epochs; the controller and SAGE's
        /// table part at a failure: rerun it with `[recovery] router = "table"` and
        /// `youra compare` the two).
        #[arg(long, value_enum, default_value = "penguins")]
        study: StudyArg,
        /// Who routes a failure: the Independent Controller (the default) or SAGE's table
        /// alone (`[recovery] router`); the recorded bundle answers either.
        #[arg(long, value_enum, default_value = "controller")]
        router: RouterArg,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Every effective value with where it came from: a flag, a YOURA_* variable, the
    /// run's or the user's youra.toml (file:line), or the compiled default.
    Show {
        dir: PathBuf,
        /// One JSON object per line: `{key, value, source}`.
        #[arg(long)]
        json: bool,
    },
}

/// Parse the arguments, run the command, and return the process exit code.
pub fn run() -> color_eyre::Result<i32> {
    // This process is youra: the paper compiles in a bounded child of this executable.
    crate::paper::bounded::mark_cli();
    let cli = Cli::parse();
    crate::config_sources::set_flags(crate::config_sources::Flags {
        provider: cli.provider.clone(),
        model: cli.model.clone(),
        base_url: cli.base_url.clone(),
        roles: cli.roles.clone(),
    });
    match cli.command {
        Command::PaperPdf => Ok(crate::paper::bounded::serve()),
        Command::Config(ConfigCommand::Show { dir, json }) => config_show(&abs(dir), json),
        Command::Status { dir, json } => status::run(&abs(dir), json),
        Command::Vsa(cmd) => vsa_cmd::run(cmd),
        Command::Memory(cmd) => memory_cmd::run(cmd),
        Command::Steer(mut args) => {
            args.dir = abs(args.dir);
            steer_cmd::run(args)
        }
        Command::Report(cmd) => report_cmd::run(cmd),
        Command::Trust(args) => trust_cmd::run(args),
        Command::Tools(cmd) => tools_cmd::run(cmd),
        Command::Plan(cmd) => plan_cmd::run(cmd),
        Command::Data(cmd) => data_cmd::run(cmd),
        Command::Bench(cmd) => bench_cmd::run(cmd),
        Command::Tui {
            dirs,
            keymap,
            theme,
            mouse,
            run,
        } => {
            let dirs: Vec<PathBuf> = dirs.into_iter().map(abs).collect();
            let mut opts = crate::tui::Options {
                keymap,
                theme,
                mouse,
                lessons_from: dirs.iter().skip(1).cloned().collect(),
            };
            // Several runs, or a folder of runs: the runs view (`tui/runs_view.rs`).
            if !run && let Some(runs) = runs_view_of(&dirs)? {
                opts.lessons_from.clear();
                crate::tui::run_many(runs, &opts)?;
                return Ok(0);
            }
            let dir = dirs.first().cloned().unwrap_or_default();
            if run && let Some(refused) = trust_cmd::guard(&dir) {
                return Ok(refused);
            }
            if run {
                // Before the engine starts: without a terminal nobody would see it run.
                crate::tui::require_terminal()?;
                return engine_cmd::tui_with_engine(&dir, &opts);
            }
            crate::tui::run(&dir, &opts)?;
            Ok(0)
        }
        Command::Init {
            dir,
            topic,
            mode,
            name,
            data,
        } => {
            let dir = abs(dir);
            let code = init_cmd::run(&dir, &topic, &mode, name, &data)?;
            // What `youra init` wrote is the researcher's own (`youra trust` records it).
            if code == 0 {
                trust_cmd::record_own(&dir, "init");
            }
            Ok(code)
        }
        Command::Run {
            dir,
            detach,
            until_pause,
            json,
            step,
        } => {
            engine_cmd::ignore_hangup();
            let dir = abs(dir);
            if let Some(code) = refuse_no_run(&dir) {
                return Ok(code);
            }
            // Before anything is written or started: the run's own settings are trusted.
            if let Some(refused) = trust_cmd::guard(&dir) {
                return Ok(refused);
            }
            if step && let Some(refused) = steer_cmd::request_step(&dir)? {
                return Ok(refused);
            }
            engine_cmd::run_cmd(&dir, detach, until_pause, json)
        }
        Command::Replay {
            recorded,
            dir,
            keep_commands,
        } => replay_cmd::run(&abs(recorded), &abs(dir), keep_commands),
        Command::Compare { a, b, json } => compare_cmd::run(&a, &b, json),
        Command::Audit(args) => audit_cmd::run(args),
        Command::Doctor { dir, json } => {
            let dir = abs(dir);
            if let Some(code) = refuse_no_run(&dir) {
                return Ok(code);
            }
            // Before any request: a handed run's base_url would get the researcher's key.
            if let Some(refused) = trust_cmd::guard(&dir) {
                return Ok(refused);
            }
            doctor_cmd::run(&dir, json)
        }
        Command::Demo {
            dir,
            headless,
            fast,
            step,
            exec,
            study,
            router,
        } => {
            if !headless {
                // Before the demo run is made: without a terminal, `--headless` is the way.
                crate::tui::require_terminal()
                    .wrap_err("`youra demo` shows the TUI; add --headless to run it without")?;
            }
            engine_cmd::demo_cmd(
                dir.map(abs),
                headless,
                fast,
                step,
                exec.into(),
                study.into(),
                router == RouterArg::Table,
            )
        }
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "youra", &mut std::io::stdout());
            Ok(0)
        }
        Command::Man => {
            use clap::CommandFactory;
            clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout())?;
            Ok(0)
        }
    }
}

/// A run folder from the command line, made absolute once here: everything derived from it
/// (sandbox binds, a detached engine's working directory, printed paths) then agrees.
pub(crate) fn abs(dir: PathBuf) -> PathBuf {
    std::path::absolute(&dir).unwrap_or(dir)
}

/// The runs `youra tui` shows in its runs view: every run in the folders given, when there
/// is more than one; `None` for one run, which opens in the panes at once.
fn runs_view_of(dirs: &[PathBuf]) -> color_eyre::Result<Option<Vec<crate::rundir::RunDir>>> {
    let mut runs = Vec::new();
    for d in dirs {
        runs.extend(crate::rundir::discover_all(d).wrap_err("cannot open the run")?);
    }
    Ok((runs.len() > 1).then_some(runs))
}

/// The exit status of every command given a folder that holds no run (none there, or no
/// `verification_state.yaml` in it): the one `compare` and `report` already used for a run
/// they cannot read, apart from each command's own 1 (stopped, refused, diverged, MAJOR).
pub const NO_RUN: i32 = 2;

/// What to do about a folder that is no run, said the same way by every command.
pub(crate) const NO_RUN_HINT: &str = "create one with `youra init <dir> --topic …` or `youra demo`";

/// Print "no run" for a folder `discover` found nothing in; the exit status is [`NO_RUN`].
pub(crate) fn no_run(e: impl std::fmt::Display) -> i32 {
    fail(e, NO_RUN_HINT);
    NO_RUN
}

/// `youra run` and `youra doctor` open a run's own folder: one that does not exist, or holds
/// neither a youra.toml nor a run, is refused here ("no run here") before the defaults (the
/// replay provider) are reported as if they were the run's settings. `Some(exit status)`.
fn refuse_no_run(dir: &std::path::Path) -> Option<i32> {
    if dir.join("youra.toml").is_file() || crate::rundir::discover(dir).is_ok() {
        return None;
    }
    fail(format!("no run here: {}", dir.display()), NO_RUN_HINT);
    Some(NO_RUN)
}

/// Print an error the way every command does: what went wrong, then what to do.
pub(crate) fn fail(what: impl std::fmt::Display, hint: &str) -> i32 {
    eprint!("{}", error_text(&what.to_string(), &[], hint));
    1
}

/// The one error format of every command: `error: <what>`, then each underlying cause on
/// its own `  because: ` line and what to do on `  hint: `. Outside text in it (a path, a
/// statement, a model's words) is escaped for the terminal here, once.
pub fn error_text(what: &str, causes: &[String], hint: &str) -> String {
    let line = |s: &str| crate::term::escape(s.trim()).replace('\n', "\n    ");
    let mut out = format!("error: {}\n", line(what));
    for c in causes {
        out.push_str(&format!("  because: {}\n", line(c)));
    }
    if !hint.is_empty() {
        out.push_str(&format!("  hint: {}\n", line(hint)));
    }
    out
}

/// An error that reached `main` (`?` in a command), in [`error_text`]'s format with its
/// exit status: [`NO_RUN`] for a folder that holds no run (with that hint), else 1.
pub fn report_error(report: &color_eyre::Report) -> (String, i32) {
    let mut chain = report.chain().map(|e| e.to_string());
    let what = chain.next().unwrap_or_default();
    let causes: Vec<String> = chain.collect();
    let no_run = report
        .chain()
        .any(|e| e.is::<crate::rundir::discover::NotARun>());
    let hint = if no_run { NO_RUN_HINT } else { "" };
    (
        error_text(&what, &causes, hint),
        if no_run { NO_RUN } else { 1 },
    )
}

/// `youra config show <dir>`: the effective configuration, one value per line, with its
/// source; values that look like keys are masked (`crate::redact`).
fn config_show(dir: &std::path::Path, json: bool) -> color_eyre::Result<i32> {
    let (config, explained) = crate::config::explain(dir)?;
    for w in &config.warnings {
        eprintln!("warning: {w}");
    }
    let width = explained
        .iter()
        .map(|(k, v, _)| {
            crate::config_sources::display_key(k).len()
                + crate::config_sources::value_text(v).len()
                + 3
        })
        .max()
        .unwrap_or(0)
        .min(72);
    for (key, value, source) in &explained {
        let key = crate::config_sources::display_key(key);
        let value =
            crate::redact::redact(&crate::config_sources::value_text(value), &[]).into_owned();
        if json {
            println!(
                "{}",
                serde_json::json!({"key": key, "value": value, "source": source.to_string()})
            );
        } else {
            let line = format!("{key} = {value}");
            println!("{line:<width$}  # {source}");
        }
    }
    // Each role's model as it resolves: a role without its own table takes [llm.default]'s,
    // which the lines above show only once; said per role, nobody has to work it out.
    let settings = config.llm.settings();
    for role in crate::llm::roles::ROLES {
        let own: Vec<String> = ["llm", "roles", role, "model"].map(String::from).to_vec();
        if explained.iter().any(|(k, _, _)| *k == own) {
            continue;
        }
        let model = settings.role(role).model.unwrap_or_default();
        let key = crate::config_sources::display_key(&own);
        let from = "llm.default.model (no model of its own)";
        if json {
            println!(
                "{}",
                serde_json::json!({"key": key, "value": model, "source": from, "resolved": true})
            );
        } else {
            let line = format!("{key} = {}", serde_json::Value::String(model));
            println!("{line:<width$}  # {from}");
        }
    }
    Ok(0)
}
