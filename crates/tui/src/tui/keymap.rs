//! Keys → commands, as data. `resolve(mode, key)` is a pure function over the loaded keymap
//! (atuin's shape); commands are values, so a key, the `:` line and a test reach the same code.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub(crate) const DEFAULT: &str = include_str!("../../../../keymaps/default.toml");

macro_rules! commands {
    ($($variant:ident = $name:literal : $help:literal),+ $(,)?) => {
        /// Everything a key can ask for.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Command { $($variant),+ }

        impl Command {
            pub const ALL: &'static [Command] = &[$(Command::$variant),+];

            pub fn name(self) -> &'static str {
                match self { $(Command::$variant => $name),+ }
            }

            /// One line for the help overlay and the footer.
            pub fn help(self) -> &'static str {
                match self { $(Command::$variant => $help),+ }
            }
        }

        impl FromStr for Command {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s { $($name => Ok(Command::$variant),)+ _ => Err(format!("unknown command `{s}`")) }
            }
        }
    };
}

commands! {
    Quit = "quit": "quit youra",
    Help = "help": "keys of this pane",
    FocusNext = "focus_next": "next pane",
    FocusPrev = "focus_prev": "previous pane",
    FocusLifecycle = "focus_lifecycle": "Lifecycle pane",
    FocusGates = "focus_gates": "Gates pane",
    FocusReflection = "focus_reflection": "Reflection pane",
    FocusEvents = "focus_events": "Events pane",
    FocusExperiments = "focus_experiments": "Experiments pane",
    FocusPlan = "focus_plan": "Plan tree pane",
    Zoom = "zoom": "zoom the pane",
    CommandLine = "command_line": "command line (steer verbs)",
    Down = "down": "next item",
    Up = "up": "previous item",
    PageDown = "page_down": "page down",
    PageUp = "page_up": "page up",
    Top = "top": "first item",
    Bottom = "bottom": "last item",
    Redraw = "redraw": "redraw the screen",
    Pause = "pause": "pause the engine",
    Resume = "resume": "resume the engine",
    Step = "step": "run exactly one stage",
    ToggleBreakpoint = "toggle_breakpoint": "breakpoint before this stage, or on a condition (←/→ chooses)",
    ClearBreakpoint = "clear_breakpoint": "remove one of the run's breakpoints (←/→ chooses)",
    ToggleRecorded = "toggle_recorded": "the recorded run's gates and routes beside each stage",
    EditField = "edit_field": "edit a VSA field",
    EditGateType = "edit_gate_type": "edit the gate type",
    EditStatus = "edit_status": "edit the status",
    NextCriterion = "next_criterion": "select the next gate criterion",
    PrevCriterion = "prev_criterion": "select the previous gate criterion",
    OpenArtifacts = "open_artifacts": "open its artifacts",
    Redesign = "redesign": "request a redesign",
    Reset = "reset": "request a reset",
    Approve = "approve": "approve the escalation",
    Reject = "reject": "reject the escalation",
    Override = "override": "override with another action",
    FilterKind = "filter_kind": "filter by kind",
    FilterHypothesis = "filter_hypothesis": "filter by hypothesis",
    FilterStage = "filter_stage": "filter by stage",
    OpenRecord = "open_record": "open the record",
    FilterActor = "filter_actor": "filter by actor",
    OpenLog = "open_log": "open the log",
    FilterAll = "filter_all": "also model calls and the engine's raw VSA diffs",
    ExpandEvent = "expand_event": "the whole event",
    OpenChart = "open_chart": "the failed attempt's metric chart, beside earlier attempts",
    OpenFiles = "open_files": "pick a result or log file to open",
    OpenPaper = "open_paper": "the paper, its numbers checked",
    OpenEscalation = "open_escalation": "the escalation card",
    OpenReview = "open_review": "the experiment waiting for review",
    ReviewApprove = "review_approve": "run the experiment as it is",
    ReviewReject = "review_reject": "do not run it: its node is pruned, your reason goes to the reflector",
    ReviewBranch = "review_branch": "run it and the rest of its sub-hypothesis unasked",
    ReviewEdit = "review_edit": "edit its file in $EDITOR; your version runs as the node's code",
    NextNumber = "next_number": "next number",
    PrevNumber = "prev_number": "previous number",
    NextUnverified = "next_unverified": "next unverified number",
    ShowSource = "show_source": "where the number comes from",
    Pin = "pin": "pin the plan node",
    Veto = "veto": "veto the plan node",
    ForceNode = "force_node": "run this node next",
    ShowDiff = "show_diff": "the node's code diff from its parent",
    Close = "close": "close",
    Search = "search": "search",
    SearchNext = "search_next": "next match",
    SearchPrev = "search_prev": "previous match",
    ToggleGrouping = "toggle_grouping": "group by hypothesis / failure category",
    OpenArchive = "open_archive": "open the archive it caused",
    Confirm = "confirm": "confirm",
    Cancel = "cancel": "cancel",
    NextField = "next_field": "next field",
    PrevField = "prev_field": "previous field",
    OpenRun = "open_run": "open the run",
    BackToRuns = "back_to_runs": "back to the runs view",
    Copy = "copy": "copy it to your clipboard (OSC 52, works over SSH)",
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A key as the keymap names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
}

