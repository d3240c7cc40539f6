//! Server-Sent Events, as the streaming chat endpoints send them: `data:` lines (several
//! join with `\n`), an optional `event:` name, `:` comments (keep-alives), a blank line
//! ending each event, and OpenAI's `data: [DONE]` sentinel. Pure over any `BufRead`.

use std::io::{self, BufRead};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SseItem {
    Event {
        event: Option<String>,
        data: String,
    },
    /// `data: [DONE]` — the OpenAI-style end of stream.
    Done,
}

/// Reads events one at a time. An event still open when the input ends is dropped, as the
/// SSE spec says: a connection cut mid-event must not pass for a complete one.
pub(crate) struct SseReader<R> {
    input: R,
    line: Vec<u8>,
}

impl<R: BufRead> SseReader<R> {
    pub fn new(input: R) -> Self {
        Self {
            input,
            line: Vec::new(),
        }
    }

    /// The next event, `Ok(None)` at the end of the input, or the read error.
    pub(crate) fn next_item(&mut self) -> io::Result<Option<SseItem>> {
        let mut event: Option<String> = None;
        let mut data: Option<String> = None;
        loop {
            self.line.clear();
            if self.input.read_until(b'\n', &mut self.line)? == 0 {
                return Ok(None);
            }
            let line = String::from_utf8_lossy(&self.line);
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                match data.take() {
                    Some(d) if d == "[DONE]" => return Ok(Some(SseItem::Done)),
                    Some(data) => return Ok(Some(SseItem::Event { event, data })),
                    // An event with no data is not dispatched (spec); keep reading.
                    None => event = None,
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (line, ""),
            };
            match field {
                "data" => match &mut data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => data = Some(value.to_string()),
                },
                "event" => event = Some(value.to_string()),
                _ => {} // `id:`, `retry:` and unknown fields do not matter to a chat stream.
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(text: &str) -> Vec<SseItem> {
        let mut reader = SseReader::new(text.as_bytes());
        let mut out = Vec::new();
        while let Some(item) = reader.next_item().expect("reading a slice cannot fail") {
            out.push(item);
        }
        out
    }

    fn ev(event: Option<&str>, data: &str) -> SseItem {
        SseItem::Event {
            event: event.map(str::to_string),
            data: data.to_string(),
        }
    }

    #[test]
    fn data_lines_comments_and_done() {
        let text = ": keep-alive\n\ndata: {\"a\":1}\n\ndata:{\"b\":2}\r\n\r\ndata: [DONE]\n\n";
        assert_eq!(
            items(text),
            vec![ev(None, "{\"a\":1}"), ev(None, "{\"b\":2}"), SseItem::Done]
        );
    }

    #[test]
    fn multi_line_data_and_event_names() {
        let text = "event: message_start\ndata: line one\ndata: line two\nid: 7\n\n\
                    event: ping\n\nevent: message_stop\ndata: {}\n\n";
        assert_eq!(
            items(text),
            vec![
                ev(Some("message_start"), "line one\nline two"),
                ev(Some("message_stop"), "{}")
            ]
        );
    }

    #[test]
    fn an_event_cut_off_at_the_end_is_dropped() {
        assert_eq!(
            items("data: {\"a\":1}\n\ndata: {\"b\""),
            vec![ev(None, "{\"a\":1}")]
        );
        assert_eq!(items(""), vec![]);
    }
}
