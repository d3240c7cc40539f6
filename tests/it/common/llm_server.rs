//! A small OpenAI-compatible model server on loopback, std only: `GET /v1/models` lists the
//! models it serves, `POST /v1/chat/completions` answers (whole or as a stream) with what
//! the test's `reply` function returns, and, when `strict`, refuses a model it does not
//! serve with HTTP 404 the way Ollama and vLLM do. It counts the chat requests it answered.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

type Reply = Arc<dyn Fn(&serde_json::Value) -> String + Send + Sync>;

pub struct LlmServer {
    pub port: u16,
    /// Chat requests answered with a reply (not refused).
    pub answered: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

/// A port nothing listens on now (bound, then released).
pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    l.local_addr().unwrap().port()
}

impl LlmServer {
    /// Serve on `port` (0: any) the `models`; `reply` gives each chat reply's content.
    pub fn start(
        port: u16,
        models: &[&str],
        strict: bool,
        reply: impl Fn(&serde_json::Value) -> String + Send + Sync + 'static,
    ) -> LlmServer {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind the model server");
        let port = listener.local_addr().unwrap().port();
        let answered = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let models: Arc<Vec<String>> = Arc::new(models.iter().map(|m| m.to_string()).collect());
        let reply: Reply = Arc::new(reply);
        let (count, halt) = (answered.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if halt.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (models, reply, count) = (models.clone(), reply.clone(), count.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, &models, strict, &*reply, &count);
                });
            }
        });
        LlmServer {
            port,
            answered,
            stop,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn answered(&self) -> usize {
        self.answered.load(Ordering::SeqCst)
    }
}

impl Drop for LlmServer {
    /// Stop listening: the port refuses connections again.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(
    stream: TcpStream,
    models: &[String],
    strict: bool,
    reply: &(dyn Fn(&serde_json::Value) -> String + Send + Sync),
    count: &AtomicUsize,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.trim().eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    let mut out = stream;
    let path = request_line.split_whitespace().nth(1).unwrap_or("");
    if request_line.starts_with("GET") && path.ends_with("/models") {
        let data: Vec<_> = models
            .iter()
            .map(|m| serde_json::json!({"id": m, "object": "model"}))
            .collect();
        return respond(
            &mut out,
            200,
            &serde_json::json!({"object": "list", "data": data}),
        );
    }
    if !path.ends_with("/chat/completions") {
        return respond(
            &mut out,
            404,
            &serde_json::json!({"error": {"message": "no route"}}),
        );
    }
    let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let model = request["model"].as_str().unwrap_or("").to_string();
    if strict && !models.contains(&model) {
        let message = format!("model '{model}' not found, try pulling it first");
        return respond(
            &mut out,
            404,
            &serde_json::json!({"error": {"message": message, "type": "not_found_error"}}),
        );
    }
    let content = reply(&request);
    count.fetch_add(1, Ordering::SeqCst);
    if request["stream"].as_bool() == Some(true) {
        let chunk = serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "model": model,
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": content}, "finish_reason": null}]});
        let end = serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "model": model,
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
        let text = format!("data: {chunk}\n\ndata: {end}\n\ndata: [DONE]\n\n");
        write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
            text.len()
        )?;
        return out.flush();
    }
    let body = serde_json::json!({
        "id": "c1", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    });
    respond(&mut out, 200, &body)
}

fn respond(out: &mut TcpStream, status: u16, body: &serde_json::Value) -> std::io::Result<()> {
    let text = body.to_string();
    let reason = if status == 200 { "OK" } else { "Not Found" };
    write!(
        out,
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    )?;
    out.flush()
}
