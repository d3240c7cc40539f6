//! SAGE's cause categories and the one rule that ranks causes (h* first), shared by the
//! attribution that chooses h*, the escalation the store keeps and the card that shows it.

use serde::Serialize;

/// Where a cause lies: the method (the code, the model, the hyperparameters) can be fixed
/// under the same design; a design cause (the experiment, the data, the hypothesis' framing)
/// cannot be fixed by touching the method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Category {
    Method,
    Design,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Method => "Method",
            Category::Design => "Design",
        }
    }

    /// `Method` / `Design`, any case, surrounding space ignored.
    pub fn parse(raw: &str) -> Option<Category> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "method" => Some(Category::Method),
            "design" => Some(Category::Design),
            _ => None,
        }
    }
}

/// Sort `items` into h*'s order by `(severity, is_design)`: higher severity first, Design
/// before Method on a tie, then the original order (a stable sort); unscored items last.
/// The one ranking rule: the engine's choice, the escalation it writes and the card that
/// shows it all use it.
pub fn rank<T>(items: &mut [T], key: impl Fn(&T) -> (Option<f64>, bool)) {
    items.sort_by(|a, b| {
        let ((sa, da), (sb, db)) = (key(a), key(b));
        let s = |x: Option<f64>| x.unwrap_or(f64::NEG_INFINITY);
        s(sb).total_cmp(&s(sa)).then(db.cmp(&da))
    });
}
