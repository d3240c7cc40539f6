//! Token counts of text youra did not get from a server: a replay recording that carries no
//! usage (the offline demo's bundle) is counted with OpenAI's `o200k_base` tokenizer, so the
//! status line's tokens and the plan budget charge what a real model would have read and
//! written, not a constant per call.
//!
//! The count follows OpenAI's chat accounting: each message's text plus a few tokens of
//! framing per message and per reply. It is exact for `o200k_base` models and close (within
//! about 10 %) for other tokenizers; `Usage::counted` marks it as counted, not reported.

use super::types::{ChatRequest, ChatResponse, Usage};

/// Framing tokens around each message (role and separators), as OpenAI's cookbook counts.
const PER_MESSAGE: u64 = 3;
/// Framing tokens that prime the assistant's reply.
const PER_REPLY: u64 = 3;

/// Tokens of `text` under `o200k_base`. The tokenizer's tables load once per process
/// (about 0.2 s), on the first count.
pub fn count(text: &str) -> u64 {
    if text.is_empty() {
        return 0;
    }
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len() as u64
}

/// What a model reads for `request`: every message's text and tool calls, the tools'
/// declarations and the reply's schema.
pub(crate) fn request_tokens(request: &ChatRequest) -> u64 {
    let mut n = PER_REPLY;
    for m in &request.messages {
        n += PER_MESSAGE + count(&m.content);
        for call in &m.tool_calls {
            n += count(&call.name) + count(&call.arguments.to_string());
        }
    }
    for tool in &request.tools {
        n += count(&tool.name) + count(&tool.description) + count(&tool.parameters.to_string());
    }
    if let Some(schema) = &request.schema {
        n += count(&serde_json::to_string(schema).unwrap_or_default());
    }
    n
}

/// What a model wrote for `reply`: its text, its reasoning and its tool calls.
pub(crate) fn reply_tokens(reply: &ChatResponse) -> u64 {
    let calls: u64 = reply
        .tool_calls
        .iter()
        .map(|c| count(&c.name) + count(&c.arguments.to_string()))
        .sum();
    count(&reply.content) + count(&reply.reasoning) + calls
}

/// The usage of an exchange whose recording carried none, counted from its text.
pub(crate) fn counted_usage(request: &ChatRequest, reply: &ChatResponse) -> Usage {
    Usage {
        input_tokens: request_tokens(request),
        output_tokens: reply_tokens(reply),
        reasoning_tokens: count(&reply.reasoning),
        counted: true,
        ..Usage::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Message, MessageRole};

    #[test]
    fn counts_follow_the_tokenizer_not_a_constant() {
        assert_eq!(count(""), 0);
        assert_eq!(count("hello world"), 2);
        let short = count("Bill depth alone.");
        let long = count(&"Bill depth alone separates Gentoo from the others. ".repeat(20));
        assert!(long > 10 * short, "{short} {long}");
    }

    #[test]
    fn a_request_counts_each_message_and_its_framing() {
        let one = ChatRequest::new(vec![Message {
            role: MessageRole::User,
            content: "hello world".into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }]);
        assert_eq!(request_tokens(&one), PER_REPLY + PER_MESSAGE + 2);
        let mut two = one.clone();
        two.messages.push(two.messages[0].clone());
        assert_eq!(request_tokens(&two), request_tokens(&one) + PER_MESSAGE + 2);
    }

    #[test]
    fn counted_usage_is_marked_and_counts_the_reply() {
        let reply = ChatResponse {
            content: "hello world".into(),
            ..ChatResponse::default()
        };
        let u = counted_usage(&ChatRequest::default(), &reply);
        assert_eq!((u.input_tokens, u.output_tokens), (PER_REPLY, 2));
        assert!(u.counted && !u.estimated);
    }
}
