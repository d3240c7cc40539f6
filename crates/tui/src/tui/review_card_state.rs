//! The review card's data, below the overlay that shows it and the card that reads, draws
//! and answers it (`review_card.rs`).

use ratatui::text::Line;

/// The card's data, read from `reviews/<id>.json` and highlighted off the UI thread.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewCard {
    pub id: String,
    pub hypothesis: String,
    pub statement: String,
    pub node: Option<String>,
    pub parent: Option<String>,
    pub criteria: Vec<String>,
    pub command: String,
    pub cost: String,
    pub diff: Vec<Line<'static>>,
    /// The file `e` opens: the command's script when the code has it, else the first changed.
    pub edit_file: Option<String>,
    /// Rows of the diff scrolled past.
    pub scroll: u16,
}
