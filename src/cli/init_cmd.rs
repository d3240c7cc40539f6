//! `youra init DIR --topic … [--provider P --model M --base-url U] [--data PATH…]`: a new
//! run folder (with a read-only copy of the researcher's data in `data/`) whose
//! `youra.toml` names the model the researcher chose once, in `[llm.default]`, and no role
//! on a model of its own: every role then follows that choice (and `YOURA_MODEL`, the
//! flags), so none is left on a model nobody chose. The critic's and the judge's own tables
//! are offered commented out, as is `[plan]` (the plan tree is off until it is given a budget).

use std::path::Path;

use color_eyre::eyre::{WrapErr, eyre};

use crate::engine::init::{InitOptions, init};
use crate::llm::ProviderKind;

/// The endpoint the run's roles use, as the researcher chose it (flags, else `YOURA_*`).
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub provider: ProviderKind,
    pub model: String,
    pub base_url: Option<String>,
    /// `--role ROLE=MODEL`: the roles the researcher put on a model of their own.
    pub roles: Vec<(String, String)>,
    /// False when nothing was chosen and the compiled suggestion is written.
    pub chosen: bool,
}

/// The model written when the researcher names none (OpenAI's endpoint, its key variable).
const SUGGESTED_MODEL: &str = "gpt-4o-mini";

