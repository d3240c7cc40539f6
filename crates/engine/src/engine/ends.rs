//! How a step and one attempt of it end: the words the loop (`run.rs`), the experiments in
//! flight (`parallel.rs`) and the controller's judgement (`stage_end.rs`) hand each other.
//! They live below all three so that none of those files imports another for a type.

/// How one step ended.
pub(super) enum StepEnd {
    Complete,
    Stop(String),
    /// Recovery moved the run; nothing to mark.
    Rerouted,
    /// Its experiment runs on; the step ends when it lands (`parallel.rs`).
    Flying,
}

/// One attempt of a step, as the controller's judgement needs it.
pub(super) struct Attempted {
    pub round: u32,
    pub attempt: u32,
    pub resume: Option<String>,
    pub started: std::time::Instant,
}

/// After an attempt: the step's end, or another attempt with this instruction.
pub(super) enum Settled {
    End(StepEnd),
    Again(String),
}
