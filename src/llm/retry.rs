//! When to ask again, and how long to wait first. Pure rules with table tests; the only
//! effects (sleeping, calling the endpoint) are passed in.
//!
//! Jitter is *equal jitter*: half the capped exponential delay is fixed, the other half is
//! random. The engine is one sequential client, so there is no herd to spread out (what
//! full jitter is for) and a guaranteed floor matters more: a struggling server always gets
//! at least half the nominal pause.

use std::time::{Duration, SystemTime};

use super::LlmError;
use crate::rng::{Draw, XorShift64};

/// A server's `Retry-After` is honoured up to this many times `backoff_max`, so a server
/// that says "come back in an hour" cannot silently park the engine; beyond it we retry
/// at the cap and, if still refused, the loop runs out and the error says why.
pub const RETRY_AFTER_CAP_FACTOR: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    pub backoff_base: Duration,
    pub backoff_max: Duration,
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
    pub fn retry_after_cap(&self) -> Duration {
        self.backoff_max.saturating_mul(RETRY_AFTER_CAP_FACTOR)
    }
}

/// A `Retry-After` header value: delta-seconds (`120`) or an HTTP-date
/// (`Wed, 21 Oct 2015 07:28:00 GMT`), relative to `now`. A date in the past means "now"
/// (zero); anything unreadable is `None` (the caller falls back to its own backoff).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
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
pub fn clock_jitter() -> XorShift64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x5DEE_CE66);
    XorShift64::new(nanos ^ u64::from(std::process::id()).rotate_left(32))
}

/// Run `op` until it succeeds, fails with an error that waiting will not fix, or the
/// attempts run out (`Exhausted`, holding the last error). `op` gets the attempt number
/// (1-based). Between attempts, `sleep` gets the server's `Retry-After` (capped) when a
/// rate limit named one, else the jittered backoff.
pub fn retry_loop<T>(
    policy: &RetryPolicy,
    jitter: &mut dyn Draw,
    mut sleep: impl FnMut(Duration),
    mut op: impl FnMut(u32) -> Result<T, LlmError>,
) -> Result<T, LlmError> {
    let attempts = policy.max_retries.saturating_add(1);
    let mut attempt = 1;
    loop {
        let err = match op(attempt) {
            Ok(value) => return Ok(value),
            Err(err) => err,
        };
        if !err.is_retryable() {
            return Err(err);
        }
        if attempt >= attempts {
            return Err(LlmError::Exhausted {
                attempts,
                last: Box::new(err),
            });
        }
        sleep(pause_after(policy, &err, attempt - 1, jitter.draw()));
        attempt += 1;
    }
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
    use crate::plan::Fixed;

    fn policy(max_retries: u32) -> RetryPolicy {
        RetryPolicy {
            max_retries,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(30),
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
        let mut sleeps = Vec::new();
        let mut calls = 0;
        let result: Result<(), _> = retry_loop(
            &policy(4),
            &mut Fixed::new(&[0.0]),
            |d| sleeps.push(d),
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
        assert_eq!((calls, sleeps.len()), (1, 0));
    }

    #[test]
    fn retry_after_wins_over_backoff_and_is_capped() {
        let mut sleeps = Vec::new();
        let script = [Some(3), Some(10_000), None];
        let result = retry_loop(
            &policy(4),
            &mut Fixed::new(&[0.0]),
            |d| sleeps.push(d.as_secs_f64()),
            |attempt| match script.get(attempt as usize - 1) {
                Some(after) => Err(rate_limited(*after)),
                None => Ok(attempt),
            },
        );
        assert_eq!(result.ok(), Some(4));
        // 3 s as asked; 10 000 s capped at 4 × 30 s; no header → backoff for retry 2 (2 s).
        assert_eq!(sleeps, vec![3.0, 120.0, 2.0]);
    }

    #[test]
    fn runs_out_with_the_last_error() {
        let mut calls = 0;
        let result: Result<(), _> = retry_loop(
            &policy(2),
            &mut Fixed::new(&[0.0]),
            |_| {},
            |_| {
                calls += 1;
                Err(rate_limited(None))
            },
        );
        match result {
            Err(LlmError::Exhausted { attempts, last }) => {
                assert_eq!((attempts, calls), (3, 3));
                assert!(matches!(*last, LlmError::RateLimited { .. }));
            }
            other => panic!("expected Exhausted, got {other:?}"),
        }
    }
}
