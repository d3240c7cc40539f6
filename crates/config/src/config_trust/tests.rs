//! The rules of `config_trust` as tables: which keys count and on which line, what needs no
//! trust, what the fingerprint follows, and a walk of the whole schema so that a new setting
//! cannot be added without saying whether it runs or sends anything.

use super::*;

fn keys(text: &str) -> Vec<(String, usize)> {
    command_bearing(Path::new("/r/youra.toml"), text)
        .unwrap()
        .into_iter()
        .map(|s| (s.key, s.line))
        .collect()
}

#[test]
fn every_command_bearing_form_is_found_on_its_line() {
    let text = "[run]\nname = \"x\"\n\n[notify]\ncommand = [\"touch\", \"m\"]\nwebhook = \"http://h\"\ntimeout_s = 2\n\n\
                [llm.default]\nmodel = \"m\"\nbase_url = \"http://evil\"\n\
                [llm.roles.critic]\napi_key_env = \"AWS_SECRET\"\n\
                [[tools.servers]]\nname = \"s\"\ncommand = \"sh\"\nargs = [\"-c\", \"x\"]\nenv = { LD_PRELOAD = \"/x.so\" }\nroles = [\"critic\"]\n\
                [exec]\nsandbox = \"off\"\nmax_parallel = 2\n[exec.slurm]\nextra_args = [\"--x\"]\npartition = \"p\"\n\
                [engine]\nallow_network = true\narxiv_url = \"http://a\"\nmax_resumes = 1\n";
    assert_eq!(
        keys(text),
        vec![
            ("notify.command".into(), 5),
            ("notify.webhook".into(), 6),
            ("llm.default.base_url".into(), 11),
            ("llm.roles.critic.api_key_env".into(), 13),
            ("tools.servers[0].command".into(), 16),
            ("tools.servers[0].args".into(), 17),
            ("tools.servers[0].env.LD_PRELOAD".into(), 18),
            ("exec.sandbox".into(), 21),
            ("exec.slurm.extra_args".into(), 24),
            ("engine.allow_network".into(), 27),
            ("engine.arxiv_url".into(), 28),
        ]
    );
}

#[test]
fn dotted_and_inline_forms_are_found_too() {
    let text = "notify.command = [\"x\"]\ntools = { servers = [{ name = \"a\", url = \"http://u\" }] }\n\
                [llm]\nroles.judge.base_url = \"http://j\"\n";
    assert_eq!(
        keys(text),
        vec![
            ("notify.command".into(), 1),
            ("tools.servers[0].url".into(), 2),
            ("llm.roles.judge.base_url".into(), 4),
        ]
    );
}

#[test]
fn safe_defaults_and_empty_values_need_no_trust() {
    let text = "[exec]\nsandbox = \"required\"\nbackend = \"local\"\n[engine]\nallow_network = false\n\
                semantic_scholar_url = \"https://api.semanticscholar.org\"\n[notify]\ncommand = []\ntimeout_s = 3\n\
                [llm.default]\nprovider = \"openai\"\nmodel = \"gpt-4o\"\n";
    assert_eq!(keys(text), Vec::<(String, usize)>::new());
}

#[test]
fn the_fingerprint_follows_values_not_lines_or_table_order() {
    let p = Path::new("/r/youra.toml");
    let a = command_bearing(p, "[notify]\ncommand = [\"a\"]\n[tools.coding_agent]\ncommand = [\"x\"]\nenv = { A = \"1\", B = \"2\" }\n").unwrap();
    let moved = command_bearing(p, "# moved\n[tools.coding_agent]\nenv = { B = \"2\", A = \"1\" }\ncommand = [\"x\"]\n\n[notify]\ncommand = [\"a\"]\n").unwrap();
    let changed = command_bearing(p, "[notify]\ncommand = [\"b\"]\n[tools.coding_agent]\ncommand = [\"x\"]\nenv = { A = \"1\", B = \"2\" }\n").unwrap();
    assert_eq!(fingerprint(&a), fingerprint(&moved));
    assert_ne!(fingerprint(&a), fingerprint(&changed));
    assert_eq!(fingerprint(&a).len(), 64);
}

