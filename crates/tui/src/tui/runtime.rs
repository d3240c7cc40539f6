//! The event loop and its helpers: terminal set-up and restore (panic, error, SIGTERM,
//! SIGHUP, SIGTSTP), the input thread, the watcher, the reader and the writer threads.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use color_eyre::eyre::{Result, WrapErr, eyre};
use ratatui::crossterm::event::{self, Event, KeyEventKind};
use ratatui::crossterm::{execute, terminal};

use super::app::App;
use super::effect::{AppEvent, Effect};
use super::keymap::Keymap;
use super::run_view::{read_run_first, read_run_since};
use super::theme::{ColorDepth, Theme};
use super::update::update;
use crate::rundir::{RunDir, discover};
use crate::vsa::Store;

/// Frames are at most this often (≈ 60 per second).
const FRAME: Duration = Duration::from_millis(16);

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub keymap: Option<PathBuf>,
    pub theme: Option<String>,
    pub mouse: bool,
    /// Further runs whose Reflective Memory the Reflection pane lists beside the shown run's.
    pub lessons_from: Vec<PathBuf>,
}

/// A file in the user's config folder: the one `crate::config` reads `youra.toml` from
/// (`YOURA_CONFIG_DIR`, else the platform's), so keymap, theme and settings move together.
pub(crate) fn config_file(name: &str) -> Option<PathBuf> {
    let p = crate::config::user_config_dir()?.join(name);
    p.is_file().then_some(p)
}

/// Keymap: compiled default, then the user's config-dir file, then `--keymap`.
pub(crate) fn load_keymap(opts: &Options) -> Result<Keymap> {
    let mut texts = Vec::new();
    for p in config_file("keymap.toml")
        .into_iter()
        .chain(opts.keymap.clone())
    {
        let t = crate::fsutil::read_run_text(&p)
            .wrap_err_with(|| format!("cannot read keymap {}", p.display()))?;
        texts.push((p, t));
    }
    let refs: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
    Keymap::load(&refs).map_err(|e| {
        eyre!(
            "keymap: {e} (files: {:?})",
            texts.iter().map(|(p, _)| p).collect::<Vec<_>>()
        )
    })
}

/// Theme: `--theme` (a built-in name or a file), else the user's theme.toml, else dark.
pub(crate) fn load_theme(opts: &Options) -> Result<Theme> {
    let depth = ColorDepth::detect();
    let spec = opts
        .theme
        .clone()
        .or_else(|| config_file("theme.toml").map(|p| p.display().to_string()))
        .unwrap_or_else(|| "dark".into());
    if let Some(t) = Theme::builtin(&spec, depth) {
        return Ok(t);
    }
    let text = crate::fsutil::read_run_text(&spec).wrap_err_with(|| {
        format!("theme `{spec}` is neither dark, light, mono nor a readable file")
    })?;
    Theme::parse(&text, depth).map_err(|e| eyre!("theme {spec}: {e}"))
}

pub fn run(dir: &std::path::Path, opts: &Options) -> Result<()> {
    // The screen is ours: the store's "waiting for the lock" goes to the log only.
    crate::vsa::store::NOTICES_ON_STDERR.store(false, std::sync::atomic::Ordering::Relaxed);
    let run = discover(dir).wrap_err("cannot open the run")?;
    let others = opts
        .lessons_from
        .iter()
        .map(|d| discover(d).wrap_err_with(|| format!("cannot open the run {}", d.display())))
        .collect::<Result<Vec<_>>>()?;
    let app = App::new(run.clone(), load_keymap(opts)?, load_theme(opts)?);
    session(app, None, Some((run, others)), opts)
}

/// The runs view over `runs` (`youra tui <folder>` or several runs): Enter opens one.
pub fn run_many(runs: Vec<RunDir>, opts: &Options) -> Result<()> {
    crate::vsa::store::NOTICES_ON_STDERR.store(false, std::sync::atomic::Ordering::Relaxed);
    let first = runs
        .first()
        .cloned()
        .ok_or_else(|| eyre!("no runs to show"))?;
    let mut app = App::new(first, load_keymap(opts)?, load_theme(opts)?);
    super::runs_view::start(&mut app, runs.clone());
    session(app, Some(runs), None, opts)
}

