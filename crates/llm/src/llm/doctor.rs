//! `youra doctor`: for every role's endpoint, whether it can serve a run, measured rather
//! than assumed. It asks the server for its models, probes each structured-reply dialect
//! with a tiny schema that an unconstrained model cannot meet by chance (a fixed word and
//! number the prompt never mentions), tries a stream and a tool call, and times them. The
//! first dialect whose reply meets the probe schema is the one `auto` will use for that
//! endpoint (remembered in `<run>/.youra/structured.json`).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use super::role_config::{ProviderKind, RoleConfig};
use super::schema::ReplySchema;
use super::{
    Anthropic, CallKey, ChatRequest, HttpConfig, LlmError, LlmSettings, Message, OpenAiCompatible,
    Provider, Structured, ToolSpec,
};

/// One endpoint (base URL and model) and the roles that use it.
#[derive(Debug, Clone, Serialize)]
pub struct EndpointReport {
    pub roles: Vec<String>,
    pub provider: &'static str,
    pub base_url: String,
    pub model: String,
    pub reachable: Probe,
    pub model_listed: Probe,
    /// Each dialect tried, in order, until one met the probe schema.
    pub dialects: Vec<(Structured, Probe)>,
    /// The dialect a run will use: the configured one, else the first that worked.
    pub structured: Structured,
    pub streaming: Probe,
    pub tool_calls: Probe,
    pub reasoning: bool,
    pub latency_ms: Option<u64>,
    pub tokens_per_s: Option<f64>,
    /// What the speed was measured on.
    pub speed_basis: String,
    /// What stops this endpoint from serving its roles, with what to change.
    pub problems: Vec<String>,
}

impl EndpointReport {
    pub fn usable(&self) -> bool {
        self.problems.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "result", content = "detail", rename_all = "snake_case")]
pub enum Probe {
    Yes(String),
    No(String),
    Skipped(String),
}

impl Probe {
    pub fn yes(&self) -> bool {
        matches!(self, Probe::Yes(_))
    }
    fn word(&self) -> &'static str {
        match self {
            Probe::Yes(_) => "yes",
            Probe::No(_) => "no",
            Probe::Skipped(_) => "skipped",
        }
    }
    fn detail(&self) -> &str {
        match self {
            Probe::Yes(d) | Probe::No(d) | Probe::Skipped(d) => d,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub endpoints: Vec<EndpointReport>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.endpoints.iter().all(EndpointReport::usable)
    }
}

/// The probe: a fixed word and number. The prompt asks for JSON but names neither, so only
/// a server that decodes under the schema answers with them.
pub fn probe_schema() -> ReplySchema {
    ReplySchema::new(
        "youra_probe",
        json!({
            "type": "object",
            "properties": {
                "answer": {"type": "string", "enum": ["youra-probe"]},
                "n": {"type": "integer", "enum": [41]},
            },
            "required": ["answer", "n"],
            "additionalProperties": false,
        }),
    )
}

