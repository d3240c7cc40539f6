//! Implementation Planning (Phase 3) for one sub-hypothesis: `03_tasks.yaml`, each task tied
//! to the brief section it implements, and the prd / architecture / logic / config documents.

use crate::llm::ReplySchema;
use crate::llm::schema as js;
use serde_json::Value;

use super::artifacts::{DESIGN_BRIEF, TASKS};
use super::{Produced, StageRunner};
use crate::engine::check::{Check, keys, sections};
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;
use crate::engine::reply::str_field;
use crate::engine::yamlout;

const DOCS: [(&str, &str); 4] = [
    ("prd", "03_prd.md"),
    ("architecture", "03_architecture.md"),
    ("logic", "03_logic.md"),
    ("config", "03_config.md"),
];

pub struct ImplementationPlanning;

/// Tasks that do not name a section of the brief (or name none) are listed as problems.
pub(crate) fn check_tasks(plan: &Value, brief: &str) -> Vec<String> {
    let Some(tasks) = plan
        .get("tasks")
        .and_then(Value::as_array)
        .filter(|t| !t.is_empty())
    else {
        return vec!["no tasks".into()];
    };
    tasks
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let id = str_field(t, "id").map_or(format!("task {}", i + 1), str::to_string);
            match str_field(t, "spec_section") {
                None => Some(format!("{id} names no spec_section")),
                Some(s) if !sections(brief, &[s]).ok() => Some(format!(
                    "{id} refers to \"{s}\", which the brief has no section for"
                )),
                Some(_) => None,
            }
        })
        .collect()
}

impl StageRunner for ImplementationPlanning {
    fn run(&self, ctx: &StageCtx<'_>, hypothesis: Option<&str>) -> Result<Produced, StageError> {
        let id = hypothesis.ok_or_else(|| {
            StageError::NotAvailable("Implementation Planning needs a sub-hypothesis".into())
        })?;
        let brief = ctx
            .read(&format!("{id}/{}", DESIGN_BRIEF))
            .unwrap_or_default();
        let snap = ctx.vsa()?;
        let statement = snap
            .vsa
            .hypothesis(id)
            .and_then(|h| h.statement.clone())
            .unwrap_or_default();
        let vars: Vars = [
            ("hypothesis", id.to_string()),
            ("statement", statement),
            ("brief", brief.clone()),
            ("resume", ctx.resume_text()),
        ]
        .into_iter()
        .collect();
        let plan = ctx.ask_json(
            "executor",
            "system/executor",
            "implementation_planning",
            &vars,
            &schema(),
        )?;
        let mut check = keys(&plan, &["tasks", "prd", "architecture", "logic", "config"]);
        let problems = check_tasks(&plan, &brief);
        check.missing.extend(
            problems
                .iter()
                .map(|p| format!("tasks tied to the brief ({p})")),
        );
        let tasks = serde_json::json!({ "hypothesis": id, "brief": DESIGN_BRIEF, "tasks": plan.get("tasks").cloned().unwrap_or(Value::Null) });
        let rel = format!("{id}/{TASKS}");
        ctx.write(
            &rel,
            &yamlout::document(
                &format!(
                    "Implementation tasks of {id}; each refers to the brief section it implements."
                ),
                &tasks,
            ),
        )?;
        for (key, file) in DOCS {
            if let Some(text) = str_field(&plan, key) {
                ctx.write(&format!("{id}/{file}"), &format!("{}\n", text))?;
            }
        }
        Ok(Produced::new(
            rel,
            Check {
                missing: check.missing,
            },
        ))
    }
}

/// The implementation plan: tasks tied to the brief's sections, and the four documents.
pub fn schema() -> ReplySchema {
    let task = js::object_with(
        &[
            ("id", js::text()),
            ("title", js::text()),
            ("spec_section", js::text()),
        ],
        &[("description", js::string()), ("test_first", js::boolean())],
    );
    ReplySchema::new(
        "implementation_plan",
        js::object(&[
            ("tasks", js::array(task, 1, None)),
            ("prd", js::text()),
            ("architecture", js::text()),
            ("logic", js::text()),
            ("config", js::text()),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_must_point_at_sections_of_the_brief() {
        let brief = "## Dataset\nx\n## Procedure\ny\n";
        let good = serde_json::json!({"tasks": [{"id": "T1", "spec_section": "Dataset"}, {"id": "T2", "spec_section": "procedure"}]});
        assert!(check_tasks(&good, brief).is_empty());
        let bad =
            serde_json::json!({"tasks": [{"id": "T1", "spec_section": "Budget"}, {"id": "T2"}]});
        assert_eq!(
            check_tasks(&bad, brief),
            vec![
                "T1 refers to \"Budget\", which the brief has no section for",
                "T2 names no spec_section"
            ]
        );
        assert_eq!(
            check_tasks(&serde_json::json!({"tasks": []}), brief),
            vec!["no tasks"]
        );
    }
}
