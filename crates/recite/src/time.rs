//! Time as this crate stores and reads it: RFC 3339 UTC with milliseconds in
//! the database (so strings sort as times), local days in the child's time
//! zone for due dates and reports.

use chrono::{DateTime, Duration, NaiveDate, SecondsFormat, TimeZone, Utc};
use chrono_tz::Tz;

use deskmate_store::{StoreError, StoreResult};

/// A timestamp as stored.
pub(crate) fn ts(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub(crate) fn parse_ts(s: &str) -> StoreResult<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .map(|d| d.with_timezone(&Utc))
        .map_err(|e| StoreError::Invalid(format!("stored time {s:?} is damaged: {e}")))
}

pub(crate) fn time_zone(name: &str) -> StoreResult<Tz> {
    name.parse::<Tz>()
        .map_err(|_| StoreError::Invalid(format!("unknown time zone {name:?}")))
}

/// The UTC instants at which local `day` starts and the next day starts in
/// `tz`. A midnight skipped by a daylight-saving change starts the day at the
/// first local time that exists.
pub(crate) fn local_day_bounds(day: NaiveDate, tz: Tz) -> (DateTime<Utc>, DateTime<Utc>) {
    (
        local_midnight(day, tz),
        local_midnight(day + Duration::days(1), tz),
    )
}

fn local_midnight(day: NaiveDate, tz: Tz) -> DateTime<Utc> {
    let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default();
    (0..=3)
        .find_map(|h| {
            tz.from_local_datetime(&(midnight + Duration::hours(h)))
                .earliest()
        })
        .map_or_else(
            || Utc.from_utc_datetime(&midnight),
            |d| d.with_timezone(&Utc),
        )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn day_bounds_follow_the_time_zone() {
        let day = NaiveDate::from_ymd_opt(2026, 3, 2).unwrap();
        let (s, e) = local_day_bounds(day, chrono_tz::Asia::Shanghai);
        assert_eq!(ts(s), "2026-03-01T16:00:00.000Z");
        assert_eq!(ts(e), "2026-03-02T16:00:00.000Z");
        let (s, _) = local_day_bounds(day, chrono_tz::America::New_York);
        assert_eq!(ts(s), "2026-03-02T05:00:00.000Z");
    }

    #[test]
    fn daylight_saving_days_are_23_or_25_hours() {
        // Clocks in New York jump forward on 8 March 2026 and back on 1 November.
        let (s, e) = local_day_bounds(
            NaiveDate::from_ymd_opt(2026, 3, 8).unwrap(),
            chrono_tz::America::New_York,
        );
        assert_eq!((e - s).num_hours(), 23);
        let (s, e) = local_day_bounds(
            NaiveDate::from_ymd_opt(2026, 11, 1).unwrap(),
            chrono_tz::America::New_York,
        );
        assert_eq!((e - s).num_hours(), 25);
        // Santiago skips midnight itself when summer time starts.
        let (s, _) = local_day_bounds(
            NaiveDate::from_ymd_opt(2026, 9, 6).unwrap(),
            chrono_tz::America::Santiago,
        );
        assert_eq!(
            s.with_timezone(&chrono_tz::America::Santiago)
                .date_naive()
                .to_string(),
            "2026-09-06"
        );
    }

    #[test]
    fn timestamps_round_trip() {
        let at = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
        assert_eq!(parse_ts(&ts(at)).unwrap(), at);
        assert!(parse_ts("yesterday").is_err());
    }
}
