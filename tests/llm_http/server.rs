//! A scripted HTTP/1.1 server on 127.0.0.1:0 for the client tests. Each connection gets
//! one request (read to its Content-Length), which is recorded, and the next scripted
//! reply: a status, headers, a body (whole or as chunked SSE writes), an optional delay
//! before answering, and an optional cut of the connection after N bytes.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Body,
    pub delay: Duration,
    /// Close the connection after this many bytes of the whole response.
    pub cut_after: Option<usize>,
}

pub enum Body {
    Whole(String),
    /// Written as one HTTP chunk each, flushed, a few milliseconds apart.
    Chunks(Vec<String>),
}

impl Reply {
    pub fn json(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: Body::Whole(body.to_string()),
            delay: Duration::ZERO,
            cut_after: None,
        }
    }

    pub fn sse(chunks: &[&str]) -> Reply {
        Reply {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: Body::Chunks(chunks.iter().map(|c| c.to_string()).collect()),
            delay: Duration::ZERO,
            cut_after: None,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    pub fn cut_after(mut self, bytes: usize) -> Reply {
        self.cut_after = Some(bytes);
        self
    }
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: serde_json::Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct Server {
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Server {
    pub fn start(script: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let url = format!("http://{}", listener.local_addr().expect("local addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let seen = Arc::clone(&requests);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (seen, script) = (Arc::clone(&seen), Arc::clone(&script));
                // One thread per connection: a delayed reply must not hold up the next one.
                thread::spawn(move || serve(stream, &seen, &script));
            }
        });
        Server { url, requests }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("lock").clone()
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Vec<Recorded>>, script: &Mutex<VecDeque<Reply>>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    let Some(request) = read_request(&mut reader) else {
        return;
    };
    let auth = request.header("authorization").unwrap_or("").to_string();
    seen.lock().expect("lock").push(request);
    let mut reply = script
        .lock()
        .expect("lock")
        .pop_front()
        .unwrap_or_else(|| Reply::json(500, "{\"error\":\"script exhausted\"}"));
    // `{{authorization}}` in a body echoes the request's header, as careless proxies do.
    if let Body::Whole(text) = &mut reply.body {
        *text = text.replace("{{authorization}}", &auth);
    }
    thread::sleep(reply.delay);
    let _ = write_reply(stream, reply);
}

fn read_request(reader: &mut impl BufRead) -> Option<Recorded> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_string();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        let (name, value) = trimmed.split_once(':')?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let body = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
    Some(Recorded {
        path,
        headers,
        body,
    })
}

fn write_reply(mut stream: TcpStream, reply: Reply) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} Scripted\r\nconnection: close\r\n",
        reply.status
    );
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let mut parts: Vec<Vec<u8>> = Vec::new();
    match &reply.body {
        Body::Whole(text) => {
            head.push_str(&format!("content-length: {}\r\n\r\n", text.len()));
            parts.push(format!("{head}{text}").into_bytes());
        }
        Body::Chunks(chunks) => {
            head.push_str("transfer-encoding: chunked\r\n\r\n");
            parts.push(head.into_bytes());
            for chunk in chunks {
                parts.push(format!("{:x}\r\n{chunk}\r\n", chunk.len()).into_bytes());
            }
            parts.push(b"0\r\n\r\n".to_vec());
        }
    }
    let mut budget = reply.cut_after.unwrap_or(usize::MAX);
    for part in parts {
        let n = part.len().min(budget);
        stream.write_all(&part[..n])?;
        stream.flush()?;
        budget -= n;
        if budget == 0 {
            // Closed mid-reply: the client's read of the rest must fail.
            return stream.shutdown(std::net::Shutdown::Both);
        }
        thread::sleep(Duration::from_millis(5));
    }
    Ok(())
}
