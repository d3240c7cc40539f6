//! What both HTTP clients share: building the blocking reqwest client over rustls/ring,
//! one POST with its headers, and turning what the network did into an [`LlmError`].
//!
//! Timeouts, as reqwest's *blocking* client implements them: the client-wide timeout bounds
//! the wait for the headers and then *each read* of the body, so it is our stream idle
//! timeout; a per-request timeout replaces it and also bounds the whole exchange, so a
//! non-streaming call sets `request_timeout` on its request.

use std::io::{self, Read};
use std::time::{Duration, Instant, SystemTime};

use reqwest::blocking::{Client, Response};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::{HttpConfig, LlmError, retry};

/// The most of a reply quoted in an error: enough to recognise it, not a page of HTML.
const EXCERPT_CHARS: usize = 200;

/// The blocking client. With `rustls-no-provider`, rustls needs a process-wide crypto
/// provider before the first client is built; we install ring's (ignoring "already
/// installed", which happens for the second client or when the embedding program chose one).
pub(crate) fn build_client(config: &HttpConfig) -> Result<Client, LlmError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    Client::builder()
        .connect_timeout(config.connect_timeout)
        .timeout(config.idle_timeout)
        .build()
        .map_err(|e| {
            LlmError::Config(format!(
                "could not build the HTTP client ({e}); check the system's TLS root certificates"
            ))
        })
}

/// One exchange's request: where, what, and which extra headers.
pub struct Post<'a> {
    pub url: &'a str,
    pub body: &'a serde_json::Value,
    pub headers: HeaderMap,
    pub stream: bool,
}

/// Send a POST; `Ok` only for a 2xx. Everything else becomes the error the retry loop
/// decides on: 429 → `RateLimited` (with `Retry-After`), other statuses → `Http` with an
/// excerpt of the body (retryable for 5xx, 408 and Anthropic's 529 "overloaded").
///
/// Every provider's body passes here, so this is where it is masked like a transcript
/// (`crate::redact`): a prompt that quotes a file the experiment replaced with
/// `/proc/self/environ` must not carry youra's keys to the endpoint.
pub fn post(client: &Client, config: &HttpConfig, post: Post<'_>) -> Result<Response, LlmError> {
    let bytes = serde_json::to_vec(&outgoing_body(config, post.body))
        .map_err(|e| LlmError::Config(format!("could not encode the request: {e}")))?;
    let mut request = client
        .post(post.url)
        .headers(post.headers)
        .header("content-type", "application/json")
        .body(bytes);
    if post.stream {
        request = request.header("accept", "text/event-stream");
    } else {
        request = request.timeout(config.request_timeout.min(config.call_timeout));
    }
    let wait = if post.stream {
        config.idle_timeout
    } else {
        config.request_timeout
    };
    let response = request.send().map_err(|e| send_error(post.url, wait, &e))?;
    let status = response.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(response);
    }
    Err(status_error(post.url, config, response))
}

/// The body as it goes out: every string masked with this process's secrets and the role's
/// own key (which may live in a variable whose name does not look secret).
pub(crate) fn outgoing_body(config: &HttpConfig, body: &serde_json::Value) -> serde_json::Value {
    let mut secrets = crate::redact::known_secrets();
    secrets.extend(config.api_key().ok().flatten());
    let mut body = body.clone();
    crate::redact::redact_json(&mut body, &secrets);
    body
}

/// Extra configured headers plus the ones the provider adds; names/values that HTTP cannot
/// carry are a configuration error naming the header (never its value).
pub fn headers(config: &HttpConfig, own: &[(&str, String)]) -> Result<HeaderMap, LlmError> {
    let mut map = HeaderMap::new();
    let extra = config.extra_headers.iter().map(|(k, v)| (k.as_str(), v));
    for (name, value) in extra.chain(own.iter().map(|(k, v)| (*k, v))) {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| LlmError::Config(format!("{name:?} is not a valid header name")))?;
        let mut value = HeaderValue::from_str(value).map_err(|_| {
            LlmError::Config(format!(
                "the value of header {name} has characters HTTP cannot send"
            ))
        })?;
        // Keeps credentials out of reqwest's own Debug output.
        value.set_sensitive(true);
        map.insert(name, value);
    }
    Ok(map)
}

