//! The review card (issue 42 item 1, decision 0040): an experiment that waits for the
//! researcher before it runs — sub-hypothesis, plan node, what it tests (the gate's criteria),
//! the command, the estimated cost, and the code's diff from the parent node, syntax-highlighted
//! by the changed file's language (syntect, `highlight.rs`) with the diff's own marks styled by
//! meaning. Keys: approve, reject (a reason), branch, edit (your `$EDITOR` on a scratch copy of
//! the node's file; the saved file becomes the edit). Reading the record and highlighting run on
//! a worker ([`read`]); the keys are pure ([`on_key`], [`command`]): each answer goes through the
//! reason dialog to the same `steer` request as `youra steer RUN review …`.

use std::path::{Path, PathBuf};

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::app::App;
use super::dialogs::overlay::Overlay;
use super::dialogs::reason::ReasonDialog;
use super::effect::Effect;
use super::keymap::{Command, Mode};
use super::review_card_state::ReviewCard;
use super::theme::{Role, Theme};
use crate::steer::Verb;
use crate::term::escape;
use crate::vsa::review::PendingReview;

/// The largest review record read (it holds a bounded diff).
const MAX_RECORD: u64 = 4 * 1024 * 1024;

/// Read the waiting review's record (`reviews/<id>.json`, no link followed, capped) and
/// highlight its diff; the error says why there is no card.
pub fn read(run: &Path, review: &PendingReview, theme: &Theme) -> Result<ReviewCard, String> {
    let rel = review
        .record
        .as_deref()
        .ok_or("the waiting review names no record")?;
    let bytes = crate::fsutil::read_beneath(run, Path::new(rel), MAX_RECORD)
        .map_err(|e| format!("cannot read {rel}: {e}"))?;
    let v: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("{rel} is not a review record: {e}"))?;
    Ok(card_of(&v, theme))
}

/// The card from a record (pure).
pub fn card_of(v: &serde_json::Value, theme: &Theme) -> ReviewCard {
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
    let opt = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let argv: Vec<String> = v
        .get("command")
        .and_then(|c| c.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let diff = s("diff");
    let cost = v.get("cost").map(cost_line).unwrap_or_default();
    ReviewCard {
        id: s("id"),
        hypothesis: s("hypothesis"),
        statement: s("statement"),
        node: opt("node"),
        parent: opt("parent"),
        criteria: v
            .get("criteria")
            .and_then(|c| c.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        command: argv.join(" "),
        cost,
        edit_file: edit_target(&argv, &diff),
        diff: diff_lines(&diff, theme),
        scroll: 0,
    }
}

/// `~12k tokens · ~41 s (limit 900 s) · from 3 nodes of h-e1` from the record's `cost`.
fn cost_line(c: &serde_json::Value) -> String {
    let tokens = c
        .get("tokens")
        .and_then(|t| t.as_u64())
        .map_or_else(|| "tokens unknown".to_string(), |t| format!("~{t} tokens"));
    let wall = c
        .get("wall_s")
        .and_then(|t| t.as_f64())
        .map_or_else(|| "time unknown".to_string(), |w| format!("~{w:.0} s"));
    let limit = c.get("limit_s").and_then(|t| t.as_f64()).unwrap_or(0.0);
    let basis = c.get("basis").and_then(|b| b.as_str()).unwrap_or("");
    format!("{tokens} · {wall} (limit {limit:.0} s) · {basis}")
}

/// The file `e` edits: the script the command runs when the diff touches it, else the first
/// file the diff changes (paths under `code/`).
pub(crate) fn edit_target(argv: &[String], diff: &str) -> Option<String> {
    let changed: Vec<&str> = diff
        .lines()
        .filter_map(|l| l.strip_prefix("+++ b/code/"))
        .collect();
    argv.iter()
        .skip(1)
        .find(|a| changed.contains(&a.as_str()))
        .cloned()
        .or_else(|| changed.first().map(|c| c.to_string()))
}

/// The diff's lines: file headers and hunks styled by meaning, each changed or kept line's
/// code highlighted by its file's language, its `+`/`-` mark coloured as added or removed.
/// Every piece is escaped first: the diff is model-written text.
pub(crate) fn diff_lines(diff: &str, theme: &Theme) -> Vec<Line<'static>> {
    if diff.trim().is_empty() {
        return vec![Line::styled(
            "no change to code/ from the parent node".to_string(),
            theme.style(Role::Muted),
        )];
    }
    let mut out = Vec::new();
    let mut ext = String::new();
    let mut body: Vec<(char, String)> = Vec::new();
    let flush = |body: &mut Vec<(char, String)>, ext: &str, out: &mut Vec<Line<'static>>| {
        if body.is_empty() {
            return;
        }
        let text: String = body.iter().map(|(_, l)| format!("{l}\n")).collect();
        let lit = super::highlight::highlight(&text, ext, theme.depth);
        for ((mark, _), line) in body.drain(..).zip(lit) {
            let role = match mark {
                '+' => Role::GatePassed,
                '-' => Role::GateFailed,
                _ => Role::Muted,
            };
            let mut spans = vec![Span::styled(mark.to_string(), theme.style(role))];
            spans.extend(line.spans);
            out.push(Line::from(spans));
        }
    };
    for raw in diff.lines() {
        let l = escape(&raw.replace('\t', "    ")).into_owned();
        let header = l.starts_with("diff --git") || l.starts_with("+++") || l.starts_with("---");
        if header || l.starts_with("@@") || l.starts_with("… diff cut") {
            flush(&mut body, &ext, &mut out);
            if let Some(p) = l.strip_prefix("+++ b/") {
                ext = p.rsplit('.').next().unwrap_or("").to_string();
            }
            let role = if l.starts_with("@@") {
                Role::Emphasis
            } else if header {
                Role::Heading
            } else {
                Role::Muted
            };
            out.push(Line::styled(l, theme.style(role)));
            continue;
        }
        let mut chars = l.chars();
        let mark = chars.next().unwrap_or(' ');
        body.push((mark, chars.as_str().to_string()));
    }
    flush(&mut body, &ext, &mut out);
    out
}