/// Group the roles by endpoint and examine each.
pub fn examine(
    run: &std::path::Path,
    settings: &LlmSettings,
    roles: &[&str],
    env: impl Fn(&str) -> Option<String> + Copy,
) -> Report {
    let mut groups: BTreeMap<(String, String, &'static str), (RoleConfig, Vec<String>)> =
        BTreeMap::new();
    for role in roles {
        let cfg = settings
            .roles
            .get(*role)
            .cloned()
            .unwrap_or_default()
            .or(&settings.default);
        let kind = cfg.provider.unwrap_or_default();
        let base = match kind {
            ProviderKind::Replay => cfg.replay.clone().unwrap_or_default(),
            _ => cfg
                .base_url
                .clone()
                .or_else(|| kind.default_base_url(env))
                .unwrap_or_default(),
        };
        let model = cfg.model.clone().unwrap_or_default();
        groups
            .entry((base, model, kind.as_str()))
            .or_insert_with(|| (cfg.clone(), Vec::new()))
            .1
            .push(role.to_string());
    }
    let endpoints = groups
        .into_values()
        .map(|(cfg, roles)| endpoint(run, &cfg, roles, env))
        .collect();
    Report { endpoints }
}

fn endpoint(
    run: &std::path::Path,
    cfg: &RoleConfig,
    roles: Vec<String>,
    env: impl Fn(&str) -> Option<String>,
) -> EndpointReport {
    let kind = cfg.provider.unwrap_or_default();
    let mut report = EndpointReport {
        roles: roles.clone(),
        provider: kind.as_str(),
        base_url: String::new(),
        model: cfg.model.clone().unwrap_or_default(),
        reachable: Probe::Skipped(String::new()),
        model_listed: Probe::Skipped(String::new()),
        dialects: Vec::new(),
        structured: Structured::None,
        streaming: Probe::Skipped(String::new()),
        tool_calls: Probe::Skipped(String::new()),
        reasoning: false,
        latency_ms: None,
        tokens_per_s: None,
        speed_basis: String::new(),
        problems: Vec::new(),
    };
    if kind == ProviderKind::Replay {
        report.base_url = cfg.replay.clone().unwrap_or_default();
        match &cfg.replay {
            None => report
                .problems
                .push("the replay provider names no bundle: set `replay = \"…\"`".into()),
            Some(raw) => {
                let p = std::path::Path::new(raw);
                let path = if p.is_absolute() {
                    p.to_path_buf()
                } else {
                    run.join(p)
                };
                match super::replay::Replay::load(&path) {
                    Ok(_) => {
                        report.reachable =
                            Probe::Yes(format!("replay bundle {} loads", path.display()))
                    }
                    Err(e) => {
                        report.reachable = Probe::No(e.to_string());
                        report.problems.push(format!(
                            "the replay bundle cannot be read ({e}): fix `replay` in youra.toml"
                        ));
                    }
                }
            }
        }
        return report;
    }
    let role = roles.first().map_or("default", String::as_str);
    let http = match super::http_config(kind, role, cfg, &BTreeMap::new(), env) {
        Ok(h) => h,
        Err(e) => {
            report.problems.push(e.to_string());
            return report;
        }
    };
    report.base_url = http.base_url.clone();
    let secrets: Vec<String> = http.api_key().ok().flatten().into_iter().collect();
    let clean = |t: String| crate::redact::redact(&t, &secrets).into_owned();
    let (reachable, listed) = list_models(kind, &http);
    report.reachable = redact_probe(reachable, &clean);
    report.model_listed = redact_probe(listed, &clean);
    if let Probe::No(why) = &report.reachable {
        report.problems.push(format!(
            "nothing answers at {} ({why}): start the server, or set `base_url` for {} in youra.toml",
            display_base(kind, &http),
            roles.join(", ")
        ));
        return report;
    }
    // Dialects, until one meets the probe schema.
    let configured = cfg.structured.unwrap_or_default();
    let candidates: Vec<Structured> = match (configured, kind) {
        (Structured::Auto, ProviderKind::Anthropic) => vec![Structured::Tool],
        (Structured::Auto, _) => vec![
            Structured::JsonSchema,
            Structured::JsonObject,
            Structured::GuidedJson,
            Structured::Format,
            Structured::Tool,
        ],
        (d, _) => vec![d],
    };
    let mut chat_works = false;
    let mut last_error = None;
    for d in candidates {
        let started = Instant::now();
        let outcome = structured_probe(kind, &http, d);
        let elapsed = started.elapsed();
        let probe = match outcome {
            Ok((reply, valid)) => {
                chat_works = true;
                report.reasoning |= !reply.reasoning.is_empty();
                report.latency_ms.get_or_insert(elapsed.as_millis() as u64);
                match valid {
                    Ok(()) => Probe::Yes(format!("a valid reply in {} ms", elapsed.as_millis())),
                    Err(why) => Probe::No(why),
                }
            }
            Err(e) => {
                let text = clean(e.to_string());
                last_error = Some(text.clone());
                Probe::No(text)
            }
        };
        let done = probe.yes();
        report.dialects.push((d, probe));
        if done {
            report.structured = d;
            break;
        }
    }
    // The model's name, judged by the server's own answers: its list, then a call under
    // that name. A server that lists one model may answer any name (llama.cpp's) or refuse
    // every other (Ollama's, vLLM's); only the call tells which.
    if let Probe::No(listed) = &report.model_listed {
        if chat_works {
            report.model_listed = Probe::Yes(format!(
                "not listed ({listed}), but the server answered a call under that name"
            ));
        } else {
            report.problems.push(format!(
                "the server does not serve the model `{}` ({listed}; a call under that name: {}): set `model` to one it serves (or give --model)",
                http.model,
                last_error.unwrap_or_default()
            ));
            return report;
        }
    }
    if !chat_works {
        report.problems.push(format!(
            "no chat request succeeded ({}): check the model name and the API key variable {}",
            last_error.unwrap_or_default(),
            http.api_key_env.as_deref().unwrap_or("(none configured)")
        ));
        return report;
    }
    if !report.dialects.iter().any(|(_, p)| p.yes()) {
        report.structured = Structured::None;
    }
    // Streaming works?
    report.streaming = match count_probe(kind, &http, true) {
        Ok((reply, _)) if !reply.content.trim().is_empty() => {
            report.reasoning |= !reply.reasoning.is_empty();
            Probe::Yes(format!(
                "{} characters streamed",
                reply.content.chars().count()
            ))
        }
        Ok(_) => Probe::No("the stream carried no text".into()),
        Err(e) => Probe::No(clean(e.to_string())),
    };
    // Speed, from a whole reply whose token count the server reports (streams often do not).
    if let Ok((reply, elapsed)) = count_probe(kind, &http, false)
        && reply.usage.output_tokens > 0
    {
        report.reasoning |= !reply.reasoning.is_empty();
        let secs = elapsed.as_secs_f64().max(1e-3);
        report.tokens_per_s = Some(reply.usage.output_tokens as f64 / secs);
        report.speed_basis = if reply.usage.estimated {
            "estimated tokens (the server reports none)".into()
        } else {
            format!("{} tokens in {:.2} s", reply.usage.output_tokens, secs)
        };
    }
    report.tool_calls = match tool_probe(kind, &http) {
        Ok(true) => Probe::Yes("the model called the offered tool".into()),
        Ok(false) => Probe::No("the model answered without calling the offered tool".into()),
        Err(e) => Probe::No(clean(e.to_string())),
    };
    report
}

fn redact_probe(p: Probe, clean: &impl Fn(String) -> String) -> Probe {
    match p {
        Probe::Yes(d) => Probe::Yes(clean(d)),
        Probe::No(d) => Probe::No(clean(d)),
        Probe::Skipped(d) => Probe::Skipped(clean(d)),
    }
}

fn display_base(kind: ProviderKind, http: &HttpConfig) -> String {
    if http.base_url.is_empty() {
        match kind {
            ProviderKind::Anthropic => "https://api.anthropic.com".into(),
            _ => "https://api.openai.com/v1".into(),
        }
    } else {
        http.base_url.clone()
    }
}

/// `GET …/models`: whether anything answers, and whether the model is among those listed.
fn list_models(kind: ProviderKind, http: &HttpConfig) -> (Probe, Probe) {
    let url = match kind {
        ProviderKind::Anthropic => http.endpoint("https://api.anthropic.com", "v1/models"),
        _ => http.endpoint("https://api.openai.com/v1", "models"),
    };
    let client = match super::http::build_client(http) {
        Ok(c) => c,
        Err(e) => return (Probe::No(e.to_string()), Probe::Skipped(String::new())),
    };
    let mut request = client.get(&url).timeout(Duration::from_secs(15));
    if let Ok(Some(key)) = http.api_key() {
        request = match kind {
            ProviderKind::Anthropic => request
                .header("x-api-key", key)
                .header("anthropic-version", "2023-06-01"),
            _ => request.bearer_auth(key),
        };
    }
    let started = Instant::now();
    let response = match request.send() {
        Ok(r) => r,
        Err(e) => {
            return (
                Probe::No(format!("GET {url}: {e}")),
                Probe::Skipped("unreachable".into()),
            );
        }
    };
    let status = response.status().as_u16();
    let ms = started.elapsed().as_millis();
    let reachable = Probe::Yes(format!("GET {url}: HTTP {status} in {ms} ms"));
    if !(200..300).contains(&status) {
        return (
            reachable,
            Probe::Skipped(format!("the model list answered HTTP {status}")),
        );
    }
    let body: Value = response.json().unwrap_or(Value::Null);
    let ids: Vec<&str> = body["data"]
        .as_array()
        .or(body["models"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|m| m["id"].as_str().or(m["name"].as_str()))
        .collect();
    let listed = if ids.is_empty() {
        Probe::Skipped("the server listed no models".into())
    } else if ids.iter().any(|id| *id == http.model) {
        Probe::Yes(format!("{} model(s) listed", ids.len()))
    } else {
        // Not listed is not yet refused: llama.cpp's servers list the file they were started
        // with and answer any name. `endpoint` asks the server under this name to decide.
        let shown: Vec<&str> = ids.iter().take(5).copied().collect();
        let more = if ids.len() > 5 { ", …" } else { "" };
        Probe::No(format!("listed: {}{more}", shown.join(", ")))
    };
    (reachable, listed)
}

fn provider(
    kind: ProviderKind,
    mut http: HttpConfig,
    dialect: Structured,
    stream: bool,
) -> Result<Box<dyn Provider>, LlmError> {
    http.structured = dialect;
    http.json_mode = true;
    http.stream = stream;
    http.max_retries = 0;
    http.call_timeout = http.call_timeout.min(Duration::from_secs(120));
    Ok(match kind {
        ProviderKind::Anthropic => Box::new(Anthropic::new(http)?),
        _ => Box::new(OpenAiCompatible::new(http)?),
    })
}

fn key() -> CallKey {
    CallKey::new("doctor", "doctor", None, 1)
}

/// One schema-constrained reply in `dialect`; `Ok((reply, Err(why)))` when it answered
/// outside the schema.
fn structured_probe(
    kind: ProviderKind,
    http: &HttpConfig,
    dialect: Structured,
) -> Result<(super::ChatResponse, Result<(), String>), LlmError> {
    let p = provider(kind, http.clone(), dialect, false)?;
    let schema = probe_schema();
    let mut req = ChatRequest::new(vec![
        Message::system("You answer with one JSON object."),
        Message::user("Reply with a JSON object."),
    ]);
    req.json = true;
    req.schema = Some(schema.clone());
    req.max_tokens = Some(64);
    req.temperature = Some(0.0);
    let reply = p.complete(&key(), &req)?;
    let valid = super::reply::json_object(&reply.content)
        .map_err(|e| format!("not JSON: {e}"))
        .and_then(|mut v| {
            schema
                .check(&mut v)
                .map_err(|e| format!("the reply ignored the schema ({e})"))
        });
    Ok((reply, valid))
}

fn count_probe(
    kind: ProviderKind,
    http: &HttpConfig,
    stream: bool,
) -> Result<(super::ChatResponse, Duration), LlmError> {
    let p = provider(kind, http.clone(), Structured::None, stream)?;
    let mut req = ChatRequest::new(vec![Message::user(
        "Count from 1 to 30, separated by spaces.",
    )]);
    req.max_tokens = Some(64);
    req.temperature = Some(0.0);
    let started = Instant::now();
    let reply = p.complete(&key(), &req)?;
    Ok((reply, started.elapsed()))
}

fn tool_probe(kind: ProviderKind, http: &HttpConfig) -> Result<bool, LlmError> {
    let p = provider(kind, http.clone(), Structured::None, false)?;
    let mut req = ChatRequest::new(vec![Message::user(
        "What time is it? Call the get_time tool to find out.",
    )]);
    req.tools = vec![ToolSpec {
        name: "get_time".into(),
        description: "The current time.".into(),
        parameters: json!({"type": "object", "properties": {}}),
    }];
    req.max_tokens = Some(64);
    req.temperature = Some(0.0);
    Ok(!p.complete(&key(), &req)?.tool_calls.is_empty())
}

/// The report as the terminal shows it.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for e in &report.endpoints {
        out.push_str(&format!(
            "{} · {} · model {}\n  roles        {}\n",
            e.provider,
            if e.base_url.is_empty() {
                "(default endpoint)"
            } else {
                &e.base_url
            },
            if e.model.is_empty() {
                "(none)"
            } else {
                &e.model
            },
            e.roles.join(", ")
        ));
        let line = |name: &str, p: &Probe| format!("  {name:<12} {:<7} {}\n", p.word(), p.detail());
        out.push_str(&line("reachable", &e.reachable));
        out.push_str(&line("model listed", &e.model_listed));
        for (d, p) in &e.dialects {
            out.push_str(&line(d.as_str(), p));
        }
        out.push_str(&format!("  structured   {}\n", e.structured.as_str()));
        out.push_str(&line("streaming", &e.streaming));
        out.push_str(&line("tool calls", &e.tool_calls));
        out.push_str(&format!(
            "  reasoning    {}\n",
            if e.reasoning {
                "yes (separated from the answer)"
            } else {
                "no"
            }
        ));
        if let Some(ms) = e.latency_ms {
            out.push_str(&format!("  latency      {ms} ms\n"));
        }
        if let Some(t) = e.tokens_per_s {
            out.push_str(&format!(
                "  speed        {t:.1} tokens/s ({})\n",
                e.speed_basis
            ));
        }
        if e.usable() {
            out.push_str("  verdict      ok\n\n");
        } else {
            out.push_str("  verdict      CANNOT WORK\n");
            for p in &e.problems {
                out.push_str(&format!("    - {p}\n"));
            }
            out.push('\n');
        }
    }
    out
}

/// The dialects to remember for `auto`: each usable endpoint whose roles leave
/// `structured` on auto, by [`super::structured::endpoint_key`].
pub fn choices(report: &Report, settings: &LlmSettings) -> BTreeMap<String, Structured> {
    report
        .endpoints
        .iter()
        .filter(|e| e.usable() && e.provider != "replay")
        .filter(|e| {
            e.roles.iter().all(|r| {
                let cfg = settings
                    .roles
                    .get(r)
                    .cloned()
                    .unwrap_or_default()
                    .or(&settings.default);
                cfg.structured.unwrap_or_default() == Structured::Auto
            })
        })
        .map(|e| {
            (
                super::structured::endpoint_key(&e.base_url, &e.model),
                e.structured,
            )
        })
        .collect()
}
