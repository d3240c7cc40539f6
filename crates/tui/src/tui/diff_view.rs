//! The Plan pane's diff viewer (`d`): a plan node's `code/` diff from its parent's, read off
//! the UI thread from the sub-hypothesis's repository (`plan::node_code`) and shown in the
//! scrollable, searchable text viewer. The diff is the model's and the experiment's text:
//! every line is escaped (`crate::term::escape`) before it reaches the terminal, and styled
//! by meaning (added, removed, hunk, file header).

use std::path::Path;

use ratatui::text::{Line, Span};

use super::dialogs::viewer::Viewer;
use super::theme::{Role, Theme};
use crate::plan::node_code::{self, SHOWN_LIMIT};
use crate::plan::{NodeId, Plans};

/// The viewer's title for `node`.
pub fn title(node: &str) -> String {
    format!("diff {node} ← parent (code/ and command)")
}

/// What the lines of a diff are, for their style.
fn role(line: &str) -> Role {
    if line.starts_with("+++") || line.starts_with("---") || line.starts_with("diff --git") {
        Role::Heading
    } else if line.starts_with("@@") {
        Role::Emphasis
    } else if line.starts_with('+') {
        Role::GatePassed
    } else if line.starts_with('-') {
        Role::GateFailed
    } else if line.starts_with("… diff cut") || line.starts_with("index ") {
        Role::Muted
    } else {
        Role::Text
    }
}

/// The diff as viewer lines: escaped, styled, tabs expanded (a tab would shift the columns).
pub fn lines(diff: &str, theme: &Theme) -> Vec<Line<'static>> {
    if diff.is_empty() {
        return vec![Line::styled(
            "no change to code/ from its parent".to_string(),
            theme.style(Role::Muted),
        )];
    }
    diff.lines()
        .map(|l| {
            let shown = crate::term::escape(&l.replace('\t', "    ")).into_owned();
            Line::from(Span::styled(shown, theme.style(role(l))))
        })
        .collect()
}

/// The viewer over `diff`, titled for `node`.
pub fn viewer(node: &str, diff: &str, theme: &Theme) -> Viewer {
    Viewer::new(title(node), lines(diff, theme))
}

/// Read `node`'s diff from the run (on a worker thread): the text, or why there is none.
pub fn read(run_root: &Path, node: &str) -> Result<String, String> {
    let node = NodeId::new(node).map_err(|e| e.to_string())?;
    let tree = crate::plan::load(run_root, Plans::Skip)
        .map_err(|e| e.to_string())?
        .tree;
    node_code::diff_to_parent(run_root, &tree, &node, SHOWN_LIMIT).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_by_line_table() {
        let cases = [
            ("diff --git a/code/x.py b/code/x.py", Role::Heading),
            ("--- a/code/x.py", Role::Heading),
            ("+++ b/code/x.py", Role::Heading),
            ("@@ -1,2 +1,3 @@", Role::Emphasis),
            ("+scale = True", Role::GatePassed),
            ("-scale = False", Role::GateFailed),
            (" unchanged", Role::Text),
            ("index 1234..5678 100644", Role::Muted),
            ("… diff cut: 4000 of 9000 characters shown", Role::Muted),
        ];
        for (line, want) in cases {
            assert_eq!(role(line), want, "{line}");
        }
    }

    #[test]
    fn control_characters_are_escaped() {
        let theme = Theme::builtin("mono", super::super::theme::ColorDepth::TrueColor).unwrap();
        let shown = lines("+print('\u{1b}[2Jgone')\n", &theme);
        let text = shown[0].to_string();
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(text.contains("\\u001b"), "{text:?}");
    }
}
