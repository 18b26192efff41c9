//! RETRY-8: the three HTTP-date forms of RFC 9110 §5.6.7, exact and case-sensitive.

use crate::is_digits;

const DAY_NAMES: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LONG_DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `(year, month, day, milliseconds of the day)` of a timestamp, UTC.
fn civil(ms: i64) -> (i64, i64, i64, i64) {
    let (days, ms_of_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        yoe + era * 400 + i64::from(month <= 2),
        month,
        day,
        ms_of_day,
    )
}

fn two_digits(text: &str) -> Option<i64> {
    if text.len() == 2 && is_digits(text) {
        text.parse().ok()
    } else {
        None
    }
}

/// `hh:mm:ss` as seconds of the day (second 60 allowed: a leap second).
fn time_of_day(text: &str) -> Option<i64> {
    let mut parts = text.split(':');
    let (hour, minute, second) = (
        two_digits(parts.next()?)?,
        two_digits(parts.next()?)?,
        two_digits(parts.next()?)?,
    );
    if parts.next().is_some() || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    Some(hour * 3600 + minute * 60 + second)
}

fn timestamp(year: i64, month_name: &str, day: i64, clock: &str) -> Option<i64> {
    let month = MONTHS.iter().position(|m| *m == month_name)?;
    let month = i64::try_from(month).ok()? + 1;
    let seconds = time_of_day(clock)?;
    if !(1..=days_in_month(year, month)).contains(&day) {
        return None;
    }
    Some((days_from_civil(year, month, day) * 86_400 + seconds) * 1000)
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`.
fn imf_fixdate(value: &str) -> Option<i64> {
    let rest = value.get(3..)?.strip_prefix(", ")?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, clock, "GMT"] = parts[..] else {
        return None;
    };
    let day = two_digits(day)?;
    if year.len() != 4 || !is_digits(year) {
        return None;
    }
    timestamp(year.parse().ok()?, month, day, clock)
}

/// `06-Nov-94 08:49:37 GMT`, after `Sunday, `.
fn rfc850_date(rest: &str, now_ms: i64) -> Option<i64> {
    let parts: Vec<&str> = rest.split(' ').collect();
    let [date, clock, "GMT"] = parts[..] else {
        return None;
    };
    let date: Vec<&str> = date.split('-').collect();
    let [day, month, yy] = date[..] else {
        return None;
    };
    let (day, yy) = (two_digits(day)?, two_digits(yy)?);
    // RFC 9110 §5.6.7: the year ending in yy that is not more than 50 years in the
    // future. In [now_year - 49, now_year + 50], only now_year + 50 can be more than 50
    // years ahead: when the date is later in its year than now is in now's year.
    let (now_year, now_month, now_day, now_ms_of_day) = civil(now_ms);
    let year = now_year - 49 + (yy - (now_year - 49)).rem_euclid(100);
    let stamp = timestamp(year, month, day, clock)?;
    let (_, stamp_month, _, stamp_ms_of_day) = civil(stamp);
    if year == now_year + 50
        && (stamp_month, day, stamp_ms_of_day) > (now_month, now_day, now_ms_of_day)
    {
        return timestamp(year - 100, month, day, clock);
    }
    Some(stamp)
}

/// `Sun Nov  6 08:49:37 1994` or `Sun Nov 16 08:49:37 1994`, read as UTC.
fn asctime_date(value: &str) -> Option<i64> {
    let bytes = value.as_bytes();
    if bytes.len() != 24 || [3, 7, 10, 19].iter().any(|&i| bytes[i] != b' ') {
        return None;
    }
    // Every byte checked so far is ASCII, and the slices below end on them.
    let (month, day_text, clock, year) = (
        value.get(4..7)?,
        value.get(8..10)?,
        value.get(11..19)?,
        value.get(20..24)?,
    );
    let day = match day_text.strip_prefix(' ') {
        Some(digit) if is_digits(digit) => digit.parse().ok()?,
        Some(_) => return None,
        None => two_digits(day_text)?,
    };
    if !is_digits(year) {
        return None;
    }
    timestamp(year.parse().ok()?, month, day, clock)
}

/// RETRY-8: an HTTP-date in any of its three forms as milliseconds since the
/// Unix epoch (`now_ms` places RFC 850's two-digit year); `None` if it is not one.
pub fn parse_http_date(value: &str, now_ms: i64) -> Option<i64> {
    let short_name = value.get(..3).is_some_and(|name| DAY_NAMES.contains(&name));
    if short_name && value.as_bytes().get(3) == Some(&b',') {
        return imf_fixdate(value);
    }
    if let Some((name, rest)) = value.split_once(", ") {
        if LONG_DAY_NAMES.contains(&name) {
            return rfc850_date(rest, now_ms);
        }
    }
    if short_name {
        return asctime_date(value);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_forms_agree() {
        let expected = Some(784_111_777_000);
        assert_eq!(
            parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", 0),
            expected
        );
        assert_eq!(
            parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", 0),
            expected
        );
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994", 0), expected);
    }

    #[test]
    fn civil_round_trips() {
        for year in [1970, 1999, 2000, 2024, 2100, 9999] {
            let start = days_from_civil(year, 1, 1) * 86_400_000;
            assert_eq!(civil(start), (year, 1, 1, 0));
            assert_eq!(civil(start - 1), (year - 1, 12, 31, 86_399_999));
        }
    }

    #[test]
    fn non_ascii_is_not_a_date() {
        assert_eq!(parse_http_date("Sün, 06 Nov 1994 08:49:37 GMT", 0), None);
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 199\u{663}", 0), None);
    }
}
