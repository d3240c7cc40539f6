//! A scheduler whose controller does not answer is waited out (issue 43 item 3, as a model
//! server's outage is): the submission is retried with backoff for the back end's window
//! (`[exec.slurm] outage_wait_s`), `youra status` and the events say what the run waits for
//! and since when, and the run goes on by itself when the controller answers. Past the window
//! the run stops as an infrastructure stop, which `youra run` resumes. A refusal (a bad
//! partition, a limit) is never waited for: only what [`crate::exec::unreachable`] names.

use std::time::{Duration, Instant, SystemTime};

use crate::exec::ExecError;

/// The first wait between tries, doubled after each up to [`MAX_BACKOFF`].
pub(crate) const FIRST_BACKOFF: Duration = Duration::from_millis(500);
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// What the wait says as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    Waiting {
        since: SystemTime,
        until: SystemTime,
        error: String,
    },
    Back {
        waited: Duration,
    },
}

/// Why no job was started.
#[derive(Debug)]
pub(crate) enum Waited {
    /// An error the wait does not cover (a refusal, a sandbox missing): as it came.
    Exec(ExecError),
    /// The controller did not answer within the window.
    GaveUp { waited: Duration, error: String },
}

/// Try `start` until it succeeds, fails for another reason than an unreachable controller,
/// or `window` has passed since the first unanswered try. `sleep` is the pause between tries
/// (the engine's thread sleeps; tests count).
pub(crate) fn with_wait<T>(
    window: Duration,
    mut start: impl FnMut() -> Result<T, ExecError>,
    mut note: impl FnMut(Note),
    mut sleep: impl FnMut(Duration),
) -> Result<T, Waited> {
    let mut since: Option<(Instant, SystemTime)> = None;
    let mut backoff = FIRST_BACKOFF;
    loop {
        match start() {
            Ok(t) => {
                if let Some((at, _)) = since {
                    note(Note::Back {
                        waited: at.elapsed(),
                    });
                }
                return Ok(t);
            }
            Err(e) if crate::exec::unreachable(&e) => {
                let (at, wall) = *since.get_or_insert_with(|| (Instant::now(), SystemTime::now()));
                let waited = at.elapsed();
                if waited >= window {
                    return Err(Waited::GaveUp {
                        waited,
                        error: e.to_string(),
                    });
                }
                if backoff == FIRST_BACKOFF {
                    note(Note::Waiting {
                        since: wall,
                        until: wall + window,
                        error: e.to_string(),
                    });
                }
                sleep(backoff.min(window - waited));
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
            Err(e) => return Err(Waited::Exec(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn down() -> ExecError {
        ExecError::Submit(
            "sbatch exit status: 1: sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)"
                .into(),
        )
    }

    #[test]
    fn an_unanswering_controller_is_waited_for_and_a_refusal_is_not() {
        // Down twice, then up: two pauses, one Waiting note, one Back note, the job.
        let mut tries = 0;
        let mut notes = Vec::new();
        let mut slept = Vec::new();
        let got = with_wait(
            Duration::from_secs(60),
            || {
                tries += 1;
                if tries <= 2 { Err(down()) } else { Ok(tries) }
            },
            |n| notes.push(n),
            |d| slept.push(d),
        );
        assert_eq!(got.ok(), Some(3));
        assert_eq!(slept, vec![FIRST_BACKOFF, FIRST_BACKOFF * 2]);
        assert!(matches!(notes[0], Note::Waiting { .. }) && matches!(notes[1], Note::Back { .. }));
        assert_eq!(notes.len(), 2);
        // A refusal goes back at once, never waited for.
        let refused = with_wait(
            Duration::from_secs(60),
            || -> Result<(), ExecError> {
                Err(ExecError::Submit(
                    "sbatch: error: invalid partition name specified".into(),
                ))
            },
            |_| panic!("no note for a refusal"),
            |_| panic!("no wait for a refusal"),
        );
        assert!(matches!(refused, Err(Waited::Exec(_))));
        // A window of nothing gives up at the first unanswered try, saying what it saw.
        let gave_up = with_wait(
            Duration::ZERO,
            || -> Result<(), ExecError> { Err(down()) },
            |_| {},
            |_| {},
        );
        match gave_up {
            Err(Waited::GaveUp { error, .. }) => {
                assert!(error.contains("Unable to contact"), "{error}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn what_counts_as_unreachable() {
        let cases = [
            (
                "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)",
                true,
            ),
            (
                "sbatch: error: Socket timed out on send/recv operation",
                true,
            ),
            (
                "slurm_receive_msg: Zero Bytes were transmitted or received",
                true,
            ),
            ("sbatch: error: invalid partition name specified", false),
            (
                "sbatch: error: Memory specification can not be satisfied",
                false,
            ),
        ];
        for (msg, want) in cases {
            assert_eq!(
                crate::exec::unreachable(&ExecError::Submit(msg.into())),
                want,
                "{msg}"
            );
        }
        assert!(!crate::exec::unreachable(&ExecError::InvalidJob(
            "x".into()
        )));
    }
}
