//! When to ask again, and how long to wait first. Pure rules with table tests; the only
//! effects (sleeping, calling the endpoint) are passed in.
//!
//! Jitter is *equal jitter*: half the capped exponential delay is fixed, the other half is
//! random. The engine is one sequential client, so there is no herd to spread out (what
//! full jitter is for) and a guaranteed floor matters more: a struggling server always gets
//! at least half the nominal pause.

use std::time::{Duration, Instant, SystemTime};

use super::LlmError;
pub use super::outage_watch::{Clock, OutageNote, OutageWatch, RealClock};
use crate::rng::{Draw, XorShift64};

/// A server's `Retry-After` is honoured up to this many times `backoff_max`, so a server
/// that says "come back in an hour" cannot silently park the engine; beyond it we retry
/// at the cap and, if still refused, the loop runs out and the error says why.
pub(crate) const RETRY_AFTER_CAP_FACTOR: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    /// How long an endpoint that does not answer (refused, timed out, 429, 5xx) is waited
    /// for, from its first failure, once the quick retries are spent: `[llm] outage_wait_s`.
    /// Zero: no waiting beyond the retries.
    pub outage_wait: Duration,
}

impl RetryPolicy {
    /// The pause before retry number `retry` (0 for the first retry), given a draw in [0, 1):
    /// `c = min(backoff_max, backoff_base · 2^retry)`, then `c/2 + draw · c/2`.
    pub fn backoff(&self, retry: u32, draw: f64) -> Duration {
        let factor = 2u32.saturating_pow(retry.min(31));
        let nominal = self
            .backoff_base
            .saturating_mul(factor)
            .min(self.backoff_max);
        let half = nominal / 2;
        half + half.mul_f64(draw.clamp(0.0, 1.0))
    }

    /// The longest `Retry-After` we wait for (see [`RETRY_AFTER_CAP_FACTOR`]).
    pub(crate) fn retry_after_cap(&self) -> Duration {
        self.backoff_max.saturating_mul(RETRY_AFTER_CAP_FACTOR)
    }
}

/// A `Retry-After` header value: delta-seconds (`120`) or an HTTP-date
/// (`Wed, 21 Oct 2015 07:28:00 GMT`), relative to `now`. A date in the past means "now"
/// (zero); anything unreadable is `None` (the caller falls back to its own backoff).
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    // Some proxies send fractional seconds; the RFC does not allow them, but they are clear.
    if let Ok(secs) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).ok();
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let when = SystemTime::from(when);
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Draws for jitter, seeded from the clock: unpredictability does not matter here, only
/// that two runs do not march in lockstep.
pub(crate) fn clock_jitter() -> XorShift64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x5DEE_CE66);
    XorShift64::new(nanos ^ u64::from(std::process::id()).rotate_left(32))
}

