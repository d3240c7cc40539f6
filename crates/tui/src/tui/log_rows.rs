//! The warnings and errors of `youra.log` as Events rows: the end of the file only, since
//! the log grows all run long.

use std::path::Path;

use super::rows::EventRow;
use crate::vsa::timestamp::Timestamp;

/// How much of the end of `youra.log` the Events pane reads: the log grows all run long.
const LOG_TAIL_BYTES: u64 = 256 * 1024;

/// The warnings and errors of `youra.log` (`crate::logging`'s lines:
/// `<time> <LEVEL> <spans>: <target>: <message>`) as Events rows with actor `log` and kind
/// `log_warn` / `log_error`; the actor filter (`a`) shows them alone.
pub(crate) fn read_log_warnings(path: &Path) -> Vec<EventRow> {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = crate::fsutil::open_nofollow(path) else {
        return Vec::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(LOG_TAIL_BYTES);
    let mut bytes = Vec::new();
    if f.seek(SeekFrom::Start(start)).is_err() || f.read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    // A cut first line is a fragment.
    let lines = text.lines().skip(usize::from(start > 0));
    lines.filter_map(log_row).collect()
}

fn log_row(line: &str) -> Option<EventRow> {
    let mut parts = line.splitn(3, char::is_whitespace);
    let time = parts.next()?;
    let rest = parts.next().map(|l| (l, parts.next().unwrap_or("")));
    // The level is right-aligned: `  WARN` leaves an empty field before it.
    let (level, body) = match rest? {
        ("", body) => {
            let body = body.trim_start();
            body.split_once(' ')?
        }
        (level, body) => (level, body),
    };
    let kind = match level {
        "WARN" => "log_warn",
        "ERROR" => "log_error",
        _ => return None,
    };
    let stage = body
        .split_once("stage{stage=")
        .and_then(|(_, s)| s.split([' ', '}']).next())
        .map(str::to_string);
    // Drop the spans (`a{…}:b{…}: `) and keep `target: message`.
    let message = match body.find("}: ") {
        Some(i) if body[..i].contains('{') => &body[i + 3..],
        _ => body,
    };
    Some(EventRow {
        at: Timestamp::parse(time),
        actor: "log".into(),
        stage,
        text: format!("{} {}", level.to_ascii_lowercase(), message.trim()),
        from_history: false,
        hypothesis: None,
        kind: Some(kind.into()),
        line: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_warnings_and_errors_become_event_rows() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("youra.log");
        std::fs::write(&log, concat!(
            "2026-12-03T10:24:56.241378Z  INFO stage{stage=problem_scoping hypothesis=-}: youra::engine: start Problem Scoping (Phase 0)\n",
            "2026-12-03T10:24:56.304922Z  WARN stage{stage=literature_grounding hypothesis=-}:attempt{attempt=1}:tool_call{server=\"echo\" tool=exit}: youra::tools::registry: MCP server `echo` is gone server=\"echo\"\n",
            "2026-12-03T10:25:00.000000Z ERROR youra::panic: panicked: boom at=src/x.rs:1\n",
            "not a log line\n",
        )).unwrap();
        let rows = read_log_warnings(&log);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[0].kind.as_deref(), Some("log_warn"));
        assert_eq!(rows[0].actor, "log");
        assert_eq!(rows[0].stage.as_deref(), Some("literature_grounding"));
        assert!(
            rows[0]
                .text
                .starts_with("warn youra::tools::registry: MCP server `echo` is gone"),
            "{}",
            rows[0].text
        );
        assert!(rows[0].at.is_some());
        assert_eq!(rows[1].kind.as_deref(), Some("log_error"));
        assert!(
            rows[1]
                .text
                .starts_with("error youra::panic: panicked: boom")
        );
        assert!(read_log_warnings(&dir.path().join("absent.log")).is_empty());
    }
}
