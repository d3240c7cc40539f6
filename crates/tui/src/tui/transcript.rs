//! A recorded exchange (`transcripts/*.json`) as a readable conversation for the artifact
//! viewer: who asked (role, stage, hypothesis, round, attempt), each message, every tool
//! call with its arguments and every tool result, then the reply and its usage.

use crate::llm::transcript::Exchange;

/// `None` when the text is not a recorded exchange (the viewer then shows it as JSON).
pub(crate) fn as_markdown(text: &str) -> Option<String> {
    let x: Exchange = serde_json::from_str(text).ok()?;
    let k = &x.key;
    let mut out = vec![format!(
        "# {} · {} · attempt {}",
        k.role, k.stage, k.attempt
    )];
    let mut who = vec![
        format!("**Provider:** {} {}", x.provider, x.model),
        format!("**Time:** {} ({} ms)", x.time, x.elapsed_ms),
    ];
    if let Some(h) = &k.hypothesis {
        who.push(format!("**Hypothesis:** {h}"));
    }
    if k.round > 0 {
        who.push(format!("**Round:** {}", k.round));
    }
    who.push(format!("**Call:** #{}", x.ordinal));
    out.push(who.join("  \n"));
    if let Some(req) = &x.request {
        for m in &req.messages {
            let role = format!("{:?}", m.role).to_lowercase();
            out.push(format!(
                "## {role}{}",
                m.tool_call_id
                    .as_deref()
                    .map(|id| format!(" ⇄ result of {id}"))
                    .unwrap_or_default()
            ));
            if !m.content.trim().is_empty() {
                out.push(m.content.trim().to_string());
            }
            out.extend(
                m.tool_calls
                    .iter()
                    .map(|c| format!("⇄ **tool call** `{}` ({}): `{}`", c.name, c.id, c.arguments)),
            );
        }
    }
    match (&x.response, &x.error) {
        (Some(r), _) => {
            out.push(format!(
                "## reply ({} in / {} out tokens{})",
                r.usage.input_tokens,
                r.usage.output_tokens,
                r.finish_reason
                    .as_deref()
                    .map(|f| format!(", {f}"))
                    .unwrap_or_default()
            ));
            if !r.content.trim().is_empty() {
                out.push(r.content.trim().to_string());
            }
            out.extend(
                r.tool_calls
                    .iter()
                    .map(|c| format!("⇄ **tool call** `{}` ({}): `{}`", c.name, c.id, c.arguments)),
            );
        }
        (None, Some(e)) => out.push(format!("## error\n{e}")),
        (None, None) => out.push("## (no reply recorded)".into()),
    }
    Some(out.join("\n\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_and_results_read_as_a_conversation() {
        let x = serde_json::json!({
            "key": {"role": "executor", "stage": "literature_grounding", "attempt": 1},
            "ordinal": 1, "provider": "openai", "model": "m", "time": "t", "elapsed_ms": 5,
            "request": {"messages": [
                {"role": "user", "content": "find papers"},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "scholar__search", "arguments": {"q": "penguins"}}]},
                {"role": "tool", "content": "3 papers", "tool_call_id": "c1"}
            ]},
            "response": {"content": "## Related Work\nthree", "usage": {"input_tokens": 9, "output_tokens": 4}, "model": "m", "finish_reason": "stop"}
        });
        let md = as_markdown(&x.to_string()).unwrap();
        assert!(
            md.contains("⇄ **tool call** `scholar__search` (c1): `{\"q\":\"penguins\"}`"),
            "{md}"
        );
        assert!(md.contains("## tool ⇄ result of c1\n\n3 papers"), "{md}");
        assert!(md.contains("## reply (9 in / 4 out tokens, stop)"), "{md}");
        assert_eq!(as_markdown("{\"not\": \"an exchange\"}"), None);
    }
}