/// Run `op` until it succeeds or fails with an error that waiting will not fix. `op` gets the
/// attempt number (1-based). Between attempts the clock sleeps the server's `Retry-After`
/// (capped) when a rate limit named one, else the jittered backoff. When the quick retries
/// (`max_retries`) are spent on an outage ([`LlmError::is_outage`]), it goes on waiting
/// until `outage_wait` has passed since the first failure, telling `watch` when it starts
/// and when it ends; past the window the error is [`LlmError::Outage`] (`Exhausted` when no
/// window is set, still [`LlmError::is_outage`]). Retryable errors
/// that are not outages (a cut-off reply) end as `Exhausted` once the retries are spent.
pub(crate) fn retry_loop<T>(
    policy: &RetryPolicy,
    jitter: &mut dyn Draw,
    clock: &mut dyn Clock,
    watch: &OutageWatch,
    mut op: impl FnMut(u32) -> Result<T, LlmError>,
) -> Result<T, LlmError> {
    let quick = policy.max_retries.saturating_add(1);
    let mut attempt = 1;
    let mut first: Option<(Instant, SystemTime)> = None;
    // The endpoint waited for, once the quick retries are spent on an outage.
    let mut waiting: Option<String> = None;
    loop {
        let result = op(attempt);
        let err = match result {
            Ok(value) => {
                if let (Some(url), Some((t0, since))) = (waiting, first) {
                    watch.tell(&back(url, since, clock.now() - t0));
                }
                watch.answered();
                return Ok(value);
            }
            Err(err) => err,
        };
        if !err.is_retryable() {
            if let (Some(url), Some((t0, since))) = (waiting, first) {
                watch.tell(&back(url, since, clock.now() - t0));
            }
            return Err(err);
        }
        let (t0, since) = *first.get_or_insert_with(|| (clock.now(), clock.wall()));
        if attempt < quick {
            clock.sleep(pause_after(policy, &err, attempt - 1, jitter.draw()));
            attempt += 1;
            continue;
        }
        let waited = clock.now() - t0;
        if !err.is_outage() {
            return Err(LlmError::Exhausted {
                attempts: attempt,
                last: Box::new(err),
            });
        }
        let url = err.url().unwrap_or_default().to_string();
        if waited >= policy.outage_wait {
            watch.tell(&OutageNote::GaveUp {
                url: url.clone(),
                since,
                waited,
            });
            // No window configured: the retries' own error, as before windows existed.
            if policy.outage_wait.is_zero() {
                return Err(LlmError::Exhausted {
                    attempts: attempt,
                    last: Box::new(err),
                });
            }
            return Err(LlmError::Outage {
                url,
                waited,
                window: policy.outage_wait,
                last: Box::new(err),
            });
        }
        if waiting.is_none() {
            waiting = Some(url.clone());
            watch.tell(&OutageNote::Waiting {
                url,
                since,
                until: since + policy.outage_wait,
                error: err.cause(),
            });
        }
        let left = policy.outage_wait - waited;
        clock.sleep(pause_after(policy, &err, attempt - 1, jitter.draw()).min(left));
        attempt += 1;
    }
}

fn back(url: String, since: SystemTime, waited: Duration) -> OutageNote {
    OutageNote::Back { url, since, waited }
}