impl Choice {
    /// From `--provider/--model/--base-url`, each falling back to its `YOURA_*` variable
    /// (`env`), then to the suggestion. A provider without a model is refused: a local
    /// server's model name is the researcher's to give.
    pub fn resolve(
        flags: &crate::config_sources::Flags,
        env: impl Fn(&str) -> Option<String>,
    ) -> color_eyre::Result<Choice> {
        let pick = |flag: &Option<String>, var: &str| {
            flag.clone()
                .or_else(|| env(var))
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let provider = pick(&flags.provider, "YOURA_PROVIDER");
        let model = pick(&flags.model, "YOURA_MODEL");
        let base_url = pick(&flags.base_url, "YOURA_BASE_URL");
        let kind = match &provider {
            Some(p) => parse_provider(p)?,
            None => ProviderKind::Openai,
        };
        let chosen = provider.is_some() || model.is_some() || base_url.is_some();
        let model = match (model, kind) {
            (Some(m), _) => m,
            (None, ProviderKind::Openai) if base_url.is_none() => SUGGESTED_MODEL.to_string(),
            (None, ProviderKind::Replay) => String::new(),
            (None, kind) => {
                return Err(eyre!(
                    "--provider {} needs --model: the name the server serves (`ollama list`, GET <base_url>/models), e.g. `--model qwen3:8b`",
                    kind.as_str()
                ));
            }
        };
        Ok(Choice {
            provider: kind,
            model,
            base_url,
            roles: flags.roles.clone(),
            chosen,
        })
    }
}

fn parse_provider(name: &str) -> color_eyre::Result<ProviderKind> {
    let quoted = serde_json::Value::String(name.to_ascii_lowercase());
    serde_json::from_value(quoted).map_err(|_| {
        eyre!(
            "--provider {name:?} is not a provider: use openai (any OpenAI-compatible server), anthropic, openrouter, ollama, vllm, llamacpp or replay"
        )
    })
}

pub fn run(
    dir: &Path,
    topic: &str,
    mode: &str,
    name: Option<String>,
    data: &[std::path::PathBuf],
) -> color_eyre::Result<i32> {
    let choice = Choice::resolve(&crate::config_sources::flags(), |k| std::env::var(k).ok())
        .wrap_err("youra init")?;
    // Walked before anything is written: a refused link or FIFO leaves no half-made run.
    let data_plan = crate::engine::init::plan_data(data, crate::engine::init::DATA_CAP)
        .wrap_err("youra init: nothing was written")?;
    let opts = InitOptions {
        topic: topic.to_string(),
        name,
        mode: mode.to_string(),
        llm_toml: llm_toml(&choice),
    };
    init(dir, &opts).wrap_err("youra init")?;
    let copied = if data.is_empty() {
        0
    } else {
        crate::engine::init::copy_data(dir, &data_plan).wrap_err("youra init --data")?
    };
    let word = crate::notice::message::shell_word(&dir.display().to_string());
    println!(
        "initialised {} ({} mode); every role uses {} {}{}",
        dir.display(),
        mode.to_ascii_uppercase(),
        choice.provider.as_str(),
        if choice.model.is_empty() {
            "(the replay bundle)"
        } else {
            &choice.model
        },
        choice
            .base_url
            .as_deref()
            .map(|u| format!(" at {u}"))
            .unwrap_or_default()
    );
    if !choice.chosen {
        println!(
            "no model was chosen: edit [llm.default] in {word}/youra.toml (or give --provider, --model, --base-url)"
        );
    }
    if !data.is_empty() {
        println!(
            "copied {copied} data file(s) into {word}/data/ (read-only; sha256 in data/{}): experiments read them there and have no network",
            crate::engine::init::DATA_MANIFEST
        );
    }
    println!("check the endpoint with `youra doctor {word}`, then `youra run {word}`");
    if let Ok(c) = crate::config::load(dir) {
        for w in c.llm.settings().independence_warnings() {
            println!("warning: {w}");
        }
    }
    Ok(0)
}

fn toml_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// The `[llm]` and `[plan]` part of a new run's `youra.toml`.
pub fn llm_toml(c: &Choice) -> String {
    let mut out = String::new();
    out.push_str(
        "# While a model endpoint does not answer (connection refused, timeouts, HTTP 429 and 5xx)\n\
         # the run waits and retries with backoff for this many seconds, then stops; `youra run`\n\
         # on the run (or `youra steer <run> resume`) goes on from there.\n\
         [llm]\noutage_wait_s = 1800\n\n",
    );
    out.push_str(
        "# Models per role: every role uses [llm.default] unless its own [llm.roles.<role>] sets a\n\
         # model (roles: executor, controller, generator, critic, judge, persona, reviewer,\n\
         # reflector, coder). `provider` is openai (any OpenAI-compatible server), anthropic,\n\
         # openrouter, or a local server: ollama (http://localhost:11434/v1), vllm (:8000/v1),\n\
         # llamacpp (:8080/v1); base_url moves it. Keys come only from the environment\n\
         # (OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY; a local server needs none).\n\
         # `youra doctor <run>` checks every role's endpoint and model name.\n[llm.default]\n",
    );
    out.push_str(&format!("provider = {}\n", toml_str(c.provider.as_str())));
    if !c.model.is_empty() {
        out.push_str(&format!("model = {}\n", toml_str(&c.model)));
    }
    match &c.base_url {
        Some(u) => out.push_str(&format!("base_url = {}\n", toml_str(u))),
        None => out.push_str("# base_url = \"…\"   # unset: the provider's own address\n"),
    }
    // Only the roles the researcher named get a model of their own.
    for (role, model) in &c.roles {
        out.push_str(&format!(
            "\n[llm.roles.{role}]\nmodel = {}\n",
            toml_str(model)
        ));
    }
    out.push_str(
        "\n# One role on another model, e.g. the Independent Controller:\n\
         # [llm.roles.controller]\n# model = \"…\"\n\n\
         # The critic and the clamp judge check the generator's failure attribution: on another\n\
         # model the generator does not grade itself (init and doctor warn while they coincide).\n\
         # [llm.roles.critic]\n# model = \"…\"\n# [llm.roles.judge]\n# model = \"…\"\n\n\
         # Output caps (tokens) by role or role.stage; prices in US$ per million tokens.\n\
         # [llm.caps]\n# \"executor.manuscript_drafting\" = 8000\n\
         # [llm.prices]\n# \"my-model\" = { input = 0.15, output = 0.6 }\n\n",
    );
    // The plan tree on in a researcher's run (issue 41; `PlanSettings::init_toml`).
    out.push_str(&crate::config::PlanSettings::init_toml());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config_sources::Flags;

    fn flags(p: Option<&str>, m: Option<&str>, u: Option<&str>) -> Flags {
        Flags {
            provider: p.map(str::to_string),
            model: m.map(str::to_string),
            base_url: u.map(str::to_string),
            roles: Vec::new(),
        }
    }

    #[test]
    fn flags_win_over_variables_and_a_provider_needs_a_model() {
        let env = |k: &str| match k {
            "YOURA_PROVIDER" => Some("ollama".to_string()),
            "YOURA_MODEL" => Some("qwen3:8b".to_string()),
            _ => None,
        };
        let c = Choice::resolve(&flags(None, None, None), env).unwrap();
        assert_eq!(
            (c.provider, c.model.as_str(), c.chosen),
            (ProviderKind::Ollama, "qwen3:8b", true)
        );
        let c =
            Choice::resolve(&flags(Some("openai"), Some("m"), Some("http://h/v1")), env).unwrap();
        assert_eq!((c.provider, c.model.as_str()), (ProviderKind::Openai, "m"));
        assert_eq!(c.base_url.as_deref(), Some("http://h/v1"));
        let none = |_: &str| None;
        let err = Choice::resolve(&flags(Some("vllm"), None, None), none).unwrap_err();
        assert!(
            format!("{err}").contains("--provider vllm needs --model"),
            "{err}"
        );
        let err = Choice::resolve(&flags(Some("olama"), Some("m"), None), none).unwrap_err();
        assert!(format!("{err}").contains("is not a provider"), "{err}");
        let c = Choice::resolve(&flags(None, None, None), none).unwrap();
        assert_eq!((c.model.as_str(), c.chosen), (SUGGESTED_MODEL, false));
    }

    #[test]
    fn no_role_gets_a_model_of_its_own() {
        let c = Choice {
            provider: ProviderKind::Openai,
            model: "my \"model\"".into(),
            base_url: Some("http://127.0.0.1:9/v1".into()),
            roles: Vec::new(),
            chosen: true,
        };
        let text = format!("[run]\nname = \"x\"\n\n{}", llm_toml(&c));
        let value: toml::Table = toml::from_str(&text).expect("the written TOML parses");
        let llm = value["llm"].as_table().unwrap();
        assert_eq!(llm["default"]["model"].as_str(), Some("my \"model\""));
        assert_eq!(llm["outage_wait_s"].as_integer(), Some(1800));
        assert!(
            !llm.contains_key("roles"),
            "a role has its own model: {text}"
        );
        assert_eq!(
            value["plan"]["budget_tokens"].as_integer(),
            Some(crate::config::PlanSettings::INIT_BUDGET_TOKENS as i64),
            "the plan tree on: {text}"
        );
        // A role named with --role, and only that one, gets its own model.
        let own = Choice {
            roles: vec![("critic".into(), "other".into())],
            ..c
        };
        let value: toml::Table = toml::from_str(&llm_toml(&own)).unwrap();
        let roles = value["llm"]["roles"].as_table().unwrap();
        assert_eq!(roles.len(), 1);
        assert_eq!(roles["critic"]["model"].as_str(), Some("other"));
    }
}
