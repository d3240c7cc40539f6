//! Prompt templates: compiled into the binary from `prompts/`, overridable by the user
//! config dir (`<config>/prompts/`) and by the run (`<run>/prompts/`), in that order.
//! Variables are `{{name}}`; a template that names a variable the stage does not supply is
//! an error naming both, never a prompt with a hole in it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

macro_rules! compiled {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../../../prompts/", $name, ".md")))),*]
    };
}

/// Every template the engine uses, by name (its path under `prompts/` without `.md`).
pub(crate) const COMPILED: &[(&str, &str)] = compiled![
    "system/executor",
    "system/controller",
    "system/persona",
    "system/reviewer",
    "controller",
    "controller_route",
    "problem_scoping",
    "literature_grounding",
    "debate/gap_selection",
    "debate/turn",
    "debate/moderator",
    "debate/synthesis",
    "debate/refinement",
    "personas/novelty",
    "personas/falsifiability",
    "personas/impact",
    "personas/feasibility",
    "personas/strengthening",
    "personas/stress_testing",
    "verification_planning",
    "experiment_design",
    "implementation_planning",
    "coding",
    "fabrication_check",
    "attribution_generate",
    "attribution_critique",
    "verdict_clamp",
    "evidence_check",
    "manuscript_drafting",
    "fact_review",
    "manuscript_refinement",
];

#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("no prompt template `{0}` (compiled ones: prompts/*.md)")]
    Unknown(String),
    #[error(
        "prompt template `{name}` ({origin}) uses {{{{{var}}}}}, which this stage does not supply (it supplies: {supplied})"
    )]
    MissingVar {
        name: String,
        origin: String,
        var: String,
        supplied: String,
    },
    #[error("cannot read prompt override {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

pub struct Prompts {
    /// Override folders, most specific last.
    overrides: Vec<PathBuf>,
}

impl Prompts {
    pub fn new(run: &Path) -> Prompts {
        let mut overrides = Vec::new();
        if let Some(d) = crate::config::user_config_dir() {
            overrides.push(d.join("prompts"));
        }
        overrides.push(run.join("prompts"));
        Prompts { overrides }
    }

    /// The template text and where it came from.
    pub fn source(&self, name: &str) -> Result<(String, String), TemplateError> {
        for dir in self.overrides.iter().rev() {
            let path = dir.join(format!("{name}.md"));
            match crate::fsutil::read_run_text(&path) {
                Ok(t) => return Ok((t, path.display().to_string())),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(TemplateError::Io { path, source }),
            }
        }
        COMPILED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| (t.to_string(), format!("compiled prompts/{name}.md")))
            .ok_or_else(|| TemplateError::Unknown(name.to_string()))
    }

    pub fn render(
        &self,
        name: &str,
        vars: &BTreeMap<&str, String>,
    ) -> Result<String, TemplateError> {
        let (text, origin) = self.source(name)?;
        render(&text, vars).map_err(|var| TemplateError::MissingVar {
            name: name.to_string(),
            origin,
            var,
            supplied: vars.keys().copied().collect::<Vec<_>>().join(", "),
        })
    }
}

/// Substitute `{{name}}` (spaces inside the braces allowed); `Err(name)` for the first
/// variable `vars` lacks. Substituted values are not re-scanned, so a model's reply that
/// contains braces cannot inject a variable.
pub fn render(text: &str, vars: &BTreeMap<&str, String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open + 2..].find("}}") else {
            break;
        };
        let name = rest[open + 2..open + 2 + close].trim();
        out.push_str(&rest[..open]);
        match vars.get(name) {
            Some(v) => out.push_str(v),
            None => return Err(name.to_string()),
        }
        rest = &rest[open + 2 + close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&'static str, &str)]) -> BTreeMap<&'static str, String> {
        pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
    }

    #[test]
    fn substitutes_named_variables_once() {
        let v = vars(&[("topic", "grokking {{x}}"), ("n", "3")]);
        assert_eq!(
            render("T={{topic}}; n={{ n }}.", &v).unwrap(),
            "T=grokking {{x}}; n=3."
        );
        assert_eq!(render("{{missing}}", &v).unwrap_err(), "missing");
        assert_eq!(render("no vars {", &v).unwrap(), "no vars {");
    }

    #[test]
    fn every_compiled_template_renders_with_its_stage_vars_known() {
        for (name, text) in COMPILED {
            assert!(!text.trim().is_empty(), "{name} is empty");
        }
    }

    #[test]
    fn run_override_wins() {
        let run = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(run.path().join("prompts")).unwrap();
        std::fs::write(run.path().join("prompts/controller.md"), "mine {{a}}").unwrap();
        let p = Prompts {
            overrides: vec![run.path().join("prompts")],
        };
        assert_eq!(
            p.render("controller", &vars(&[("a", "1")])).unwrap(),
            "mine 1"
        );
        let e = p.render("controller", &vars(&[])).unwrap_err().to_string();
        assert!(
            e.contains("{{a}}") && e.contains("prompts/controller.md"),
            "{e}"
        );
    }
}