fn status_error(url: &str, config: &HttpConfig, mut response: Response) -> LlmError {
    let status = response.status().as_u16();
    if status == 429 {
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry::parse_retry_after(v, SystemTime::now()));
        return LlmError::RateLimited {
            url: url.to_string(),
            retry_after,
        };
    }
    // The body explains a 4xx ("model not found"); reading it is best effort, bounded.
    let mut text = Vec::new();
    let _ = (&mut response).take(16 * 1024).read_to_end(&mut text);
    // A server may echo the Authorization header back (some proxies do on 401): the key
    // must not travel on into the stop reason, the history, the log or a transcript.
    let key: Vec<String> = config.api_key().ok().flatten().into_iter().collect();
    let mut body =
        crate::redact::redact(&excerpt(&String::from_utf8_lossy(&text)), &key).into_owned();
    if status == 401 || status == 403 {
        body.push_str(&config.missing_key_hint());
    }
    LlmError::Http {
        url: url.to_string(),
        status,
        body,
    }
}

fn send_error(url: &str, after: Duration, e: &reqwest::Error) -> LlmError {
    if e.is_timeout() {
        return LlmError::Timeout {
            url: url.to_string(),
            after,
        };
    }
    LlmError::Transport {
        url: url.to_string(),
        detail: describe(e),
    }
}

/// A body reader that fails once the whole call has run past its limit, however steadily
/// the server sends: the idle timeout alone lets a degenerate reply stream for hours.
pub struct Deadline<R> {
    inner: R,
    until: Instant,
    limit: Duration,
}

impl<R> Deadline<R> {
    pub fn new(inner: R, started: Instant, limit: Duration) -> Self {
        Self {
            inner,
            until: started + limit,
            limit,
        }
    }
}

/// The error a [`Deadline`] reader fails with; [`body_error`] turns it into `CallLimit`.
#[derive(Debug)]
struct PastLimit(Duration);

impl std::fmt::Display for PastLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "past the per-call limit of {:?}", self.0)
    }
}

impl std::error::Error for PastLimit {}

impl<R: Read> Read for Deadline<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if Instant::now() >= self.until {
            return Err(io::Error::other(PastLimit(self.limit)));
        }
        self.inner.read(buf)
    }
}

/// A failed read of a body we had started to receive: a timeout, or a cut (retryable).
pub(crate) fn body_error(url: &str, after: Duration, e: &io::Error) -> LlmError {
    if let Some(PastLimit(limit)) = e.get_ref().and_then(|i| i.downcast_ref::<PastLimit>()) {
        return LlmError::CallLimit {
            url: url.to_string(),
            limit: *limit,
        };
    }
    let timed_out = e.kind() == io::ErrorKind::TimedOut
        || e.get_ref()
            .and_then(|inner| inner.downcast_ref::<reqwest::Error>())
            .is_some_and(reqwest::Error::is_timeout);
    if timed_out {
        return LlmError::Timeout {
            url: url.to_string(),
            after,
        };
    }
    LlmError::Truncated {
        url: url.to_string(),
        detail: format!("the connection failed mid-reply: {e}"),
    }
}

/// Read a whole (non-streaming) body.
pub(crate) fn read_body(
    url: &str,
    config: &HttpConfig,
    mut response: Response,
) -> Result<Vec<u8>, LlmError> {
    let mut bytes = Vec::new();
    response
        .read_to_end(&mut bytes)
        .map_err(|e| body_error(url, config.request_timeout, &e))?;
    Ok(bytes)
}

/// Parse JSON from the wire; on failure say where (serde's line/column) and show the start.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(
    url: &str,
    bytes: &[u8],
) -> Result<T, LlmError> {
    serde_json::from_slice(bytes).map_err(|e| LlmError::Malformed {
        url: url.to_string(),
        detail: format!(
            "{e}; the reply began: {}",
            excerpt(&String::from_utf8_lossy(bytes))
        ),
    })
}

/// At most [`EXCERPT_CHARS`] characters, whitespace runs folded, `…` when cut.
pub fn excerpt(text: &str) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match folded.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &folded[..cut]),
        None => folded,
    }
}

/// reqwest's Display is terse ("error sending request"); the cause chain says why.
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A rough token count when the server reports none: about four characters per token.
pub(crate) fn estimate_tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_https_client_builds_with_ring() {
        let config = HttpConfig::default();
        assert!(build_client(&config).is_ok());
        // A second one: the provider is already installed, which must not fail.
        assert!(build_client(&config).is_ok());
    }

    #[test]
    fn excerpts_are_short_and_folded() {
        assert_eq!(excerpt("  a \n\n b  "), "a b");
        let long = "x".repeat(500);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn malformed_json_names_line_and_column() {
        let err = parse_json::<serde_json::Value>("http://x", b"{\"a\": nope}").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("line 1 column 8"), "{text}");
        assert!(text.contains("nope"), "{text}");
    }
}
