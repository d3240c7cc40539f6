//! What a dialog decided about a key: below every dialog that answers one and the overlay
//! that boxes them.

use crate::tui::effect::Effect;

/// What a dialog decided about a key.
pub enum Outcome {
    Stay,
    Close,
    Run(Effect),
}