/// The card's keys (pure): an answer opens the reason dialog, `e` asks the runtime for the
/// editor, j/k and pages scroll the diff, esc closes.
pub(crate) fn on_key(app: &mut App, cmd: Option<Command>) -> Vec<Effect> {
    let Some(Overlay::Review(card)) = app.overlay.as_mut() else {
        return Vec::new();
    };
    let step: i32 = match cmd {
        Some(Command::Down) => 1,
        Some(Command::Up) => -1,
        Some(Command::PageDown) => 10,
        Some(Command::PageUp) => -10,
        Some(Command::Top) => -i32::from(u16::MAX),
        Some(Command::Bottom) => i32::from(u16::MAX),
        Some(Command::Close | Command::Cancel) => {
            app.overlay = None;
            return Vec::new();
        }
        Some(c) => return command(app, c),
        None => return Vec::new(),
    };
    let last = card.diff.len().saturating_sub(1) as i32;
    card.scroll = (i32::from(card.scroll) + step).clamp(0, last.min(i32::from(u16::MAX))) as u16;
    Vec::new()
}

/// An experiment waits for review in the run as last read.
pub fn waits(app: &App) -> bool {
    app.data
        .vsa
        .as_ref()
        .is_some_and(|s| s.vsa.workflow.awaits_review())
}