/// One session: the runs view's reader and watcher when there is one, the shown run's.
fn session(
    mut app: App,
    runs: Option<Vec<RunDir>>,
    run: Option<(RunDir, Vec<RunDir>)>,
    opts: &Options,
) -> Result<()> {
    let (tx, rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel();
    let mut ctx = Ctx {
        tx: tx.clone(),
        open: None,
        runs: runs.map(|r| super::runs_watch::spawn(r, tx.clone())),
    };
    if let Some((run, others)) = run {
        let mut dirs = vec![run.root.clone()];
        if let Some(parent) = run.vsa.parent().filter(|p| !p.starts_with(&run.root)) {
            dirs.push(parent.to_path_buf());
        }
        // The watcher names what changed; the reader re-reads only that when it can.
        let changes = super::watch::ChangeSet::default();
        ctx.open = Some(Open::start(run, others, &tx, changes.clone(), true));
        spawn_watcher(dirs, tx.clone(), go_rx, changes);
    }
    spawn_input(tx.clone());
    spawn_signals(tx.clone())?;
    super::require_terminal()?;
    let mut terminal = ratatui::init();
    // Keep the terminal's own title to give back at the end (xterm's title stack).
    print!("\u{1b}[22;0t");
    if opts.mouse {
        execute!(std::io::stdout(), event::EnableMouseCapture).ok();
    }
    let result = event_loop(&mut terminal, &mut app, &rx, &mut ctx, go_tx);
    if opts.mouse {
        execute!(std::io::stdout(), event::DisableMouseCapture).ok();
    }
    ratatui::restore();
    print!("\u{1b}[23;0t");
    std::io::stdout().flush().ok();
    if let Some(open) = ctx.open.take() {
        open.leave(&app);
    }
    result
}

/// What the loop hands to effects: the channel, the run shown (none while the runs view
/// is), and the runs view's reader.
struct Ctx {
    tx: Sender<AppEvent>,
    open: Option<Open>,
    runs: Option<Sender<Vec<usize>>>,
}

/// The run shown in the panes: its store and its reader thread.
struct Open {
    run: RunDir,
    store: Arc<Store>,
    reader: Sender<()>,
    /// What the watcher saw change; a reload it did not ask for marks it unknown.
    changes: super::watch::ChangeSet,
    /// Cleared when the run is left, so a read still in flight is not shown for another run.
    current: Arc<AtomicBool>,
}

impl Open {
    fn start(
        run: RunDir,
        others: Vec<RunDir>,
        tx: &Sender<AppEvent>,
        changes: super::watch::ChangeSet,
        watched: bool,
    ) -> Open {
        let store = Arc::new(Store::new(run.vsa.clone()));
        let current = Arc::new(AtomicBool::new(true));
        let reader = spawn_reader(
            Reader {
                run: run.clone(),
                others,
                store: Arc::clone(&store),
                current: Arc::clone(&current),
                changes: changes.clone(),
                watched,
            },
            tx.clone(),
        );
        reader.send(()).ok();
        Open {
            run,
            store,
            reader,
            changes,
            current,
        }
    }

    /// Leave the run: its reader stops, and what was shown is remembered.
    fn leave(self, app: &App) {
        self.current.store(false, Ordering::SeqCst);
        if app.loaded {
            // Losing this costs only the "new since you last looked" marks: not worth failing on.
            let _ = super::run_view::remember_seen(&self.run, &app.data.events);
        }
    }
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    rx: &Receiver<AppEvent>,
    ctx: &mut Ctx,
    watch_go: Sender<()>,
) -> Result<()> {
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    let mut watch_go = Some(watch_go);
    loop {
        // Checked first: a quit handled while a frame was due must not wait for another event.
        if app.quit {
            return Ok(());
        }
        if dirty {
            let wait = FRAME.saturating_sub(last_draw.elapsed());
            if wait.is_zero() {
                draw(terminal, app)?;
                last_draw = Instant::now();
                dirty = false;
                // The first frame with data is out: now the watcher may take the CPU.
                if app.loaded
                    && let Some(go) = watch_go.take()
                {
                    go.send(()).ok();
                }
            } else if let Ok(ev) = rx.recv_timeout(wait) {
                dirty |= handle(app, ev, terminal, ctx)?;
            }
            continue;
        }
        let ev = rx.recv().map_err(|_| eyre!("all event sources stopped"))?;
        dirty |= handle(app, ev, terminal, ctx)?;
        while let Ok(ev) = rx.try_recv() {
            dirty |= handle(app, ev, terminal, ctx)?;
        }
    }
}

fn draw(terminal: &mut ratatui::DefaultTerminal, app: &App) -> Result<()> {
    let mut out = std::io::stdout();
    execute!(out, terminal::BeginSynchronizedUpdate).ok();
    terminal
        .draw(|f| super::draw::draw(app, f))
        .wrap_err("drawing failed")?;
    execute!(out, terminal::EndSynchronizedUpdate).ok();
    out.flush().ok();
    Ok(())
}

/// Blank the screen and make the next frame write every cell. Not `Terminal::clear`: it asks
/// the terminal for the cursor position, whose answer the input thread would swallow.
fn forget_screen(terminal: &mut ratatui::DefaultTerminal) -> Result<()> {
    use ratatui::style::{Modifier, Style};
    execute!(std::io::stdout(), terminal::Clear(terminal::ClearType::All)).ok();
    // A frame that differs from any real one in every cell's style.
    terminal
        .draw(|f| {
            f.render_widget(
                ratatui::widgets::Block::new().style(Style::new().add_modifier(Modifier::HIDDEN)),
                f.area(),
            )
        })
        .wrap_err("drawing failed")?;
    Ok(())
}

/// Apply one event; returns whether a redraw is due.
fn handle(
    app: &mut App,
    ev: AppEvent,
    terminal: &mut ratatui::DefaultTerminal,
    ctx: &mut Ctx,
) -> Result<bool> {
    if let AppEvent::Resize = ev {
        terminal.autoresize().ok();
    }
    // Which runs changed only asks for reads; their rows arrive (if they differ) as events.
    let quiet = matches!(ev, AppEvent::RunsChanged(_));
    // The watcher names what it saw; a reload for anything else has nothing named.
    let from_watcher = matches!(ev, AppEvent::Changed);
    for effect in update(app, ev) {
        let open = ctx.open.as_ref();
        match effect {
            Effect::Quit => app.quit = true,
            Effect::Reload => {
                if let Some(o) = open {
                    if !from_watcher {
                        o.changes.mark_unknown();
                    }
                    o.reader.send(()).ok();
                }
            }
            Effect::ReadRuns(which) => {
                if let Some(r) = &ctx.runs {
                    r.send(which).ok();
                }
            }
            Effect::OpenRun { run, others } => {
                if let Some(left) = ctx.open.take() {
                    left.current.store(false, Ordering::SeqCst);
                }
                // Opened from the runs view: its reloads come from the runs' watcher, which
                // names no path (each is a whole read).
                let changes = super::watch::ChangeSet::default();
                ctx.open = Some(Open::start(run, others, &ctx.tx, changes, false));
            }
            Effect::CloseRun => {
                if let Some(left) = ctx.open.take() {
                    left.leave(app);
                }
            }
            Effect::Redraw => forget_screen(terminal)?,
            Effect::Retake => {
                terminal::enable_raw_mode().ok();
                execute!(std::io::stdout(), terminal::EnterAlternateScreen).ok();
                terminal.hide_cursor().ok();
                forget_screen(terminal)?;
            }
            Effect::OpenFile(path) => {
                let (tx, theme) = (ctx.tx.clone(), app.theme.clone());
                std::thread::spawn(move || {
                    let title = path.display().to_string();
                    let _ = tx.send(AppEvent::Opened {
                        title,
                        lines: super::dialogs::viewer::read(&path, &theme),
                    });
                });
            }
            Effect::OpenDiff(node) => {
                let Some(o) = open else { continue };
                let (tx, root, theme) = (ctx.tx.clone(), o.run.root.clone(), app.theme.clone());
                std::thread::spawn(move || {
                    let lines = super::diff_view::read(&root, &node)
                        .map(|d| super::diff_view::lines(&d, &theme));
                    let title = super::diff_view::title(&node);
                    let _ = tx.send(AppEvent::Opened { title, lines });
                });
            }
            Effect::OpenReview => {
                let Some(o) = open else { continue };
                let (tx, root, theme) = (ctx.tx.clone(), o.run.root.clone(), app.theme.clone());
                let review = app
                    .data
                    .vsa
                    .as_ref()
                    .and_then(|s| s.vsa.workflow.review.clone());
                std::thread::spawn(move || {
                    let card = review
                        .ok_or_else(|| "no experiment waits for review".to_string())
                        .and_then(|r| super::review_card::read(&root, &r, &theme));
                    let _ = tx.send(AppEvent::ReviewRead(card.map(Box::new)));
                });
            }
            Effect::EditReview { source, file } => {
                let Some(o) = open else { continue };
                // The editor takes the terminal; the TUI takes it back after.
                terminal::disable_raw_mode().ok();
                execute!(std::io::stdout(), terminal::LeaveAlternateScreen).ok();
                let scratch = super::review_card::run_editor(&o.run.root, &source);
                terminal::enable_raw_mode().ok();
                execute!(std::io::stdout(), terminal::EnterAlternateScreen).ok();
                terminal.hide_cursor().ok();
                forget_screen(terminal)?;
                let _ = ctx.tx.send(AppEvent::ReviewEdited { file, scratch });
            }
            Effect::OpenPaper => {
                let Some(o) = open else { continue };
                let (tx, root) = (ctx.tx.clone(), o.run.root.clone());
                std::thread::spawn(move || {
                    let paper = super::paper::read_paper(&root).map(Box::new);
                    let _ = tx.send(AppEvent::PaperRead(paper));
                });
            }
            Effect::Mutate(m) => {
                let Some(o) = open else { continue };
                let (store, tx) = (Arc::clone(&o.store), ctx.tx.clone());
                std::thread::spawn(move || {
                    let r = super::steering::write(&store, &m);
                    let _ = tx.send(AppEvent::Written(r));
                });
            }
            Effect::ReadEvents(req) => {
                let tx = ctx.tx.clone();
                std::thread::spawn(move || {
                    let _ = tx.send(AppEvent::EventsPage(super::event_pages::run(req)));
                });
            }
            Effect::Copy(text) => {
                let tmux = std::env::var_os("TMUX").is_some();
                let mut out = std::io::stdout();
                out.write_all(&super::clipboard::bytes(&text, tmux)).ok();
                out.flush().ok();
            }
            Effect::Attention { waiting, ring } => {
                let tmux = std::env::var_os("TMUX").is_some();
                let mut out = std::io::stdout();
                out.write_all(&super::attention::bytes(&waiting, ring, tmux))
                    .ok();
                out.flush().ok();
            }
            Effect::Steer { request, plan_file } => {
                let Some(o) = open else { continue };
                let (store, tx, layout) = (Arc::clone(&o.store), ctx.tx.clone(), o.run.layout);
                std::thread::spawn(move || {
                    let _ = tx.send(AppEvent::Written(super::steering::apply(
                        &store, layout, request, plan_file,
                    )));
                });
            }
        }
    }
    Ok(!quiet)
}

/// Watching a large run registers a watch per folder (10,000 plan nodes: 10,000 watches), so
/// it starts once the first frame with data is out, not before; once it is in place, one more
/// read covers anything that changed in between. A failure is shown, and the TUI goes on without live updates.
fn spawn_watcher(
    dirs: Vec<PathBuf>,
    tx: Sender<AppEvent>,
    go: Receiver<()>,
    changes: super::watch::ChangeSet,
) {
    std::thread::spawn(move || {
        // Wait for the first frame with data (or give up waiting after a while).
        let _ = go.recv_timeout(Duration::from_secs(2));
        start_watching(&dirs, &tx, changes);
    });
}

fn start_watching(dirs: &[PathBuf], tx: &Sender<AppEvent>, changes: super::watch::ChangeSet) {
    match super::watch::watch_naming(dirs, tx.clone(), changes.clone()) {
        Ok(watcher) => {
            // What changed before the watch was in place is unknown: this read reads
            // everything, the plan's node files that the first read left included.
            changes.mark_unknown();
            let _ = tx.send(AppEvent::Changed);
            // The watcher lives as long as this thread: the whole session.
            loop {
                std::thread::park();
                let _ = &watcher;
            }
        }
        Err(e) => {
            let _ = tx.send(AppEvent::Written(Err(format!(
                "live updates are off: cannot watch the run directory ({e})"
            ))));
            // One more read all the same: the first one left the plan's nodes to it.
            changes.mark_unknown();
            let _ = tx.send(AppEvent::Changed);
        }
    }
}

/// What the reader thread reads, and for whom.
struct Reader {
    run: RunDir,
    others: Vec<RunDir>,
    store: Arc<Store>,
    /// Cleared when the run is left, so a read still in flight is not shown for another run.
    current: Arc<AtomicBool>,
    changes: super::watch::ChangeSet,
    /// Whether a watcher will ask for the read after the first (it reads what the first
    /// left: a large plan tree's nodes); without one the reader asks itself.
    watched: bool,
}

/// The reader thread: each request reads the run once; requests that pile up meanwhile
/// collapse into one read. After the first, a read rebuilds only the followed files when
/// nothing else changed (`refresh`), else keeps what no changed path touches
/// (`read_run_since`).
fn spawn_reader(r: Reader, tx: Sender<AppEvent>) -> Sender<()> {
    let (req_tx, req_rx) = mpsc::channel::<()>();
    // Held until used once, so that the channel still closes when the run is left.
    let mut again = (!r.watched).then(|| req_tx.clone());
    std::thread::spawn(move || {
        let Reader {
            run,
            others,
            store,
            current,
            changes,
            watched: _,
        } = r;
        let mut first = true;
        // The appended files are read from where the last read ended.
        let mut follower = super::follow::Follower::new(&run.root);
        // The last whole read, less what the follower rebuilds.
        let mut base: Option<super::data::RunRead> = None;
        while req_rx.recv().is_ok() {
            while req_rx.try_recv().is_ok() {}
            let start_up = std::mem::take(&mut first);
            // A large run fills the screen before its long history is parsed.
            if start_up
                && let Some(quick) = super::run_view::read_run_quick_with(&run, &mut follower)
                && current.load(Ordering::SeqCst)
                && tx.send(AppEvent::Loaded(Box::new(quick))).is_err()
            {
                return;
            }
            let changed = changes.take();
            let refreshed = base
                .as_ref()
                .and_then(|b| super::refresh::refresh(b, &run, &mut follower, &changed));
            let mut read = match refreshed {
                Some(read) => read,
                None if start_up => {
                    let mut read = read_run_first(&run, &store, &mut follower);
                    read.lessons_from = others.iter().map(super::run_view::read_lessons).collect();
                    read
                }
                None => {
                    let prev = base.as_ref();
                    let mut read = read_run_since(&run, &store, &mut follower, prev, &changed);
                    // The other runs are not watched: read again only when anything may
                    // have changed.
                    read.lessons_from = match prev.filter(|_| !changed.other) {
                        Some(p) => p.lessons_from.clone(),
                        None => others.iter().map(super::run_view::read_lessons).collect(),
                    };
                    read
                }
            };
            base = Some(super::refresh::base_of(&mut read));
            if !current.load(Ordering::SeqCst) {
                return;
            }
            if tx.send(AppEvent::Loaded(Box::new(read))).is_err() {
                return;
            }
            if let Some(again) = again.take() {
                again.send(()).ok();
            }
        }
    });
    req_tx
}

fn spawn_input(tx: Sender<AppEvent>) {
    std::thread::spawn(move || {
        loop {
            let ev = match event::read() {
                Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => AppEvent::Key(k),
                Ok(Event::Resize(..)) => AppEvent::Resize,
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.send(ev).is_err() {
                return;
            }
        }
    });
}

/// SIGTERM and SIGHUP end the session cleanly (the terminal restored); SIGTSTP restores
/// the terminal, stops, and redraws after SIGCONT.
fn spawn_signals(tx: Sender<AppEvent>) -> Result<()> {
    use signal_hook::consts::{SIGHUP, SIGTERM, SIGTSTP};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGTSTP])
        .wrap_err("cannot install signal handlers")?;
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if sig == SIGTSTP {
                ratatui::restore();
                let _ = signal_hook::low_level::emulate_default_handler(SIGTSTP);
                // Continued: the loop takes the terminal back and redraws everything.
                let _ = tx.send(AppEvent::Resumed);
                continue;
            }
            ratatui::restore();
            std::process::exit(128 + sig);
        }
    });
    Ok(())
}
