//! The files the hypothesis loop's stages hand each other, per sub-hypothesis folder: the
//! brief Experiment Design writes, the tasks Implementation Planning writes, the record
//! Coding & Validation writes. Named below every stage (and below recovery, which quotes the
//! record to the controller), so a stage reads another's output without importing it.

/// Experiment Design's brief: dataset, model, metrics, gate criteria, procedure.
pub(crate) const DESIGN_BRIEF: &str = "02c_experiment_brief.md";

/// Implementation Planning's task list, each task tied to the brief section it implements.
pub const TASKS: &str = "03_tasks.yaml";

/// Coding & Validation's record: the gate judged on what was measured.
pub(crate) const VALIDATION: &str = "04_validation.md";
