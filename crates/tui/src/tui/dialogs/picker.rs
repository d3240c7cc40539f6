//! Choosing a file to open in the viewer: a hypothesis's artifacts, the run's, or its logs.

use std::path::PathBuf;

use super::outcome::Outcome;
use crate::tui::effect::Effect;
use crate::tui::keymap::Command;

pub struct Picker {
    pub title: String,
    pub root: PathBuf,
    pub items: Vec<PathBuf>,
    pub selected: usize,
}

impl Picker {
    pub(crate) fn on_key(&mut self, cmd: Option<Command>) -> Outcome {
        match cmd {
            Some(Command::Close | Command::Cancel) => Outcome::Close,
            Some(Command::Down) => {
                self.selected = (self.selected + 1).min(self.items.len().saturating_sub(1));
                Outcome::Stay
            }
            Some(Command::Up) => {
                self.selected = self.selected.saturating_sub(1);
                Outcome::Stay
            }
            Some(Command::Confirm) => match self.items.get(self.selected) {
                Some(p) => Outcome::Run(Effect::OpenFile(p.clone())),
                None => Outcome::Close,
            },
            _ => Outcome::Stay,
        }
    }

    /// The item as listed: relative to the picker's root.
    pub fn label(&self, i: usize) -> String {
        self.items
            .get(i)
            .map(|p| {
                p.strip_prefix(&self.root)
                    .unwrap_or(p)
                    .display()
                    .to_string()
            })
            .unwrap_or_default()
    }
}
