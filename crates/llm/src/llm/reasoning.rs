//! Reasoning models think out loud: DeepSeek-R1 distills and Qwen3 put `<think>…</think>`
//! before the answer, vLLM and Ollama send the thoughts as `reasoning_content` or
//! `reasoning`, Anthropic as `thinking` blocks. The thoughts are kept (transcript, ledger)
//! but separated here, in the provider layer, so no parser and no artifact ever sees them.

/// Split the leading think blocks (`<think>`, `<thinking>`, `<reasoning>`) off `content`:
/// `(answer, thoughts)`. A block left open (the cap cut the model off mid-thought) is all
/// thought; a tag that only appears later in the answer is left alone.
pub(crate) fn split_think(content: &str) -> (String, String) {
    let mut rest = content.trim_start();
    let mut thoughts = Vec::new();
    while let Some((open, close)) = ["think", "thinking", "reasoning"]
        .iter()
        .map(|t| (format!("<{t}>"), format!("</{t}>")))
        .find(|(open, _)| rest.starts_with(open.as_str()))
    {
        let body = &rest[open.len()..];
        match body.find(&close) {
            Some(end) => {
                thoughts.push(body[..end].trim().to_string());
                rest = body[end + close.len()..].trim_start();
            }
            None => {
                thoughts.push(body.trim().to_string());
                rest = "";
            }
        }
    }
    // Some templates open the block in the prompt, so only `…</think>` arrives.
    if thoughts.is_empty()
        && let Some(end) = rest.find("</think>")
        && !rest[..end].contains("<think>")
    {
        thoughts.push(rest[..end].trim().to_string());
        rest = rest[end + "</think>".len()..].trim_start();
    }
    if thoughts.is_empty() {
        return (content.to_string(), String::new());
    }
    (rest.to_string(), thoughts.join("\n\n"))
}

/// Join a reasoning field and the think blocks split off the content.
pub fn join(field: &str, split: &str) -> String {
    match (field.trim().is_empty(), split.trim().is_empty()) {
        (true, _) => split.to_string(),
        (false, true) => field.to_string(),
        (false, false) => format!("{field}\n\n{split}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_blocks_leave_the_answer() {
        let cases = [
            (
                "<think>hmm {\"a\":0}</think>\n{\"a\":1}",
                "{\"a\":1}",
                "hmm {\"a\":0}",
            ),
            ("  <think>a</think><think>b</think>ok", "ok", "a\n\nb"),
            ("<thinking>x</thinking>\n\nanswer", "answer", "x"),
            ("<think>cut off mid-thought {", "", "cut off mid-thought {"),
            (
                "I was told </think> then {\"a\":2}",
                "then {\"a\":2}",
                "I was told",
            ),
            ("plain {\"a\":3}", "plain {\"a\":3}", ""),
            (
                "answer mentions <think> later",
                "answer mentions <think> later",
                "",
            ),
        ];
        for (input, answer, thought) in cases {
            assert_eq!(
                split_think(input),
                (answer.to_string(), thought.to_string()),
                "{input:?}"
            );
        }
        assert_eq!(join("f", ""), "f");
        assert_eq!(join("", "s"), "s");
        assert_eq!(join("f", "s"), "f\n\ns");
    }
}
