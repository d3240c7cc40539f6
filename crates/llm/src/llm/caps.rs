//! Output caps: the most tokens one call may produce, by role and stage. A request without
//! `max_tokens` lets a small model ramble to the server's context limit (12,000 characters
//! of invented JSON in minutes); each cap here fits what the call must write, with room.
//!
//! Overrides, in `youra.toml`:
//! ```toml
//! [llm.caps]
//! controller = 300                 # every stage
//! "executor.manuscript_drafting" = 8000  # one stage (the stage's key)
//! ```
//! A role's own `max_tokens` (`[llm.roles.<role>]`) sits between the two and the defaults.

use std::collections::BTreeMap;

/// The cap for `role` at `stage`: `"role.stage"`, then `"role"` in `caps`, then the role's
/// configured `max_tokens`, then [`default_cap`].
pub fn cap(caps: &BTreeMap<String, u32>, configured: Option<u32>, role: &str, stage: &str) -> u32 {
    caps.get(&format!("{role}.{stage}"))
        .or_else(|| caps.get(role))
        .copied()
        .or(configured)
        .unwrap_or_else(|| default_cap(role, stage))
}

/// The built-in caps. A decision needs a few hundred tokens; an artifact a few thousand.
pub(crate) fn default_cap(role: &str, stage: &str) -> u32 {
    match (role, stage) {
        ("controller", _) => 400, // a decision, or the debate moderator's verdict
        ("judge", _) => 600,
        ("critic", _) => 1000,
        ("generator", _) => 1500,
        ("persona", _) => 700,
        ("reflector", _) => 1500,
        ("reviewer", _) => 1500,
        ("coder", _) | ("executor", "coding_validation") => 6000,
        ("executor", "manuscript_drafting" | "manuscript_refinement" | "fact_review") => 6000,
        ("executor", "implementation_planning") => 3000,
        ("executor", _) => 2500,
        _ => 2000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_beat_the_role_setting_which_beats_the_defaults() {
        let mut caps = BTreeMap::new();
        assert_eq!(cap(&caps, None, "controller", "problem_scoping"), 400);
        assert_eq!(cap(&caps, Some(900), "controller", "problem_scoping"), 900);
        caps.insert("controller".to_string(), 300);
        assert_eq!(cap(&caps, Some(900), "controller", "problem_scoping"), 300);
        caps.insert("controller.problem_scoping".to_string(), 250);
        assert_eq!(cap(&caps, None, "controller", "problem_scoping"), 250);
        assert_eq!(cap(&caps, None, "controller", "literature_grounding"), 300);
        assert_eq!(cap(&caps, None, "executor", "manuscript_drafting"), 6000);
        assert_eq!(cap(&caps, None, "unknown-role", "x"), 2000);
    }
}
