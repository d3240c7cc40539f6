//! Timestamps as YouRA writes them: `Z`, `+00:00`, with or without fractions, naive, or a
//! bare date. A naive one is read as UTC, and the reader says so.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Utc};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamp {
    pub at: DateTime<FixedOffset>,
    /// Written without an offset (read as UTC).
    pub naive: bool,
}

impl Timestamp {
    pub fn parse(raw: &str) -> Option<Timestamp> {
        let t = raw.trim();
        if let Ok(at) = DateTime::parse_from_rfc3339(t) {
            return Some(Timestamp { at, naive: false });
        }
        let t_space = t.replacen(' ', "T", 1);
        if let Ok(at) = DateTime::parse_from_str(&t_space, "%Y-%m-%dT%H:%M:%S%.f%#z") {
            return Some(Timestamp { at, naive: false });
        }
        for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y%m%dT%H%M%S"] {
            if let Ok(n) = NaiveDateTime::parse_from_str(&t_space, fmt) {
                return Some(Self::utc(n));
            }
        }
        let date = NaiveDate::parse_from_str(t, "%Y-%m-%d").ok()?;
        Some(Self::utc(date.and_hms_opt(0, 0, 0)?))
    }

    fn utc(n: NaiveDateTime) -> Timestamp {
        let at = Utc.from_utc_datetime(&n).fixed_offset();
        Timestamp { at, naive: true }
    }

    /// The current time as youra writes it: RFC 3339, UTC, microseconds.
    pub(crate) fn now_string() -> String {
        Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, false)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.at.to_rfc3339())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_youra_meets_is_read() {
        let z = Timestamp::parse("2026-03-17T00:00:00Z").unwrap();
        let off = Timestamp::parse("2026-03-17T00:00:00.000000+00:00").unwrap();
        let naive = Timestamp::parse("2026-03-17T00:00:00").unwrap();
        let space = Timestamp::parse("2026-03-17 00:00:00").unwrap();
        let date = Timestamp::parse("2026-03-17").unwrap();
        assert_eq!(z.at, off.at);
        assert_eq!(z.at, naive.at);
        assert_eq!(z.at, space.at);
        assert_eq!(z.at, date.at);
        assert!(!z.naive && !off.naive && naive.naive && date.naive);
        assert!(Timestamp::parse("yesterday").is_none());
        assert!(Timestamp::parse("2026-13-45").is_none());
    }
}