impl Key {
    pub(crate) fn from_event(ev: &KeyEvent) -> Key {
        // Shift is part of the character ("G"), not a modifier to match on.
        let code = ev.code;
        Key {
            code,
            ctrl: ev.modifiers.contains(KeyModifiers::CONTROL),
            alt: ev.modifiers.contains(KeyModifiers::ALT),
        }
    }

    pub fn parse(raw: &str) -> Result<Key, String> {
        let mut rest = raw;
        let (mut ctrl, mut alt) = (false, false);
        loop {
            if let Some(r) = rest.strip_prefix("ctrl-") {
                ctrl = true;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("alt-") {
                alt = true;
                rest = r;
            } else {
                break;
            }
        }
        let code = match rest {
            "enter" => KeyCode::Enter,
            "esc" => KeyCode::Esc,
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "backspace" => KeyCode::Backspace,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "space" => KeyCode::Char(' '),
            s if s.len() > 1 && s.starts_with('f') && s[1..].parse::<u8>().is_ok() => {
                KeyCode::F(s[1..].parse().unwrap_or(1))
            }
            s if s.chars().count() == 1 => KeyCode::Char(s.chars().next().unwrap_or(' ')),
            _ => return Err(format!("unknown key `{raw}`")),
        };
        Ok(Key { code, ctrl, alt })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("ctrl-")?;
        }
        if self.alt {
            f.write_str("alt-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Esc => f.write_str("esc"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::BackTab => f.write_str("shift-tab"),
            KeyCode::PageUp => f.write_str("pgup"),
            KeyCode::PageDown => f.write_str("pgdn"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

macro_rules! modes {
    ($($variant:ident = $name:literal, pane: $pane:literal),+ $(,)?) => {
        /// A keymap table: where keys resolve (a pane, or an overlay above the panes).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Mode { $($variant),+ }

        impl Mode {
            pub const ALL: &'static [Mode] = &[$(Mode::$variant),+];

            /// The table's name in a keymap file (`[gates]`).
            pub fn name(self) -> &'static str {
                match self { $(Mode::$variant => $name),+ }
            }

            /// Pane tables fall back to `[global]`; overlays (dialogs, the viewer) do not,
            /// so a letter typed into a text field never quits.
            pub fn is_pane(self) -> bool {
                match self { $(Mode::$variant => $pane),+ }
            }
        }

        impl FromStr for Mode {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($name => Ok(Mode::$variant),)+
                    _ => Err(format!(
                        "unknown table [{s}]; the tables are: {}",
                        [$($name),+].map(|n| format!("[{n}]")).join(", ")
                    )),
                }
            }
        }

        impl fmt::Display for Mode {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

modes! {
    Global = "global", pane: true,
    Lifecycle = "lifecycle", pane: true,
    Gates = "gates", pane: true,
    Reflection = "reflection", pane: true,
    Events = "events", pane: true,
    Experiments = "experiments", pane: true,
    Plan = "plan", pane: true,
    Viewer = "viewer", pane: false,
    Paper = "paper", pane: false,
    Escalation = "escalation", pane: false,
    Review = "review", pane: false,
    Help = "help", pane: false,
    Dialog = "dialog", pane: false,
    Picker = "picker", pane: false,
    Search = "search", pane: false,
    Runs = "runs", pane: false,
}

/// The loaded keymap: per mode, key → command, in file order for help listings.
#[derive(Debug, Clone, Default)]
pub struct Keymap {
    modes: HashMap<Mode, Vec<(Key, Command)>>,
}

impl Keymap {
    /// The compiled-in default, with `overrides` (user files) applied in order.
    pub fn load(overrides: &[&str]) -> Result<Keymap, String> {
        let mut km = Keymap::default();
        km.merge(DEFAULT)
            .map_err(|e| format!("built-in keymap: {e}"))?;
        for o in overrides {
            km.merge(o)?;
        }
        Ok(km)
    }

    pub fn merge(&mut self, text: &str) -> Result<(), String> {
        let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
        for (name, keys) in table {
            let mode: Mode = name.parse()?;
            let keys = keys
                .as_table()
                .ok_or_else(|| format!("[{mode}] must be a table of \"key\" = \"command\""))?;
            let entries = self.modes.entry(mode).or_default();
            for (k, v) in keys {
                let key = Key::parse(k).map_err(|e| format!("[{mode}] {e}"))?;
                let name = v
                    .as_str()
                    .ok_or_else(|| format!("[{mode}] \"{k}\": the command must be a string"))?;
                entries.retain(|(existing, _)| *existing != key);
                if name != "none" {
                    entries.push((
                        key,
                        name.parse().map_err(|e| format!("[{mode}] \"{k}\": {e}"))?,
                    ));
                }
            }
        }
        Ok(())
    }

    /// The command `key` means in `mode`; pane modes fall back to `global`.
    pub fn resolve(&self, mode: Mode, key: Key) -> Option<Command> {
        let find = |m: Mode| {
            self.modes
                .get(&m)?
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, c)| *c)
        };
        find(mode).or_else(|| {
            if mode.is_pane() {
                find(Mode::Global)
            } else {
                None
            }
        })
    }

    /// Bindings of `mode` (then global for panes), one per command, for help and footer.
    pub fn bindings(&self, mode: Mode) -> Vec<(Key, Command)> {
        let mut out: Vec<(Key, Command)> = Vec::new();
        let mut push = |m: Mode| {
            for (k, c) in self.modes.get(&m).into_iter().flatten() {
                if !out.iter().any(|(_, oc)| oc == c) && self.resolve(mode, *k) == Some(*c) {
                    out.push((*k, *c));
                }
            }
        };
        push(mode);
        if mode.is_pane() {
            push(Mode::Global);
        }
        out
    }

    /// Every (mode, key, command) as loaded, for tests and documentation.
    pub fn all(&self) -> Vec<(Mode, Key, Command)> {
        let mut out: Vec<(Mode, Key, Command)> = self
            .modes
            .iter()
            .flat_map(|(m, v)| v.iter().map(move |(k, c)| (*m, *k, *c)))
            .collect();
        out.sort_by_key(|(m, _, c)| (m.name(), c.name()));
        out
    }

    /// The first key bound to `cmd` in `mode`, to name it in hints.
    /// The commands `mode`'s own table binds (not those it falls back to [global] for).
    pub(crate) fn bindings_of(&self, mode: Mode) -> Vec<Command> {
        self.modes
            .get(&mode)
            .into_iter()
            .flatten()
            .map(|(_, c)| *c)
            .collect()
    }

    pub(crate) fn key_for(&self, mode: Mode, cmd: Command) -> Option<Key> {
        self.bindings(mode)
            .into_iter()
            .find(|(_, c)| *c == cmd)
            .map(|(k, _)| k)
    }
}