/// The review's commands, from the card (its own review) or, while one waits, any pane.
pub fn command(app: &mut App, cmd: Command) -> Vec<Effect> {
    let waiting = app
        .data
        .vsa
        .as_ref()
        .and_then(|s| s.vsa.workflow.review.clone())
        .filter(|r| r.waits())
        .map(|r| (r.hypothesis.unwrap_or_default(), r.node, None));
    let from_card = match &app.overlay {
        Some(Overlay::Review(c)) => {
            Some((c.hypothesis.clone(), c.node.clone(), c.edit_file.clone()))
        }
        _ => None,
    };
    let opening = cmd == Command::OpenReview;
    let Some((h, node, edit_file)) = (if opening {
        waiting.clone()
    } else {
        from_card.or(waiting)
    }) else {
        app.toast = Some(("no experiment waits for review".into(), false));
        return Vec::new();
    };
    let what = format!(
        "{h}'s experiment{}",
        node.as_deref()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default()
    );
    let (answer, about) = match cmd {
        Command::OpenReview => return vec![Effect::OpenReview],
        Command::ReviewApprove => ("approve", format!("run {what} as it is")),
        Command::ReviewReject => (
            "reject",
            format!(
                "do not run {what}: its node is pruned and your reason goes to the next expansion"
            ),
        ),
        Command::ReviewBranch => (
            "branch",
            format!("run {what} and the rest of its sub-hypothesis without asking again"),
        ),
        Command::ReviewEdit => {
            let Some(file) = edit_file.filter(|_| !h.is_empty()) else {
                app.toast = Some((
                    "open the card (it names the file to edit) and press e there".into(),
                    true,
                ));
                return Vec::new();
            };
            return vec![Effect::EditReview {
                source: PathBuf::from(h).join("code").join(&file),
                file,
            }];
        }
        _ => return Vec::new(),
    };
    let dialog = ReasonDialog::new(
        Some(Verb::Review),
        Some(answer.to_string()),
        about,
        Vec::new(),
    );
    app.overlay = Some(Overlay::Reason(Box::new(dialog)));
    Vec::new()
}

/// Back from the editor: the saved scratch file becomes the edit once a reason is given.
pub fn edited(app: &mut App, file: String, scratch: Result<PathBuf, String>) {
    match scratch {
        Ok(path) => {
            let mut d = ReasonDialog::new(
                Some(Verb::Review),
                Some(format!("edit {file}")),
                format!("run your version of code/{file} as the node's code"),
                Vec::new(),
            );
            d.plan_file = Some(path.display().to_string());
            app.overlay = Some(Overlay::Reason(Box::new(d)));
        }
        Err(e) => app.toast = Some((e, true)),
    }
}

/// Copy `run/source` to a scratch folder and open it in `$EDITOR` (else `vi`); the scratch
/// file when the editor exited 0 and the file changed. Runs with the terminal released.
pub fn run_editor(run: &Path, source: &Path) -> Result<PathBuf, String> {
    let bytes = crate::fsutil::read_beneath(run, source, crate::steer::review::MAX_EDIT_BYTES)
        .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
    let name = source
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "code".into());
    // A private folder of its own (mode 0700, made new: a /tmp name another user planted as
    // a link is refused, never written through).
    let dir = std::env::temp_dir().join(format!(
        "youra-review-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    {
        use std::os::unix::fs::DirBuilderExt;
        // `mkdir` of a name that exists (a planted link included) fails: never reused.
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    }
    let scratch = dir.join(&name);
    std::fs::write(&scratch, &bytes)
        .map_err(|e| format!("cannot write {}: {e}", scratch.display()))?;
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let status = std::process::Command::new(program)
        .args(words)
        .arg(&scratch)
        .status()
        .map_err(|e| format!("cannot start the editor `{program}`: {e}"))?;
    if !status.success() {
        return Err(format!(
            "the editor `{program}` exited with {status}: nothing changed"
        ));
    }
    // Read back as any file the researcher's editor may have replaced: no link, capped.
    let after =
        crate::fsutil::read_beneath(&dir, Path::new(&name), crate::steer::review::MAX_EDIT_BYTES)
            .map_err(|e| format!("cannot read {}: {e}", scratch.display()))?;
    if after == bytes {
        return Err("the file is unchanged: no edit (press a to approve it as it is)".into());
    }
    Ok(scratch)
}

