//! Delivering a [`Notice`] to the researcher's channels: a Slack-compatible webhook (JSON
//! `{"text": …}`), an ntfy topic (plain text, the title as a header), or a command of theirs
//! (the notice on stdin and in `YOURA_NOTICE_*` variables). Each channel reports its own
//! outcome; none of them can stop the run.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Notice;
use super::NotifySection;

/// One channel's outcome: its name (`webhook`, `ntfy`, `command`) and the error, if any.
pub(crate) type Delivery = (&'static str, Result<(), String>);

/// Send `notice` to every configured channel, each bounded by `timeout_s`.
pub(crate) fn deliver(cfg: &NotifySection, notice: &Notice, run: &Path) -> Vec<Delivery> {
    let timeout = Duration::from_secs_f64(cfg.timeout_s.clamp(0.1, 60.0));
    let mut out = Vec::new();
    if let Some(url) = cfg.webhook.as_deref() {
        let body = serde_json::json!({ "text": notice.text() });
        out.push(("webhook", post(url, timeout, |r| r.json(&body))));
    }
    if let Some(url) = cfg.ntfy.as_deref() {
        // Header values must be visible ASCII: the title loses its symbol there, the body
        // (UTF-8) keeps the whole notice.
        let title: String = notice
            .title
            .chars()
            .filter(|c| c.is_ascii_graphic() || *c == ' ')
            .collect();
        let text = notice.text();
        out.push((
            "ntfy",
            post(url, timeout, |r| {
                r.header(
                    "Title",
                    title.split_whitespace().collect::<Vec<_>>().join(" "),
                )
                .header("Tags", "youra")
                .body(text)
            }),
        ));
    }
    if !cfg.command.is_empty() {
        out.push(("command", run_command(&cfg.command, notice, run, timeout)));
    }
    out
}

fn post(
    url: &str,
    timeout: Duration,
    fill: impl FnOnce(reqwest::blocking::RequestBuilder) -> reqwest::blocking::RequestBuilder,
) -> Result<(), String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::blocking::Client::builder()
        .connect_timeout(timeout)
        .timeout(timeout)
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
    let reply = fill(client.post(url)).send().map_err(|e| {
        format!(
            "POST {}: {}",
            redact_url(url),
            error_chain(&e.without_url())
        )
    })?;
    let status = reply.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("POST {} answered {status}", redact_url(url)))
    }
}

/// A webhook URL is a secret (Slack's carries its token in the path): only its origin is
/// ever written to events.
fn redact_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => format!(
            "{}://{}{}/…",
            u.scheme(),
            u.host_str().unwrap_or("?"),
            u.port().map(|p| format!(":{p}")).unwrap_or_default()
        ),
        Err(_) => "(an unparsable URL)".into(),
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(cause) = src {
        s.push_str(": ");
        s.push_str(&cause.to_string());
        src = cause.source();
    }
    s
}

fn run_command(
    argv: &[String],
    notice: &Notice,
    run: &Path,
    timeout: Duration,
) -> Result<(), String> {
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .env("YOURA_NOTICE_KIND", &notice.kind)
        .env("YOURA_NOTICE_TITLE", &notice.title)
        .env("YOURA_NOTICE_WHY", &notice.why)
        .env("YOURA_NOTICE_ANSWER", &notice.answer)
        .env("YOURA_RUN", run)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", argv[0]))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its stdin is fine.
        let _ = stdin.write_all(notice.text().as_bytes());
    }
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("`{}` exited with {status}", argv[0])),
            Ok(None) if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "`{}` still ran after {:.1} s and was killed",
                    argv[0],
                    timeout.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait for `{}`: {e}", argv[0])),
        }
    }
}