fn pause_after(policy: &RetryPolicy, err: &LlmError, retry: u32, draw: f64) -> Duration {
    match err {
        LlmError::RateLimited {
            retry_after: Some(after),
            ..
        } => (*after).min(policy.retry_after_cap()),
        _ => policy.backoff(retry, draw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Fixed;
    use std::sync::{Arc, Mutex};

    fn policy(max_retries: u32) -> RetryPolicy {
        RetryPolicy {
            max_retries,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(30),
            outage_wait: Duration::ZERO,
        }
    }

    /// A clock that moves only when the loop sleeps: the calls themselves take no time.
    struct Fake {
        t0: Instant,
        at: Duration,
        sleeps: Vec<f64>,
    }

    impl Fake {
        fn new() -> Fake {
            Fake {
                t0: Instant::now(),
                at: Duration::ZERO,
                sleeps: Vec::new(),
            }
        }
    }

    impl Clock for Fake {
        fn now(&self) -> Instant {
            self.t0 + self.at
        }
        fn wall(&self) -> SystemTime {
            SystemTime::UNIX_EPOCH + self.at
        }
        fn sleep(&mut self, pause: Duration) {
            self.at += pause;
            self.sleeps.push(pause.as_secs_f64());
        }
    }

    /// A watch that keeps every note.
    fn recording() -> (OutageWatch, Arc<Mutex<Vec<OutageNote>>>) {
        let watch = OutageWatch::default();
        let notes = Arc::new(Mutex::new(Vec::new()));
        let keep = notes.clone();
        watch.listen(move |n| keep.lock().unwrap().push(n.clone()));
        (watch, notes)
    }

    fn kinds(notes: &Arc<Mutex<Vec<OutageNote>>>) -> Vec<&'static str> {
        notes
            .lock()
            .unwrap()
            .iter()
            .map(|n| match n {
                OutageNote::Waiting { .. } => "waiting",
                OutageNote::Back { .. } => "back",
                OutageNote::GaveUp { .. } => "gave_up",
            })
            .collect()
    }

    fn refused() -> LlmError {
        LlmError::Transport {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            detail: "connection refused".into(),
        }
    }

    #[test]
    fn backoff_table() {
        let p = policy(4);
        let ms = |retry, draw| p.backoff(retry, draw).as_millis();
        // (retry, draw, expected ms): nominal 1 s, 2 s, 4 s … capped at 30 s; equal jitter.
        let table = [
            (0, 0.0, 500),
            (0, 0.5, 750),
            (0, 0.999, 999),
            (1, 0.0, 1000),
            (2, 1.0, 4000),
            (4, 0.0, 8000),
            (5, 0.0, 15000),
            (6, 0.5, 22500),
            (40, 0.0, 15000),
        ];
        for (retry, draw, want) in table {
            assert_eq!(ms(retry, draw), want, "retry {retry}, draw {draw}");
        }
    }

    #[test]
    fn retry_after_table() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480); // 07:28:00 GMT
        let table: [(&str, Option<u64>); 7] = [
            ("1", Some(1)),
            (" 120 ", Some(120)),
            ("1.5", Some(1)),
            ("Wed, 21 Oct 2015 07:28:30 GMT", Some(30)),
            ("Wed, 21 Oct 2015 07:00:00 GMT", Some(0)),
            ("soon", None),
            ("-3", None),
        ];
        for (value, want) in table {
            let got = parse_retry_after(value, now).map(|d| d.as_secs());
            assert_eq!(got, want, "{value:?}");
        }
    }

    fn rate_limited(after: Option<u64>) -> LlmError {
        LlmError::RateLimited {
            url: "http://x".into(),
            retry_after: after.map(Duration::from_secs),
        }
    }

    #[test]
    fn retries_only_what_waiting_can_fix() {
        let mut clock = Fake::new();
        let mut calls = 0;
        let result: Result<(), _> = retry_loop(
            &policy(4),
            &mut Fixed::new(&[0.0]),
            &mut clock,
            &OutageWatch::default(),
            |_| {
                calls += 1;
                Err(LlmError::Http {
                    url: "http://x".into(),
                    status: 400,
                    body: "bad".into(),
                })
            },
        );
        assert!(matches!(result, Err(LlmError::Http { status: 400, .. })));
        assert_eq!((calls, clock.sleeps.len()), (1, 0));
    }

    #[test]
    fn retry_after_wins_over_backoff_and_is_capped() {
        let mut clock = Fake::new();
        let script = [Some(3), Some(10_000), None];
        let result = retry_loop(
            &policy(4),
            &mut Fixed::new(&[0.0]),
            &mut clock,
            &OutageWatch::default(),
            |attempt| match script.get(attempt as usize - 1) {
                Some(after) => Err(rate_limited(*after)),
                None => Ok(attempt),
            },
        );
        assert_eq!(result.ok(), Some(4));
        // 3 s as asked; 10 000 s capped at 4 × 30 s; no header → backoff for retry 2 (2 s).
        assert_eq!(clock.sleeps, vec![3.0, 120.0, 2.0]);
    }

    #[test]
    fn without_a_window_an_outage_gives_up_after_the_retries() {
        let mut calls = 0;
        let (watch, notes) = recording();
        let result: Result<(), _> = retry_loop(
            &policy(2),
            &mut Fixed::new(&[0.0]),
            &mut Fake::new(),
            &watch,
            |_| {
                calls += 1;
                Err(rate_limited(None))
            },
        );
        match result {
            Err(e @ LlmError::Exhausted { attempts: 3, .. }) => {
                assert_eq!(calls, 3);
                assert!(e.is_outage(), "still an outage for the engine's stop");
            }
            other => panic!("expected Exhausted, got {other:?}"),
        }
        assert_eq!(kinds(&notes), ["gave_up"]);
        assert_eq!(watch.take_gave_up().as_deref(), Some("http://x"));
        assert_eq!(watch.take_gave_up(), None, "taken once");
    }

    #[test]
    fn a_cut_reply_is_retried_but_not_waited_for() {
        let (watch, notes) = recording();
        let mut p = policy(1);
        p.outage_wait = Duration::from_secs(600);
        let result: Result<(), _> = retry_loop(
            &p,
            &mut Fixed::new(&[0.0]),
            &mut Fake::new(),
            &watch,
            |_| {
                Err(LlmError::Truncated {
                    url: "http://x".into(),
                    detail: "cut".into(),
                })
            },
        );
        assert!(
            matches!(result, Err(LlmError::Exhausted { attempts: 2, .. })),
            "{result:?}"
        );
        assert!(kinds(&notes).is_empty());
    }

    #[test]
    fn an_outage_is_waited_out_and_the_call_goes_on() {
        let (watch, notes) = recording();
        let mut p = policy(2);
        p.outage_wait = Duration::from_secs(1800);
        let mut clock = Fake::new();
        // Refused for ten attempts (the server is down for minutes), then it answers.
        let result = retry_loop(&p, &mut Fixed::new(&[0.0]), &mut clock, &watch, |attempt| {
            if attempt <= 10 {
                Err(refused())
            } else {
                Ok(attempt)
            }
        });
        assert_eq!(result.ok(), Some(11));
        assert_eq!(kinds(&notes), ["waiting", "back"]);
        let notes = notes.lock().unwrap();
        let OutageNote::Waiting {
            url, since, until, ..
        } = &notes[0]
        else {
            unreachable!()
        };
        assert_eq!(url, "http://127.0.0.1:9/v1/chat/completions");
        assert_eq!(
            (*since, until.duration_since(*since).ok()),
            (SystemTime::UNIX_EPOCH, Some(Duration::from_secs(1800)))
        );
        // The pauses back off to the cap: 0.5, 1, 2, 4, 8, then 15 s at draw 0.
        assert_eq!(
            clock.sleeps,
            vec![0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 15.0, 15.0, 15.0, 15.0]
        );
        let OutageNote::Back { waited, .. } = &notes[1] else {
            unreachable!()
        };
        assert_eq!(*waited, clock.at);
        assert_eq!(watch.take_gave_up(), None);
    }

    #[test]
    fn past_the_window_it_gives_up_never_sleeping_beyond_it() {
        let (watch, notes) = recording();
        let mut p = policy(0);
        p.outage_wait = Duration::from_secs(10);
        let mut clock = Fake::new();
        let result: Result<(), _> =
            retry_loop(&p, &mut Fixed::new(&[0.0]), &mut clock, &watch, |_| {
                Err(LlmError::Http {
                    url: "http://x".into(),
                    status: 503,
                    body: "down".into(),
                })
            });
        match result {
            Err(LlmError::Outage { waited, window, .. }) => {
                assert_eq!(
                    (waited, window),
                    (Duration::from_secs(10), Duration::from_secs(10))
                );
            }
            other => panic!("expected Outage, got {other:?}"),
        }
        // 0.5 + 1 + 2 + 4 = 7.5 s, then the last pause is cut to the 2.5 s left.
        assert_eq!(clock.sleeps, vec![0.5, 1.0, 2.0, 4.0, 2.5]);
        assert_eq!(kinds(&notes), ["waiting", "gave_up"]);
        assert!(watch.take_gave_up().is_some());
    }

    #[test]
    fn an_endpoint_that_comes_back_with_a_refusal_ends_the_wait() {
        let (watch, notes) = recording();
        let mut p = policy(0);
        p.outage_wait = Duration::from_secs(60);
        let result: Result<(), _> = retry_loop(
            &p,
            &mut Fixed::new(&[0.0]),
            &mut Fake::new(),
            &watch,
            |attempt| {
                if attempt < 3 {
                    Err(refused())
                } else {
                    Err(LlmError::Http {
                        url: "http://x".into(),
                        status: 404,
                        body: "model not found".into(),
                    })
                }
            },
        );
        assert!(matches!(result, Err(LlmError::Http { status: 404, .. })));
        assert_eq!(kinds(&notes), ["waiting", "back"]);
    }
}
