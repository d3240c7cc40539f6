//! `[notify]` end to end: the headless demo (the real binary, its engine on the replay
//! provider) sends one POST per waiting event — h-m1's escalation and the run's end — to a
//! loopback webhook, each with the command that answers it; an ntfy server that is down
//! costs a `notify` event per notice and the run still completes.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// Each request's first line and body, as the server received them.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// A loopback HTTP server that answers every request 200 and keeps each body.
fn server() -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line.trim().is_empty() {
                    break;
                }
                if let Some((k, v)) = line.split_once(':')
                    && k.eq_ignore_ascii_case("content-length")
                {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            keep.lock().unwrap().push((
                request_line.trim().to_string(),
                String::from_utf8_lossy(&body).into_owned(),
            ));
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
        }
    });
    (url, seen)
}

/// A URL nothing listens on (a port bound, then released).
fn down_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/topic", l.local_addr().unwrap());
    drop(l);
    url
}

#[test]
fn each_waiting_event_posts_once_with_its_answer_and_a_down_server_is_an_event() {
    let tmp = tempfile::tempdir().unwrap();
    let (url, seen) = server();
    let config = tmp.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("youra.toml"),
        format!(
            "[notify]\nwebhook = \"{url}\"\nntfy = \"{}\"\ntimeout_s = 2\n",
            down_url()
        ),
    )
    .unwrap();
    let dir = tmp.path().join("demo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["demo", "--headless", "--dir", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", &config)
        .output()
        .expect("youra demo runs");
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("run complete"), "the run went on: {stdout}");

    let posts = seen.lock().unwrap().clone();
    let bodies: Vec<serde_json::Value> = posts
        .iter()
        .map(|(line, body)| {
            assert!(line.starts_with("POST /hook "), "{line}");
            serde_json::from_str(body).expect("Slack-compatible JSON")
        })
        .collect();
    let texts: Vec<&str> = bodies.iter().map(|b| b["text"].as_str().unwrap()).collect();
    assert_eq!(texts.len(), 2, "one POST per waiting event: {texts:#?}");
    assert!(
        texts[0].starts_with("youra: ⚑ h-m1 waits")
            && texts[0].contains("recovery proposes Pivot for h-m1")
            && texts[0].contains(&format!("answer: youra steer {} approve", dir.display())),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].starts_with("youra: ✓ demo complete")
            && texts[1].contains(&format!("youra report html {}", dir.display())),
        "{}",
        texts[1]
    );

    let events = youra::rundir::events::read(&dir.join("events.jsonl"));
    let notify: Vec<_> = events.iter().filter(|e| e.kind == "notify").collect();
    let outcome = |channel: &str, result: &str| {
        notify
            .iter()
            .filter(|e| e.action.as_deref() == Some(channel) && e.result.as_deref() == Some(result))
            .count()
    };
    assert_eq!(outcome("webhook", "sent"), 2, "{notify:#?}");
    assert_eq!(outcome("ntfy", "failed"), 2, "{notify:#?}");
    let failed = notify
        .iter()
        .find(|e| e.result.as_deref() == Some("failed"))
        .and_then(|e| e.message.clone())
        .unwrap();
    assert!(
        failed.contains("was not delivered") && failed.contains("[notify] ntfy"),
        "{failed}"
    );
    assert!(
        !failed.contains("/topic"),
        "the URL's path stays out of the log: {failed}"
    );
}