/// Settings that are text but start, send or unconfine nothing, each with why; with
/// [`COMMAND_BEARING`] they must cover every non-number leaf of the schema.
const PLAIN: &[(&str, &str)] = &[
    (
        "breakpoints.set",
        "when the run pauses: words youra reads itself; nothing runs or is sent",
    ),
    ("run", "the run's name, topic and mode: text"),
    (
        "review.before_experiment",
        "when an experiment waits for the researcher: a word youra reads itself",
    ),
    (
        "llm.default.provider",
        "which client; its own endpoint gets only its own key",
    ),
    (
        "llm.roles.*.provider",
        "which client; its own endpoint gets only its own key",
    ),
    (
        "llm.default.model",
        "a name sent to the endpoint the researcher trusts",
    ),
    (
        "llm.roles.*.model",
        "a name sent to the endpoint the researcher trusts",
    ),
    ("llm.default.stream", "how replies arrive"),
    ("llm.roles.*.stream", "how replies arrive"),
    ("llm.default.structured", "how replies are constrained"),
    ("llm.roles.*.structured", "how replies are constrained"),
    ("llm.default.replay", "a recorded bundle, read as data"),
    ("llm.roles.*.replay", "a recorded bundle, read as data"),
    ("tools.servers.name", "a label"),
    (
        "tools.servers.allowed_tools",
        "narrows what a trusted server offers",
    ),
    (
        "tools.servers.roles",
        "narrows who may call a trusted server",
    ),
    (
        "tools.servers.capability",
        "where a trusted server is offered",
    ),
    ("tools.stages", "which tools a stage is offered"),
    ("tools.coding_agent.model", "a name for the ledger"),
    (
        "tools.coding_agent.run",
        "the experiment the agent wrote, run in the sandbox",
    ),
    ("exec.slurm.partition", "one sbatch option, as one argument"),
    ("exec.slurm.account", "one sbatch option, as one argument"),
    ("exec.slurm.qos", "one sbatch option, as one argument"),
    (
        "engine.literature_search",
        "whether to search the trusted URLs",
    ),
    (
        "engine.approval_default",
        "what silence means for an escalation",
    ),
    ("plan.policy", "how the plan tree chooses"),
    ("plan.tree_rules", "which rules shape the plan tree"),
    ("plan.root_plan", "who drafts a search's first plan"),
    ("recovery.router", "which recovery rule decides"),
    ("recovery.show_table_choice", "what the controller is shown"),
    ("evidence.interval", "how an interval is computed"),
    (
        "steer.name",
        "a label in the history; a run's own file is never read for it",
    ),
    (
        "steer.second_approval",
        "which answers wait for a second name: stricter only",
    ),
];

/// Every setting given a non-default, non-number value.
const FULL: &str = r#"
[run]
name = "n"
topic = "t"
execution_mode = "UNATTENDED"
[llm.default]
provider = "openai"
base_url = "http://x"
model = "m"
api_key_env = "K"
stream = true
structured = "auto"
replay = "r.jsonl"
[llm.roles.critic]
model = "c"
base_url = "http://y"
api_key_env = "K2"
[engine]
literature_search = false
semantic_scholar_url = "http://s"
arxiv_url = "http://a"
allow_network = true
approval_default = "stop"
[exec]
backend = "slurm"
sandbox = "off"
[exec.slurm]
partition = "p"
account = "a"
qos = "q"
extra_args = ["--x"]
conf = "/etc/slurm.conf"
[breakpoints]
set = ["once Phase 4"]
[steer]
name = "Ana"
second_approval = ["reset"]
[notify]
webhook = "http://w"
ntfy = "http://n"
command = ["c"]
[tools.stages]
coding_validation = ["code"]
[[tools.servers]]
name = "s"
command = "sh"
args = ["-c", "x"]
env = { A = "1" }
pass_env = ["K"]
allowed_tools = ["*"]
roles = ["critic"]
capability = "code"
[[tools.servers]]
name = "h"
url = "http://u"
[tools.coding_agent]
command = ["agent"]
model = "m"
network = true
sandbox = "off"
env = { B = "2" }
run = ["sh", "run.sh"]
"#;

#[test]
fn every_text_setting_in_the_schema_is_either_command_bearing_or_plain() {
    // A new string, list or switch added to any section fails here, by name, until it is
    // listed as command-bearing or as plain with the reason it runs and sends nothing.
    let c: crate::config::RunConfig = toml::from_str(FULL).expect("FULL parses");
    let v = Value::try_from(&c).expect("serialises");
    let plain = |key: &KeyPath| {
        PLAIN.iter().any(|(p, _)| {
            let want: Vec<&str> = p.split('.').collect();
            want.len() <= key.len()
                && want
                    .iter()
                    .zip(key)
                    .all(|(w, k)| *w == "*" || *w == k.split('[').next().unwrap_or(k))
        })
    };
    let (mut seen, mut unlisted) = (0, Vec::new());
    for (key, value) in leaves(&v) {
        let empty = match &value {
            Value::Table(t) => t.is_empty(),
            Value::Array(a) => a.is_empty(),
            _ => false,
        };
        if empty || matches!(value, Value::Integer(_) | Value::Float(_)) {
            continue;
        }
        seen += 1;
        if covering(&key).is_none() && !plain(&key) {
            unlisted.push(format!("{} = {}", display_key(&key), value_text(&value)));
        }
    }
    assert!(
        unlisted.is_empty(),
        "neither command-bearing (COMMAND_BEARING) nor plain (PLAIN): {unlisted:#?}"
    );
    assert!(seen > 30, "the walk sees the schema: {seen}");
    // And the file above is found command-bearing where it should be: every entry.
    let found = command_bearing(Path::new("/r/youra.toml"), FULL).unwrap();
    for e in COMMAND_BEARING {
        let want: Vec<&str> = e.key.split('.').collect();
        assert!(
            found.iter().any(|s| {
                let k: Vec<&str> = s
                    .key
                    .split('.')
                    .map(|p| p.split('[').next().unwrap_or(p))
                    .collect();
                want.len() <= k.len() && want.iter().zip(&k).all(|(w, k)| *w == "*" || w == k)
            }),
            "{} is not found in FULL",
            e.key
        );
    }
}