/// Draw the card over `area`: header (sub-hypothesis, node, criteria, command, cost) whole,
/// the diff below it scrolled, the keys in the footer.
pub fn draw(app: &App, card: &ReviewCard, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    frame.render_widget(Clear, area);
    let title = format!(
        " Review {} · {} {} ",
        escape(&card.id),
        escape(&card.hypothesis),
        card.node
            .as_deref()
            .map(|n| format!("· {}", escape(n)))
            .unwrap_or_default()
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.style(Role::Attention))
        .title(Span::styled(title, t.style(Role::Title)));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let label = |s: &str| Span::styled(format!("{s:<9}"), t.style(Role::Muted));
    let node = match (&card.node, &card.parent) {
        (Some(n), Some(p)) => format!(
            "{} (child of {}): its diff from the parent",
            escape(n),
            escape(p)
        ),
        (Some(n), None) => format!("{} (a root: every line is new)", escape(n)),
        _ => "no plan tree: the code as written".into(),
    };
    let header = vec![
        Line::from(vec![
            label("claim"),
            Span::styled(escape(&card.statement).into_owned(), t.style(Role::Text)),
        ]),
        Line::from(vec![label("node"), Span::styled(node, t.style(Role::Text))]),
        Line::from(vec![
            label("tests"),
            Span::styled(
                escape(&card.criteria.join(" · ")).into_owned(),
                t.style(Role::Emphasis),
            ),
        ]),
        Line::from(vec![
            label("command"),
            Span::styled(escape(&card.command).into_owned(), t.style(Role::MdCode)),
        ]),
        Line::from(vec![
            label("cost"),
            Span::styled(escape(&card.cost).into_owned(), t.style(Role::Text)),
        ]),
    ];
    let width = inner.width.max(1) as usize;
    let rows: u16 = header
        .iter()
        .map(|l| l.width().div_ceil(width).max(1) as u16)
        .sum();
    let [top, diff, foot] = Layout::vertical([
        Constraint::Length(rows.min(inner.height.saturating_sub(4))),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(header).wrap(Wrap { trim: false }), top);
    let diff_block = Block::default()
        .borders(Borders::TOP)
        .border_style(t.style(Role::Border));
    let shown: Vec<Line> = card
        .diff
        .iter()
        .skip(card.scroll as usize)
        .cloned()
        .collect();
    frame.render_widget(Paragraph::new(shown).block(diff_block), diff);
    let key = |c: Command| {
        app.keymap
            .key_for(Mode::Review, c)
            .map(|k| k.to_string())
            .unwrap_or_else(|| format!(":{}", c.name()))
    };
    let keys = [
        (Command::ReviewApprove, "approve"),
        (Command::ReviewReject, "reject"),
        (Command::ReviewBranch, "branch"),
        (Command::ReviewEdit, "edit"),
        (Command::Down, "scroll"),
        (Command::Close, "close"),
    ];
    let mut spans = Vec::new();
    for (c, what) in keys {
        spans.push(Span::styled(key(c), t.style(Role::Key)));
        spans.push(Span::styled(format!(" {what}  "), t.style(Role::Footer)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), foot);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_to_edit_is_the_commands_script_when_changed() {
        let diff = "+++ b/code/util.py\n@@\n+x\n+++ b/code/train.py\n@@\n+y\n";
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            edit_target(&argv(&["python3", "train.py"]), diff).as_deref(),
            Some("train.py")
        );
        assert_eq!(
            edit_target(&argv(&["python3", "other.py"]), diff).as_deref(),
            Some("util.py")
        );
        assert_eq!(edit_target(&argv(&["python3"]), ""), None);
    }

    #[test]
    fn diff_marks_are_styled_and_model_text_is_escaped() {
        let theme = Theme::builtin("dark", super::super::theme::ColorDepth::TrueColor).unwrap();
        let lines = diff_lines(
            "+++ b/code/a.py\n@@ -0,0 +1 @@\n+print('\u{1b}[2J')\n-x = 1\n",
            &theme,
        );
        assert_eq!(lines.len(), 4);
        let added = lines[2].to_string();
        assert!(
            added.starts_with("+print(") && !added.contains('\u{1b}'),
            "{added:?}"
        );
        assert_eq!(lines[2].spans[0].style, theme.style(Role::GatePassed));
        assert_eq!(lines[3].spans[0].style, theme.style(Role::GateFailed));
        assert!(
            lines[2].spans.len() > 2,
            "the code itself is highlighted: {:?}",
            lines[2]
        );
    }
}
