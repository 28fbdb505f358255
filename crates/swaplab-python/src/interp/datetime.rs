//! `datetime` and `time`, on a fixed and stated clock.
//!
//! **The clock.** Every run happens at one instant, [`FIXED_EPOCH`]:
//! 2026-12-02T09:00:00 UTC, the instant the in-memory network's `Date` header states
//! ([`FIXED_DATE`] is written from it, so the two cannot drift apart). `datetime.now()`,
//! `datetime.utcnow()`, `datetime.today()`, `date.today()` and `time.time()` answer with
//! it, and local time is UTC: `datetime.now()` is 2026-12-02 09:00, naive, the same
//! wall-clock time as `datetime.now(timezone.utc)`; a naive datetime's `timestamp()` and
//! `astimezone()` read it as UTC. `time.sleep(x)` returns at once and the clock does not
//! move, so a loop that waits for time to pass ends at the step limit.
//!
//! **What runs**, with CPython 3.11's values, reprs, `str()` and messages: `import
//! datetime` (`as dt` too) and `from datetime import datetime, date, timedelta,
//! timezone, UTC, MINYEAR, MAXYEAR`; `import time` for `time.time()` and
//! `time.sleep()`.
//!
//! - `datetime(year, month, day, hour, minute, second, microsecond, tzinfo=)` and
//!   `date(year, month, day)`, by position or keyword, with CPython's range checks
//!   (`month must be in 1..12`, `day is out of range for month`…); `now(tz)`, `utcnow()`,
//!   `today()`, `fromtimestamp(ts, tz)`, `utcfromtimestamp(ts)` and `fromisoformat(s)`.
//! - Their attributes (`year` … `microsecond`, `tzinfo`, `fold`) and methods:
//!   `isoformat(sep, timespec)`, `strftime(format)` (and `format()`/f-string specs),
//!   `date()`, `timestamp()`, `replace(…)`, `astimezone(tz)`, `utcoffset()`, `tzname()`,
//!   `dst()`, `weekday()`, `isoweekday()`, `toordinal()`, `ctime()`.
//! - `timedelta(days, seconds, microseconds, milliseconds, minutes, hours, weeks)` with
//!   ints or floats (CPython's rounding, half to even), `days`/`seconds`/`microseconds`,
//!   `total_seconds()`, and its arithmetic: `+ - * / // %`, unary `-`, `+`, `abs()`.
//! - `timezone.utc` and `timezone(timedelta)`: fixed offsets, whole seconds.
//! - datetime ± timedelta, date ± timedelta (its days), datetime − datetime and date −
//!   date (a timedelta), comparisons (naive with aware: `==` is false and `<` raises
//!   CPython's `TypeError`), sorting, dict keys, `isinstance` (a datetime is a date), and
//!   `json.dumps`' `TypeError` (`Object of type datetime is not JSON serializable`).
//!
//! Day and month arithmetic counts whole days on the proleptic Gregorian calendar in
//! integers, as CPython does; no float takes part except where CPython's does.
//!
//! **Refused** (outside the subset, at the token, never guessed): the `time` and
//! `tzinfo` classes and `time`'s other functions; named timezones, `zoneinfo` and offsets
//! with fractions of a second; `fold=1`; `astimezone()` without a timezone (CPython
//! answers with a zone named after the machine's); `fromisoformat` forms other than
//! `YYYY-MM-DD[*HH[:MM[:SS[.ffffff]]]][Z|±HH[:MM[:SS]]]`, `*` being any one character
//! (a string CPython certainly rejects, such as one not starting with four digits,
//! raises its `ValueError`); `strftime` directives other than `%Y %m %d %H %M %S %f %z
//! %Z %a %A %b %B %j %y %I %p %w %u %%`, and `%Y` before the year 1000 (their output
//! depends on the platform or the locale); `strptime`, `combine`, `isocalendar`,
//! `timetuple` and the other methods.
//!
//! Known difference: `is` between two equal datetime values is true (they are values
//! here, not objects); CPython's answer depends on whether they are the same object.

use super::ast::{At, BinOp, UnOp};
use super::eval::{Interp, R, plural};
use super::runtime::{Builtin, RunValue, StdModule};

/// The run's fixed clock: 2026-12-02T09:00:00 UTC, in seconds since the Unix epoch.
pub(crate) const FIXED_EPOCH: i64 = 1_796_202_000;

/// [`FIXED_EPOCH`] as an HTTP date.
const HTTP_DATE: [u8; 29] = http_date(FIXED_EPOCH);

/// The `Date` every response of a project's handler carries: the run's fixed clock,
/// [`FIXED_EPOCH`], as an HTTP date (`Wed, 02 Dec 2026 09:00:00 GMT`).
pub const FIXED_DATE: &str = match std::str::from_utf8(&HTTP_DATE) {
    Ok(text) => text,
    Err(_) => "",
};

/// The day number of 1970-01-01 (day 0 is 0001-01-01).
const EPOCH_DAY: i64 = 719_162;

/// The day number of 9999-12-31.
const MAX_DAY: i64 = 3_652_058;

const MICROS_PER_SECOND: i64 = 1_000_000;
const MICROS_PER_DAY: i64 = 86_400 * MICROS_PER_SECOND;

/// The largest `timedelta.days`.
const MAX_DELTA_DAYS: i64 = 999_999_999;

/// Days before each month (index 1 to 12) in a year that is not a leap year.
const DAYS_BEFORE_MONTH: [i64; 13] = [0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

/// Days in each month (index 1 to 12) in a year that is not a leap year.
const DAYS_IN_MONTH: [i64; 13] = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const DAY_NAMES: [&str; 7] =
    ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

const MONTH_NAMES: [&str; 13] = [
    "",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The names `datetime`'s classes have in CPython (other than dunders): the ones the
/// subset lacks are refused rather than reported missing.
const DATETIME_NAMES: [&str; 40] = [
    "astimezone",
    "combine",
    "ctime",
    "date",
    "day",
    "dst",
    "fold",
    "fromisocalendar",
    "fromisoformat",
    "fromordinal",
    "fromtimestamp",
    "hour",
    "isocalendar",
    "isoformat",
    "isoweekday",
    "max",
    "microsecond",
    "min",
    "minute",
    "month",
    "now",
    "replace",
    "resolution",
    "second",
    "strftime",
    "strptime",
    "time",
    "timestamp",
    "timetuple",
    "timetz",
    "today",
    "toordinal",
    "tzinfo",
    "tzname",
    "utcfromtimestamp",
    "utcnow",
    "utcoffset",
    "utctimetuple",
    "weekday",
    "year",
];
const DATE_NAMES: [&str; 20] = [
    "ctime",
    "day",
    "fromisocalendar",
    "fromisoformat",
    "fromordinal",
    "fromtimestamp",
    "isocalendar",
    "isoformat",
    "isoweekday",
    "max",
    "min",
    "month",
    "replace",
    "resolution",
    "strftime",
    "timetuple",
    "today",
    "toordinal",
    "weekday",
    "year",
];
const TIMEDELTA_NAMES: [&str; 7] =
    ["days", "max", "microseconds", "min", "resolution", "seconds", "total_seconds"];
const TIMEZONE_NAMES: [&str; 7] = ["dst", "fromutc", "max", "min", "tzname", "utc", "utcoffset"];

/// The classes of `datetime` the subset has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    DateTime,
    Date,
    Delta,
    Zone,
}

impl Kind {
    /// `__name__`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::DateTime => "datetime",
            Kind::Date => "date",
            Kind::Delta => "timedelta",
            Kind::Zone => "timezone",
        }
    }

    /// The C type's name, as CPython's messages print it: `datetime.datetime`.
    pub(crate) fn type_name(self) -> &'static str {
        match self {
            Kind::DateTime => "datetime.datetime",
            Kind::Date => "datetime.date",
            Kind::Delta => "datetime.timedelta",
            Kind::Zone => "datetime.timezone",
        }
    }

    /// What the class has in CPython.
    fn names(self) -> &'static [&'static str] {
        match self {
            Kind::DateTime => &DATETIME_NAMES,
            Kind::Date => &DATE_NAMES,
            Kind::Delta => &TIMEDELTA_NAMES,
            Kind::Zone => &TIMEZONE_NAMES,
        }
    }
}

/// A value of `datetime`: small and immutable, so it is held by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Temporal {
    DateTime(DateTime),
    /// A `date`: its day number (0 is 0001-01-01, `toordinal() - 1`).
    Date(i32),
    Delta(Delta),
    /// A `timezone`: its offset east of UTC in whole seconds (`timezone.utc` is 0).
    Zone(i32),
}

/// A `datetime`: naive, or aware with a fixed offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DateTime {
    /// The day number of its date.
    day: i32,
    /// Seconds since midnight.
    second: u32,
    microsecond: u32,
    /// The offset of its `timezone` in seconds, `None` when naive.
    zone: Option<i32>,
}

/// A `timedelta`, normalized as CPython keeps it: `0 <= seconds < 86400` and
/// `0 <= microseconds < 1000000`, `days` within ±999999999.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Delta {
    days: i32,
    seconds: i32,
    microseconds: i32,
}

impl Temporal {
    /// Its class.
    pub(crate) fn kind(self) -> Kind {
        match self {
            Temporal::DateTime(_) => Kind::DateTime,
            Temporal::Date(_) => Kind::Date,
            Temporal::Delta(_) => Kind::Delta,
            Temporal::Zone(_) => Kind::Zone,
        }
    }

    /// Python's truth: only a zero `timedelta` is false.
    pub(crate) fn truthy(self) -> bool {
        !matches!(self, Temporal::Delta(d) if d.total() == 0)
    }

    /// `repr()`.
    pub(crate) fn repr(self) -> String {
        match self {
            Temporal::DateTime(dt) => {
                let (year, month, day) = civil(i64::from(dt.day));
                let (hour, minute, second) = clock(dt.second);
                let mut out = format!("datetime.datetime({year}, {month}, {day}, {hour}, {minute}");
                if dt.microsecond != 0 {
                    out.push_str(&format!(", {second}, {}", dt.microsecond));
                } else if second != 0 {
                    out.push_str(&format!(", {second}"));
                }
                if let Some(offset) = dt.zone {
                    out.push_str(&format!(", tzinfo={}", Temporal::Zone(offset).repr()));
                }
                out.push(')');
                out
            }
            Temporal::Date(day) => {
                let (year, month, day) = civil(i64::from(day));
                format!("datetime.date({year}, {month}, {day})")
            }
            Temporal::Delta(delta) => {
                let mut parts = Vec::new();
                if delta.days != 0 {
                    parts.push(format!("days={}", delta.days));
                }
                if delta.seconds != 0 {
                    parts.push(format!("seconds={}", delta.seconds));
                }
                if delta.microseconds != 0 {
                    parts.push(format!("microseconds={}", delta.microseconds));
                }
                if parts.is_empty() {
                    parts.push("0".to_owned());
                }
                format!("datetime.timedelta({})", parts.join(", "))
            }
            Temporal::Zone(0) => "datetime.timezone.utc".to_owned(),
            Temporal::Zone(offset) => {
                let delta = Delta::from_total(i128::from(offset) * 1_000_000).unwrap_or_default();
                format!("datetime.timezone({})", Temporal::Delta(delta).repr())
            }
        }
    }

    /// `str()`.
    pub(crate) fn text(self) -> String {
        match self {
            Temporal::DateTime(dt) => dt.isoformat(' ', Timespec::Auto),
            Temporal::Date(day) => date_text(i64::from(day)),
            Temporal::Delta(delta) => {
                let (hour, minute, second) = clock(u32::try_from(delta.seconds).unwrap_or(0));
                let mut out = String::new();
                if delta.days != 0 {
                    let s = if delta.days.abs() == 1 { "" } else { "s" };
                    out.push_str(&format!("{} day{s}, ", delta.days));
                }
                out.push_str(&format!("{hour}:{minute:02}:{second:02}"));
                if delta.microseconds != 0 {
                    out.push_str(&format!(".{:06}", delta.microseconds));
                }
                out
            }
            Temporal::Zone(offset) => zone_name(offset),
        }
    }
}

/// Why a `timedelta` cannot be made: CPython's `OverflowError` message.
fn delta_overflow(days: i128) -> String {
    match i32::try_from(days) {
        Ok(days) => format!("days={days}; must have magnitude <= {MAX_DELTA_DAYS}"),
        Err(_) => "Python int too large to convert to C int".to_owned(),
    }
}

impl Delta {
    /// Its length in microseconds.
    fn total(self) -> i128 {
        (i128::from(self.days) * 86_400 + i128::from(self.seconds)) * 1_000_000
            + i128::from(self.microseconds)
    }

    /// The `timedelta` of `micros` microseconds, or CPython's `OverflowError` message.
    fn from_total(micros: i128) -> Result<Delta, String> {
        let days = micros.div_euclid(i128::from(MICROS_PER_DAY));
        let rest = micros.rem_euclid(i128::from(MICROS_PER_DAY));
        if days.abs() > i128::from(MAX_DELTA_DAYS) {
            return Err(delta_overflow(days));
        }
        Ok(Delta {
            days: i32::try_from(days).unwrap_or(0),
            seconds: i32::try_from(rest / 1_000_000).unwrap_or(0),
            microseconds: i32::try_from(rest % 1_000_000).unwrap_or(0),
        })
    }
}

impl DateTime {
    /// Microseconds since 0001-01-01T00:00 on its own wall clock.
    fn local(self) -> i64 {
        (i64::from(self.day) * 86_400 + i64::from(self.second)) * MICROS_PER_SECOND
            + i64::from(self.microsecond)
    }

    /// Microseconds since 0001-01-01T00:00 UTC (its wall clock when naive).
    fn utc(self) -> i64 {
        self.local() - i64::from(self.zone.unwrap_or(0)) * MICROS_PER_SECOND
    }

    /// The datetime `micros` microseconds after 0001-01-01T00:00 on the wall clock of
    /// `zone`, if its year is within 1 to 9999.
    fn at(micros: i64, zone: Option<i32>) -> Option<DateTime> {
        let day = micros.div_euclid(MICROS_PER_DAY);
        if !(0..=MAX_DAY).contains(&day) {
            return None;
        }
        let rest = micros.rem_euclid(MICROS_PER_DAY);
        Some(DateTime {
            day: i32::try_from(day).ok()?,
            second: u32::try_from(rest / MICROS_PER_SECOND).ok()?,
            microsecond: u32::try_from(rest % MICROS_PER_SECOND).ok()?,
            zone,
        })
    }

    /// `isoformat(sep, timespec)`.
    fn isoformat(self, sep: char, timespec: Timespec) -> String {
        let mut out = date_text(i64::from(self.day));
        out.push(sep);
        let (hour, minute, second) = clock(self.second);
        let micro = self.microsecond;
        let timespec = match timespec {
            Timespec::Auto if micro != 0 => Timespec::Microseconds,
            Timespec::Auto => Timespec::Seconds,
            other => other,
        };
        out.push_str(&match timespec {
            Timespec::Hours => format!("{hour:02}"),
            Timespec::Minutes => format!("{hour:02}:{minute:02}"),
            Timespec::Milliseconds => {
                format!("{hour:02}:{minute:02}:{second:02}.{:03}", micro / 1000)
            }
            Timespec::Microseconds => format!("{hour:02}:{minute:02}:{second:02}.{micro:06}"),
            Timespec::Seconds | Timespec::Auto => format!("{hour:02}:{minute:02}:{second:02}"),
        });
        if let Some(offset) = self.zone {
            out.push_str(&offset_text(offset, ":"));
        }
        out
    }
}

/// `isoformat`'s `timespec`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Timespec {
    Auto,
    Hours,
    Minutes,
    Seconds,
    Milliseconds,
    Microseconds,
}

/// `(hour, minute, second)` of seconds since midnight.
fn clock(seconds: u32) -> (u32, u32, u32) {
    (seconds / 3600, seconds / 60 % 60, seconds % 60)
}

/// `YYYY-MM-DD`.
fn date_text(day: i64) -> String {
    let (year, month, day) = civil(day);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `+HH:MM` (with `:SS` when there are seconds) of an offset, `separator` between the
/// parts (`""` for `%z`).
fn offset_text(offset: i32, separator: &str) -> String {
    let sign = if offset < 0 { '-' } else { '+' };
    let offset = offset.unsigned_abs();
    let mut out = format!("{sign}{:02}{separator}{:02}", offset / 3600, offset / 60 % 60);
    if !offset.is_multiple_of(60) {
        out.push_str(&format!("{separator}{:02}", offset % 60));
    }
    out
}

/// A timezone's `tzname()`: `UTC`, or `UTC+HH:MM`.
fn zone_name(offset: i32) -> String {
    if offset == 0 { "UTC".to_owned() } else { format!("UTC{}", offset_text(offset, ":")) }
}

/// Whether `year` is a leap year.
const fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days in `month` (1 to 12) of `year`.
fn days_in_month(year: i64, month: i64) -> i64 {
    let index = usize::try_from(month).unwrap_or(0).min(12);
    DAYS_IN_MONTH[index] + i64::from(month == 2 && is_leap(year))
}

/// The day number (0 is 0001-01-01) of a valid date.
fn day_number(year: i64, month: i64, day: i64) -> i64 {
    let y = year - 1;
    let index = usize::try_from(month).unwrap_or(0).min(12);
    let before = DAYS_BEFORE_MONTH[index] + i64::from(month > 2 && is_leap(year));
    y * 365 + y / 4 - y / 100 + y / 400 + before + day - 1
}

/// The `(year, month, day)` of day number `n` (0 is 0001-01-01) on the proleptic
/// Gregorian calendar, for any `n`: CPython's `ord_to_ymd`, in whole days.
const fn civil(n: i64) -> (i64, i64, i64) {
    let n400 = n.div_euclid(146_097);
    let mut n = n.rem_euclid(146_097);
    let mut year = n400 * 400 + 1;
    let n100 = n / 36_524;
    n %= 36_524;
    let n4 = n / 1_461;
    n %= 1_461;
    let n1 = n / 365;
    n %= 365;
    year += n100 * 100 + n4 * 4 + n1;
    if n1 == 4 || n100 == 4 {
        return (year - 1, 12, 31);
    }
    let leap = n1 == 3 && (n4 != 24 || n100 == 3);
    let mut month = ((n + 50) >> 5) as usize;
    let mut preceding = DAYS_BEFORE_MONTH[month] + (month > 2 && leap) as i64;
    if preceding > n {
        month -= 1;
        preceding -= DAYS_IN_MONTH[month] + (month == 2 && leap) as i64;
    }
    (year, month as i64, n - preceding + 1)
}

/// An HTTP date (`Wed, 02 Dec 2026 09:00:00 GMT`) of seconds since the Unix epoch.
const fn http_date(epoch: i64) -> [u8; 29] {
    const DAYS: [&[u8; 3]; 7] = [b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun"];
    const MONTHS: [&[u8; 3]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let day = EPOCH_DAY + epoch.div_euclid(86_400);
    let seconds = epoch.rem_euclid(86_400);
    let (year, month, date) = civil(day);
    let mut out = *b"Mon, 00 Jan 0000 00:00:00 GMT";
    let name = DAYS[day.rem_euclid(7) as usize];
    let month = MONTHS[(month - 1) as usize];
    let mut i = 0;
    while i < 3 {
        out[i] = name[i];
        out[8 + i] = month[i];
        i += 1;
    }
    let numbers = [(5, date, 2), (12, year, 4), (17, seconds / 3600, 2)];
    let more = [(20, seconds / 60 % 60, 2), (23, seconds % 60, 2)];
    let mut k = 0;
    while k < 5 {
        let (at, mut value, width) = if k < 3 { numbers[k] } else { more[k - 3] };
        let mut j = width;
        while j > 0 {
            j -= 1;
            out[at + j] = b'0' + (value % 10) as u8;
            value /= 10;
        }
        k += 1;
    }
    out
}

/// `n / d` as Python's true division of two ints gives it: correctly rounded.
fn true_divide(n: i128, d: i128) -> f64 {
    if n == 0 || d == 0 {
        // Python's `0 / -d` is `-0.0`.
        return if d < 0 { -0.0 } else { 0.0 };
    }
    let (a, b) = (n.unsigned_abs(), d.unsigned_abs());
    // Scaled so the quotient has well over 53 bits (the divisor is below 2**68); a
    // remainder sets the lowest bit, so rounding to 53 bits sees the exact value's side.
    let shift = a.leading_zeros().saturating_sub(1);
    let scaled = a << shift;
    let sticky = u128::from(scaled % b != 0);
    #[allow(clippy::cast_precision_loss)]
    let quotient = ((scaled / b) | sticky) as f64;
    let value = quotient * 2f64.powi(-i32::try_from(shift).unwrap_or(0));
    if (n < 0) != (d < 0) { -value } else { value }
}

/// `x / d` rounded half to even (CPython's `divide_nearest`); `d` is not zero.
fn divide_nearest(x: i128, d: i128) -> i128 {
    let (q, r) = python_divmod(x, d);
    // `r` has the sign of `d`: round up past the half, and at it to an even quotient.
    let (twice, whole) = (2 * r.abs(), d.abs());
    if twice > whole || (twice == whole && q % 2 != 0) { q + 1 } else { q }
}

/// Python's `divmod` of ints: the floor quotient and a remainder with the divisor's sign
/// (`i128::MIN // -1` saturates: no `timedelta` is that long anyway).
fn python_divmod(x: i128, d: i128) -> (i128, i128) {
    let (Some(q), Some(r)) = (x.checked_div(d), x.checked_rem(d)) else {
        return (i128::MAX, 0);
    };
    if r != 0 && ((r < 0) != (d < 0)) { (q - 1, r + d) } else { (q, r) }
}

/// A float as `as_integer_ratio()` gives it, with a power of two as the denominator:
/// `(numerator, log2(denominator))`; the numerator `None` when it does not fit.
fn float_ratio(x: f64) -> (Option<i128>, u32) {
    let bits = x.to_bits();
    let exponent = i32::try_from((bits >> 52) & 0x7ff).unwrap_or(0);
    let fraction = i128::from(bits & ((1 << 52) - 1));
    let (mut mantissa, mut exponent) =
        if exponent == 0 { (fraction, -1074) } else { (fraction | (1 << 52), exponent - 1075) };
    if mantissa == 0 {
        return (Some(0), 0);
    }
    while mantissa % 2 == 0 && exponent < 0 {
        mantissa /= 2;
        exponent += 1;
    }
    let mantissa = if x < 0.0 { -mantissa } else { mantissa };
    if exponent >= 0 {
        let shift = u32::try_from(exponent).unwrap_or(u32::MAX);
        let value = if shift < 70 { mantissa.checked_mul(1 << shift) } else { None };
        return (value, 0);
    }
    (Some(mantissa), exponent.unsigned_abs())
}

/// How a C function of `datetime` reads its arguments: CPython's
/// `PyArg_ParseTupleAndKeywords`, with its messages.
struct Params {
    /// The function's name in messages (`replace()`), or `None` for "function".
    name: Option<&'static str>,
    names: &'static [&'static str],
    kinds: &'static [Conv],
    required: usize,
    /// How many may be passed by position; the rest are keyword-only.
    positional: usize,
}

/// What an argument must be.
#[derive(Clone, Copy)]
enum Conv {
    /// A C `int`.
    Int,
    /// Anything.
    Any,
    /// A `str` of one character.
    Char,
    /// A `str`.
    Str,
}

const DATETIME_PARAMS: Params = Params {
    name: None,
    names: &["year", "month", "day", "hour", "minute", "second", "microsecond", "tzinfo", "fold"],
    kinds: &[
        Conv::Int,
        Conv::Int,
        Conv::Int,
        Conv::Int,
        Conv::Int,
        Conv::Int,
        Conv::Int,
        Conv::Any,
        Conv::Int,
    ],
    required: 3,
    positional: 8,
};

const DATE_PARAMS: Params = Params {
    name: None,
    names: &["year", "month", "day"],
    kinds: &[Conv::Int, Conv::Int, Conv::Int],
    required: 3,
    positional: 3,
};

const TIMEDELTA_PARAMS: Params = Params {
    name: Some("__new__"),
    names: &["days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks"],
    kinds: &[Conv::Any; 7],
    required: 0,
    positional: 7,
};

impl Interp<'_, '_> {
    /// Binds the arguments of a C function as `PyArg_ParseTupleAndKeywords` does, in its
    /// order: each given argument is checked as it is reached.
    fn parse_args(
        &self,
        params: &Params,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<Vec<Option<RunValue>>> {
        let (fname, paren) = params.name.map_or(("function", ""), |n| (n, "()"));
        let (nargs, len) = (args.len(), params.names.len());
        let total = nargs + kwargs.len();
        if total > len {
            let keyword = if nargs == 0 { "keyword " } else { "" };
            let message = format!(
                "{fname}{paren} takes at most {len} {keyword}argument{} ({total} given)",
                plural(len)
            );
            return Err(self.raise("TypeError", message, at));
        }
        let mut keywords: Vec<Option<(String, RunValue)>> = kwargs.into_iter().map(Some).collect();
        let mut left = keywords.len();
        let mut args = args.into_iter();
        let mut slots: Vec<Option<RunValue>> = vec![None; len];
        for (i, name) in params.names.iter().enumerate() {
            if i == params.positional && nargs > params.positional {
                let bound = if params.required < params.positional { "at most" } else { "exactly" };
                let message = format!(
                    "{fname}{paren} takes {bound} {} positional argument{} ({nargs} given)",
                    params.positional,
                    plural(params.positional)
                );
                return Err(self.raise("TypeError", message, at));
            }
            let current = if i < nargs {
                args.next()
            } else if left > 0 {
                let found = keywords
                    .iter_mut()
                    .find(|k| k.as_ref().is_some_and(|(key, _)| key == name))
                    .and_then(Option::take);
                if found.is_some() {
                    left -= 1;
                }
                found.map(|(_, value)| value)
            } else {
                None
            };
            match current {
                Some(value) => {
                    let kind = params.kinds.get(i).copied().unwrap_or(Conv::Any);
                    self.convert(kind, fname, i + 1, &value, at)?;
                    if let Some(slot) = slots.get_mut(i) {
                        *slot = Some(value);
                    }
                }
                None if i < params.required => {
                    let message = format!(
                        "{fname}{paren} missing required argument '{name}' (pos {})",
                        i + 1
                    );
                    return Err(self.raise("TypeError", message, at));
                }
                None if left == 0 => break,
                None => {}
            }
        }
        if left > 0 {
            let keywords: Vec<(String, RunValue)> = keywords.into_iter().flatten().collect();
            for (i, name) in params.names.iter().enumerate().take(nargs) {
                if keywords.iter().any(|(key, _)| key == name) {
                    let message = format!(
                        "argument for {fname}{paren} given by name ('{name}') and position ({})",
                        i + 1
                    );
                    return Err(self.raise("TypeError", message, at));
                }
            }
            if let Some((key, _)) = keywords.iter().find(|(k, _)| !params.names.contains(&&**k)) {
                let function = params.name.map_or("this function".to_owned(), |n| format!("{n}()"));
                let message = format!("'{key}' is an invalid keyword argument for {function}");
                return Err(self.raise("TypeError", message, at));
            }
        }
        Ok(slots)
    }

    /// Checks one argument as `PyArg_ParseTupleAndKeywords`' format unit would.
    fn convert(&self, kind: Conv, fname: &str, index: usize, value: &RunValue, at: At) -> R<()> {
        if let RunValue::Foreign(what) = value {
            return Err(self.unsupported(&format!("using {what}"), at));
        }
        let type_name = || match value {
            RunValue::None => "None".to_owned(),
            other => self.type_name(other),
        };
        match kind {
            Conv::Any => Ok(()),
            Conv::Int => {
                let Some(n) = value.as_int() else {
                    let message = format!(
                        "'{}' object cannot be interpreted as an integer",
                        self.type_name(value)
                    );
                    return Err(self.raise("TypeError", message, at));
                };
                if n > i64::from(i32::MAX) {
                    return Err(self.raise(
                        "OverflowError",
                        "signed integer is greater than maximum",
                        at,
                    ));
                }
                if n < i64::from(i32::MIN) {
                    return Err(self.raise(
                        "OverflowError",
                        "signed integer is less than minimum",
                        at,
                    ));
                }
                Ok(())
            }
            Conv::Char => match value {
                RunValue::Str(s) if s.chars().count() == 1 => Ok(()),
                _ => {
                    let message = format!(
                        "{fname}() argument {index} must be a unicode character, not {}",
                        type_name()
                    );
                    Err(self.raise("TypeError", message, at))
                }
            },
            Conv::Str => match value {
                RunValue::Str(_) => Ok(()),
                _ => {
                    let message =
                        format!("{fname}() argument {index} must be str, not {}", type_name());
                    Err(self.raise("TypeError", message, at))
                }
            },
        }
    }

    /// Refuses any argument to a method that takes none (`METH_NOARGS`).
    fn no_args(
        &self,
        qualname: &str,
        args: &[RunValue],
        kwargs: &[(String, RunValue)],
        at: At,
    ) -> R<()> {
        if !kwargs.is_empty() {
            let message = format!("{qualname}() takes no keyword arguments");
            return Err(self.raise("TypeError", message, at));
        }
        if !args.is_empty() {
            let message = format!("{qualname}() takes no arguments ({} given)", args.len());
            return Err(self.raise("TypeError", message, at));
        }
        Ok(())
    }

    /// The one argument of a method that takes exactly one (`METH_O`).
    fn one_arg(
        &self,
        qualname: &str,
        args: Vec<RunValue>,
        kwargs: &[(String, RunValue)],
        at: At,
    ) -> R<RunValue> {
        if !kwargs.is_empty() {
            let message = format!("{qualname}() takes no keyword arguments");
            return Err(self.raise("TypeError", message, at));
        }
        let count = args.len();
        match <[RunValue; 1]>::try_from(args) {
            Ok([value]) => Ok(value),
            Err(_) => {
                let message = format!("{qualname}() takes exactly one argument ({count} given)");
                Err(self.raise("TypeError", message, at))
            }
        }
    }

    /// An int argument a check already passed.
    fn field_of(value: Option<&RunValue>, default: i64) -> i64 {
        value.and_then(RunValue::as_int).unwrap_or(default)
    }

    /// A `tzinfo` argument: `None` or a `timezone`.
    fn tzinfo_arg(&self, value: Option<&RunValue>, at: At) -> R<Option<i32>> {
        match value {
            None | Some(RunValue::None) => Ok(None),
            Some(RunValue::Temporal(Temporal::Zone(offset))) => Ok(Some(*offset)),
            Some(RunValue::Foreign(what)) => {
                Err(self.unsupported(&format!("a tzinfo of {what}"), at))
            }
            Some(other) => {
                let message = format!(
                    "tzinfo argument must be None or of a tzinfo subclass, not type '{}'",
                    self.type_name(other)
                );
                Err(self.raise("TypeError", message, at))
            }
        }
    }

    /// The day number of `year-month-day`, or CPython's `ValueError`.
    fn checked_day(&self, year: i64, month: i64, day: i64, at: At) -> R<i32> {
        if !(1..=9999).contains(&year) {
            return Err(self.raise("ValueError", format!("year {year} is out of range"), at));
        }
        if !(1..=12).contains(&month) {
            return Err(self.raise("ValueError", "month must be in 1..12", at));
        }
        if day < 1 || day > days_in_month(year, month) {
            return Err(self.raise("ValueError", "day is out of range for month", at));
        }
        Ok(i32::try_from(day_number(year, month, day)).unwrap_or(0))
    }

    /// A datetime from its fields, or CPython's `ValueError`.
    fn checked_datetime(&self, fields: [i64; 7], zone: Option<i32>, at: At) -> R<DateTime> {
        let [year, month, day, hour, minute, second, micro] = fields;
        let day = self.checked_day(year, month, day, at)?;
        for (value, name, top) in
            [(hour, "hour", 23), (minute, "minute", 59), (second, "second", 59)]
        {
            if !(0..=top).contains(&value) {
                let message = format!("{name} must be in 0..{top}");
                return Err(self.raise("ValueError", message, at));
            }
        }
        if !(0..=999_999).contains(&micro) {
            return Err(self.raise("ValueError", "microsecond must be in 0..999999", at));
        }
        Ok(DateTime {
            day,
            second: u32::try_from(hour * 3600 + minute * 60 + second).unwrap_or(0),
            microsecond: u32::try_from(micro).unwrap_or(0),
            zone,
        })
    }

    fn out_of_range(&self, at: At) -> super::eval::Signal {
        self.raise("OverflowError", "date value out of range", at)
    }

    /// A `timedelta` of `micros` microseconds, or CPython's `OverflowError`.
    fn delta(&self, micros: i128, at: At) -> R<RunValue> {
        match Delta::from_total(micros) {
            Ok(delta) => Ok(RunValue::Temporal(Temporal::Delta(delta))),
            Err(message) => Err(self.raise("OverflowError", message, at)),
        }
    }

    // ----- the modules -----

    /// `datetime.<name>` and `time.<name>`.
    pub(crate) fn datetime_module_attr(
        &mut self,
        module: StdModule,
        name: &str,
        at: At,
    ) -> R<RunValue> {
        if module == StdModule::Time {
            return match name {
                "time" => Ok(RunValue::Builtin(Builtin::TimeTime)),
                "sleep" => Ok(RunValue::Builtin(Builtin::TimeSleep)),
                _ => Err(self.unsupported(&format!("`time.{name}`"), at)),
            };
        }
        match name {
            "datetime" => Ok(RunValue::TemporalClass(Kind::DateTime)),
            "date" => Ok(RunValue::TemporalClass(Kind::Date)),
            "timedelta" => Ok(RunValue::TemporalClass(Kind::Delta)),
            "timezone" => Ok(RunValue::TemporalClass(Kind::Zone)),
            "UTC" => Ok(RunValue::Temporal(Temporal::Zone(0))),
            "MINYEAR" => Ok(RunValue::Int(1)),
            "MAXYEAR" => Ok(RunValue::Int(9999)),
            _ if matches!(name, "time" | "tzinfo" | "datetime_CAPI" | "sys")
                || name.starts_with("__") =>
            {
                Err(self.unsupported(&format!("`datetime.{name}`"), at))
            }
            _ => {
                let message = format!("module 'datetime' has no attribute '{name}'");
                Err(self.raise("AttributeError", message, at))
            }
        }
    }

    /// `time.time()` and `time.sleep(seconds)`.
    pub(crate) fn call_time(
        &mut self,
        builtin: Builtin,
        args: Vec<RunValue>,
        kwargs: &[(String, RunValue)],
        at: At,
    ) -> R<RunValue> {
        if builtin == Builtin::TimeTime {
            self.no_args("time.time", &args, kwargs, at)?;
            #[allow(clippy::cast_precision_loss)]
            return Ok(RunValue::Float(FIXED_EPOCH as f64));
        }
        let seconds = self.one_arg("time.sleep", args, kwargs, at)?;
        let negative = match &seconds {
            RunValue::Float(x) if x.is_nan() => {
                return Err(self.raise("ValueError", "Invalid value NaN (not a number)", at));
            }
            RunValue::Float(x) => *x < 0.0,
            other => match other.as_int() {
                Some(n) => n < 0,
                None => {
                    let message = format!(
                        "'{}' object cannot be interpreted as an integer",
                        self.type_name(other)
                    );
                    return Err(self.raise("TypeError", message, at));
                }
            },
        };
        if negative {
            return Err(self.raise("ValueError", "sleep length must be non-negative", at));
        }
        Ok(RunValue::None)
    }

    // ----- the classes -----

    /// `cls.<name>` of a class of `datetime`.
    pub(crate) fn temporal_class_attr(&mut self, kind: Kind, name: &str, at: At) -> R<RunValue> {
        match (kind, name) {
            (_, "__name__" | "__qualname__") => Ok(RunValue::str(kind.name())),
            (Kind::Zone, "utc") => Ok(RunValue::Temporal(Temporal::Zone(0))),
            (
                Kind::DateTime,
                "now" | "utcnow" | "today" | "fromisoformat" | "fromtimestamp" | "utcfromtimestamp",
            )
            | (Kind::Date, "today" | "fromisoformat" | "fromtimestamp") => {
                Ok(RunValue::bound(RunValue::TemporalClass(kind), name))
            }
            _ if kind.names().contains(&name) || name.starts_with("__") => {
                Err(self.unsupported(&format!("`{}.{name}`", kind.type_name()), at))
            }
            _ => {
                let message =
                    format!("type object '{}' has no attribute '{name}'", kind.type_name());
                Err(self.raise("AttributeError", message, at))
            }
        }
    }

    /// Calls a class of `datetime`: `datetime(…)`, `date(…)`, `timedelta(…)`,
    /// `timezone(…)`.
    pub(crate) fn construct_temporal(
        &mut self,
        kind: Kind,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        match kind {
            Kind::DateTime => {
                let slots = self.parse_args(&DATETIME_PARAMS, args, kwargs, at)?;
                let field = |i: usize, default: i64| {
                    Self::field_of(slots.get(i).and_then(Option::as_ref), default)
                };
                let fields = [
                    field(0, 1),
                    field(1, 1),
                    field(2, 1),
                    field(3, 0),
                    field(4, 0),
                    field(5, 0),
                    field(6, 0),
                ];
                // CPython's order: the fields, `fold`, then `tzinfo`.
                let value = self.checked_datetime(fields, None, at)?;
                let fold = field(8, 0);
                if !(0..=1).contains(&fold) {
                    return Err(self.raise("ValueError", "fold must be either 0 or 1", at));
                }
                let zone = self.tzinfo_arg(slots.get(7).and_then(Option::as_ref), at)?;
                if fold == 1 {
                    return Err(self.unsupported("`fold=1`", at));
                }
                Ok(RunValue::Temporal(Temporal::DateTime(DateTime { zone, ..value })))
            }
            Kind::Date => {
                let slots = self.parse_args(&DATE_PARAMS, args, kwargs, at)?;
                let field = |i: usize| Self::field_of(slots.get(i).and_then(Option::as_ref), 1);
                Ok(RunValue::Temporal(Temporal::Date(self.checked_day(
                    field(0),
                    field(1),
                    field(2),
                    at,
                )?)))
            }
            Kind::Delta => self.new_timedelta(args, kwargs, at),
            Kind::Zone => {
                let params = Params {
                    name: Some("timezone"),
                    names: &["offset", "name"],
                    kinds: &[Conv::Any, Conv::Str],
                    required: 1,
                    positional: 2,
                };
                let slots = self.parse_args(&params, args, kwargs, at)?;
                let offset = match slots.first().and_then(Option::as_ref) {
                    Some(RunValue::Temporal(Temporal::Delta(delta))) => *delta,
                    other => {
                        let kind = other.map_or_else(|| "None".to_owned(), |v| self.type_name(v));
                        let message =
                            format!("timezone() argument 1 must be datetime.timedelta, not {kind}");
                        return Err(self.raise("TypeError", message, at));
                    }
                };
                if slots.get(1).is_some_and(Option::is_some) {
                    return Err(self.unsupported("a timezone with a name", at));
                }
                Ok(RunValue::Temporal(Temporal::Zone(self.zone_offset(offset, at)?)))
            }
        }
    }

    /// The offset of `timezone(delta)` in seconds, or CPython's `ValueError`.
    fn zone_offset(&self, delta: Delta, at: At) -> R<i32> {
        let total = delta.total();
        if total.abs() >= i128::from(MICROS_PER_DAY) {
            let message = format!(
                "offset must be a timedelta strictly between -timedelta(hours=24) and \
                 timedelta(hours=24), not {}.",
                Temporal::Delta(delta).repr()
            );
            return Err(self.raise("ValueError", message, at));
        }
        if total % 1_000_000 != 0 {
            return Err(self.unsupported("a timezone offset with a fraction of a second", at));
        }
        Ok(i32::try_from(total / 1_000_000).unwrap_or(0))
    }

    /// `timedelta(days, seconds, microseconds, milliseconds, minutes, hours, weeks)`,
    /// summed as CPython's `delta_new` does: ints exactly, floats' fractions gathered and
    /// rounded half to even at the end.
    fn new_timedelta(
        &mut self,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let slots = self.parse_args(&TIMEDELTA_PARAMS, args, kwargs, at)?;
        // CPython's order: microseconds, milliseconds, seconds, minutes, hours, days, weeks.
        const ORDER: [(usize, &str, i128); 7] = [
            (2, "microseconds", 1),
            (3, "milliseconds", 1_000),
            (1, "seconds", 1_000_000),
            (4, "minutes", 60_000_000),
            (5, "hours", 3_600_000_000),
            (0, "days", 86_400_000_000),
            (6, "weeks", 604_800_000_000),
        ];
        let mut sum: i128 = 0;
        let mut leftover = 0.0_f64;
        // Components beyond an i128 of microseconds, and how large the others are: one
        // much larger than all the rest overflows a timedelta for certain; components
        // that might cancel out are not worked out.
        let (mut huge, mut others, mut unsure) = (Vec::new(), 0.0_f64, false);
        for (index, tag, factor) in ORDER {
            let Some(value) = slots.get(index).and_then(Option::as_ref) else { continue };
            match value {
                RunValue::Float(x) => {
                    self.finite_for_int(*x, at)?;
                    let whole = x.trunc();
                    let fraction = x - whole;
                    #[allow(clippy::cast_precision_loss)]
                    let magnitude = whole.abs() * factor as f64;
                    let Some(part) = float_to_int(whole).and_then(|w| w.checked_mul(factor)) else {
                        huge.push(magnitude);
                        continue;
                    };
                    others += magnitude;
                    sum = sum.checked_add(part).unwrap_or_else(|| {
                        unsure = true;
                        0
                    });
                    if fraction != 0.0 {
                        #[allow(clippy::cast_precision_loss)]
                        let scaled = factor as f64 * fraction;
                        let whole = scaled.trunc();
                        sum = sum.saturating_add(float_to_int(whole).unwrap_or(0));
                        leftover += scaled - whole;
                    }
                }
                other => match other.as_int() {
                    Some(n) => {
                        #[allow(clippy::cast_precision_loss)]
                        let magnitude = (n as f64).abs() * factor as f64;
                        others += magnitude;
                        sum = sum.checked_add(i128::from(n) * factor).unwrap_or_else(|| {
                            unsure = true;
                            0
                        });
                    }
                    None => {
                        let message = format!(
                            "unsupported type for timedelta {tag} component: {}",
                            self.type_name(other)
                        );
                        return Err(self.raise("TypeError", message, at));
                    }
                },
            }
        }
        match huge.as_slice() {
            [] if !unsure => {}
            [one] if !unsure && others < one / 2.0 => {
                return Err(self.raise("OverflowError", delta_overflow(i128::MAX), at));
            }
            _ => {
                let what = "a timedelta whose components beyond 10**38 microseconds might cancel";
                return Err(self.unsupported(what, at));
            }
        }
        if leftover != 0.0 {
            let mut whole = leftover.round();
            if (whole - leftover).abs() == 0.5 {
                #[allow(clippy::cast_precision_loss)]
                let odd = (sum & 1) as f64;
                whole = 2.0 * ((leftover + odd) * 0.5).round() - odd;
            }
            sum = sum.saturating_add(float_to_int(whole).unwrap_or(0));
        }
        self.delta(sum, at)
    }

    /// `cls.method(…)` of a class of `datetime`.
    pub(crate) fn temporal_class_method(
        &mut self,
        kind: Kind,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let qualname = format!("{}.{name}", kind.name());
        let fixed = DateTime::at((EPOCH_DAY * 86_400 + FIXED_EPOCH) * MICROS_PER_SECOND, None);
        let Some(fixed) = fixed else { return Ok(RunValue::None) };
        match name {
            "now" => {
                let params = Params {
                    name: Some("now"),
                    names: &["tz"],
                    kinds: &[Conv::Any],
                    required: 0,
                    positional: 1,
                };
                let slots = self.parse_args(&params, args, kwargs, at)?;
                let zone = self.tzinfo_arg(slots.first().and_then(Option::as_ref), at)?;
                let at_zone = self.shift(fixed, zone, at)?;
                Ok(RunValue::Temporal(Temporal::DateTime(at_zone)))
            }
            "utcnow" | "today" => {
                self.no_args(&qualname, &args, &kwargs, at)?;
                Ok(RunValue::Temporal(if kind == Kind::Date {
                    Temporal::Date(fixed.day)
                } else {
                    Temporal::DateTime(fixed)
                }))
            }
            "fromisoformat" => {
                let text = self.one_arg(&qualname, args, &kwargs, at)?;
                let RunValue::Str(text) = text else {
                    return Err(self.raise("TypeError", "fromisoformat: argument must be str", at));
                };
                self.parse_isoformat(kind, &text, at)
            }
            "fromtimestamp" if kind == Kind::Date => {
                // `date.fromtimestamp` takes whole seconds, floored, and no fold.
                let stamp = self.one_arg(&qualname, args, &kwargs, at)?;
                let seconds = match stamp {
                    RunValue::Float(x) if !x.is_nan() => RunValue::Float(x.floor()),
                    other => other,
                };
                let micros = self.timestamp_micros(&seconds, at)?;
                Ok(RunValue::Temporal(Temporal::Date(
                    self.at_timestamp(micros, None, false, at)?.day,
                )))
            }
            "fromtimestamp" | "utcfromtimestamp" => {
                let utc = name == "utcfromtimestamp";
                let params = Params {
                    name: Some(if utc { "utcfromtimestamp" } else { "fromtimestamp" }),
                    names: &["timestamp", "tz"],
                    kinds: &[Conv::Any, Conv::Any],
                    required: 1,
                    positional: if utc { 1 } else { 2 },
                };
                let slots = self.parse_args(&params, args, kwargs, at)?;
                let stamp =
                    slots.first().and_then(Option::as_ref).cloned().unwrap_or(RunValue::None);
                let zone = self.tzinfo_arg(slots.get(1).and_then(Option::as_ref), at)?;
                let micros = self.timestamp_micros(&stamp, at)?;
                let value = self.at_timestamp(micros, zone, !utc && zone.is_none(), at)?;
                Ok(RunValue::Temporal(Temporal::DateTime(value)))
            }
            _ => Err(self.unsupported(&format!("`{}.{name}()`", kind.type_name()), at)),
        }
    }

    /// A timestamp argument in whole microseconds, rounded half to even as CPython's
    /// `_PyTime_ObjectToTimeval` rounds it.
    fn timestamp_micros(&self, value: &RunValue, at: At) -> R<i128> {
        match value {
            RunValue::Float(x) => {
                if x.is_nan() {
                    return Err(self.raise("ValueError", "Invalid value NaN (not a number)", at));
                }
                let whole = x.trunc();
                if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&whole) {
                    let message = "timestamp out of range for platform time_t";
                    return Err(self.raise("OverflowError", message, at));
                }
                let mut fraction = ((x - whole) * 1e6).round_ties_even();
                let mut seconds = float_to_int(whole).unwrap_or(0);
                if fraction >= 1e6 {
                    fraction -= 1e6;
                    seconds += 1;
                } else if fraction < 0.0 {
                    fraction += 1e6;
                    seconds -= 1;
                }
                Ok(seconds * 1_000_000 + float_to_int(fraction).unwrap_or(0))
            }
            other => match other.as_int() {
                Some(n) => Ok(i128::from(n) * 1_000_000),
                None => {
                    let message = format!(
                        "'{}' object cannot be interpreted as an integer",
                        self.type_name(other)
                    );
                    Err(self.raise("TypeError", message, at))
                }
            },
        }
    }

    /// The datetime `micros` microseconds after the Unix epoch: in `zone`, or naive in
    /// UTC (`local`: as local time, which CPython checks a day further back).
    fn at_timestamp(&self, micros: i128, zone: Option<i32>, local: bool, at: At) -> R<DateTime> {
        let seconds = micros.div_euclid(1_000_000);
        if seconds.abs() > 60_000_000_000_000_000 {
            return Err(self.unsupported("a timestamp this far from 1970", at));
        }
        let utc = i128::from(EPOCH_DAY) * i128::from(MICROS_PER_DAY) + micros;
        let wall = utc + i128::from(zone.unwrap_or(0)) * 1_000_000;
        let year_of = |micros: i128| {
            civil(i64::try_from(micros.div_euclid(i128::from(MICROS_PER_DAY))).unwrap_or(0)).0
        };
        // CPython makes the UTC time first, then moves it to `zone`; local time also
        // looks a day back, for a fold.
        let year = year_of(utc);
        if !(1..=9999).contains(&year) {
            return Err(self.raise("ValueError", format!("year {year} is out of range"), at));
        }
        if local && year_of(utc - i128::from(MICROS_PER_DAY)) < 1 {
            return Err(self.raise("ValueError", "year 0 is out of range", at));
        }
        let value = i64::try_from(wall).ok().and_then(|w| DateTime::at(w, zone));
        value.ok_or_else(|| self.out_of_range(at))
    }

    /// `dt` converted to the wall clock of `zone` (naive: UTC's, without a zone).
    fn shift(&self, dt: DateTime, zone: Option<i32>, at: At) -> R<DateTime> {
        let micros = dt.utc() + i64::from(zone.unwrap_or(0)) * MICROS_PER_SECOND;
        DateTime::at(micros, zone).ok_or_else(|| self.out_of_range(at))
    }

    /// `datetime.fromisoformat(text)` and `date.fromisoformat(text)` for the common
    /// forms; a string CPython certainly rejects raises its `ValueError`, and any other
    /// form stops the run.
    fn parse_isoformat(&mut self, kind: Kind, text: &str, at: At) -> R<RunValue> {
        self.charge(text.len(), at)?;
        let bytes = text.as_bytes();
        let digits = |range: std::ops::Range<usize>| {
            bytes.get(range).is_some_and(|b| b.iter().all(u8::is_ascii_digit))
        };
        let number = |range: std::ops::Range<usize>| -> i64 {
            bytes.get(range).map_or(0, |b| b.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
        };
        let invalid = |interp: &mut Self| -> R<RunValue> {
            let message =
                format!("Invalid isoformat string: {}", interp.repr(&RunValue::str(text), at)?);
            Err(interp.raise("ValueError", message, at))
        };
        let refuse = |interp: &Self| {
            let what = format!(
                "`{}.fromisoformat()` of a form other than \
                 YYYY-MM-DD[THH[:MM[:SS[.ffffff]]]][Z|±HH[:MM[:SS]]]",
                kind.name()
            );
            Err(interp.unsupported(&what, at))
        };
        let length = text.chars().count();
        let date_form = digits(0..4)
            && bytes.get(4) == Some(&b'-')
            && digits(5..7)
            && bytes.get(7) == Some(&b'-')
            && digits(8..10);
        if kind == Kind::Date {
            if !matches!(length, 7 | 8 | 10) || !digits(0..4) {
                return invalid(self);
            }
            if length == 10 && date_form {
                let day = self.checked_day(number(0..4), number(5..7), number(8..10), at)?;
                return Ok(RunValue::Temporal(Temporal::Date(day)));
            }
            if length == 10 && bytes.get(4) == Some(&b'-') && bytes.get(5) != Some(&b'W') {
                return invalid(self);
            }
            return refuse(self);
        }
        if length < 7 || !digits(0..4) {
            return invalid(self);
        }
        if !date_form {
            if bytes.len() >= 10 && bytes.get(4) == Some(&b'-') && bytes.get(5) != Some(&b'W') {
                return invalid(self);
            }
            return refuse(self);
        }
        let (year, month, day) = (number(0..4), number(5..7), number(8..10));
        if bytes.len() == 10 {
            let value = self.checked_datetime([year, month, day, 0, 0, 0, 0], None, at)?;
            return Ok(RunValue::Temporal(Temporal::DateTime(value)));
        }
        if !text.is_ascii() {
            return refuse(self);
        }
        // The separator is any one character; then the time, then the offset.
        let time = &text[11..];
        let tz_at = time.find(['+', '-', 'Z']).unwrap_or(time.len());
        let (clock, tz) = time.split_at(tz_at);
        let clock_bytes = clock.as_bytes();
        if !clock_bytes.get(0..2).is_some_and(|b| b.iter().all(u8::is_ascii_digit)) {
            return invalid(self);
        }
        let Some(fields) = parse_clock(clock) else { return refuse(self) };
        let zone = match tz {
            "" => None,
            "Z" => Some(0),
            _ if tz.starts_with('Z') => return invalid(self),
            _ => {
                let sign: i64 = if tz.starts_with('-') { -1 } else { 1 };
                let Some(seconds) = tz.get(1..).and_then(parse_offset) else { return refuse(self) };
                let delta =
                    Delta::from_total(i128::from(sign * seconds) * 1_000_000).unwrap_or_default();
                Some(self.zone_offset(delta, at)?)
            }
        };
        let [hour, minute, second, micro] = fields;
        let value =
            self.checked_datetime([year, month, day, hour, minute, second, micro], zone, at)?;
        Ok(RunValue::Temporal(Temporal::DateTime(value)))
    }

    // ----- instances -----

    /// `value.<name>` of a value of `datetime`.
    pub(crate) fn temporal_attr(
        &mut self,
        value: &RunValue,
        t: Temporal,
        name: &str,
        at: At,
    ) -> R<RunValue> {
        let int = |n: i64| Ok(RunValue::Int(n));
        match (t, name) {
            (Temporal::DateTime(dt), _) => {
                let (year, month, day) = civil(i64::from(dt.day));
                let (hour, minute, second) = clock(dt.second);
                match name {
                    "year" => int(year),
                    "month" => int(month),
                    "day" => int(day),
                    "hour" => int(i64::from(hour)),
                    "minute" => int(i64::from(minute)),
                    "second" => int(i64::from(second)),
                    "microsecond" => int(i64::from(dt.microsecond)),
                    "fold" => int(0),
                    "tzinfo" => Ok(dt
                        .zone
                        .map_or(RunValue::None, |z| RunValue::Temporal(Temporal::Zone(z)))),
                    "isoformat" | "strftime" | "date" | "timestamp" | "replace" | "astimezone"
                    | "utcoffset" | "tzname" | "dst" | "weekday" | "isoweekday" | "toordinal"
                    | "ctime" => Ok(RunValue::bound(value.clone(), name)),
                    _ => self.temporal_missing(t.kind(), name, at),
                }
            }
            (Temporal::Date(day), _) => {
                let (year, month, day) = civil(i64::from(day));
                match name {
                    "year" => int(year),
                    "month" => int(month),
                    "day" => int(day),
                    "isoformat" | "strftime" | "replace" | "weekday" | "isoweekday"
                    | "toordinal" | "ctime" => Ok(RunValue::bound(value.clone(), name)),
                    _ => self.temporal_missing(t.kind(), name, at),
                }
            }
            (Temporal::Delta(delta), "days") => int(i64::from(delta.days)),
            (Temporal::Delta(delta), "seconds") => int(i64::from(delta.seconds)),
            (Temporal::Delta(delta), "microseconds") => int(i64::from(delta.microseconds)),
            (Temporal::Delta(_), "total_seconds")
            | (Temporal::Zone(_), "utcoffset" | "tzname" | "dst") => {
                Ok(RunValue::bound(value.clone(), name))
            }
            _ => self.temporal_missing(t.kind(), name, at),
        }
    }

    /// A name the value lacks: outside the subset if CPython has it, else CPython's
    /// `AttributeError`.
    fn temporal_missing(&self, kind: Kind, name: &str, at: At) -> R<RunValue> {
        if kind.names().contains(&name) || name.starts_with("__") {
            return Err(self.unsupported(&format!("`{}.{name}`", kind.type_name()), at));
        }
        let message = format!("'{}' object has no attribute '{name}'", kind.type_name());
        Err(self.raise("AttributeError", message, at))
    }

    /// `value.method(…)` of a value of `datetime`.
    pub(crate) fn temporal_method(
        &mut self,
        t: Temporal,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        // Which class defines the method, for the messages of those that take nothing.
        let owner = match (t, name) {
            (Temporal::DateTime(_), "weekday" | "isoweekday" | "toordinal") => "date",
            (t, _) => t.kind().name(),
        };
        let qualname = format!("{owner}.{name}");
        match (t, name) {
            (Temporal::DateTime(dt), "isoformat") => {
                let params = Params {
                    name: Some("isoformat"),
                    names: &["sep", "timespec"],
                    kinds: &[Conv::Char, Conv::Str],
                    required: 0,
                    positional: 2,
                };
                let slots = self.parse_args(&params, args, kwargs, at)?;
                let sep = match slots.first().and_then(Option::as_ref) {
                    Some(RunValue::Str(s)) => s.chars().next().unwrap_or('T'),
                    _ => 'T',
                };
                let timespec = match slots.get(1).and_then(Option::as_ref) {
                    None => Timespec::Auto,
                    Some(RunValue::Str(s)) => match &**s {
                        "auto" => Timespec::Auto,
                        "hours" => Timespec::Hours,
                        "minutes" => Timespec::Minutes,
                        "seconds" => Timespec::Seconds,
                        "milliseconds" => Timespec::Milliseconds,
                        "microseconds" => Timespec::Microseconds,
                        _ => return Err(self.raise("ValueError", "Unknown timespec value", at)),
                    },
                    Some(_) => Timespec::Auto,
                };
                Ok(RunValue::str(&dt.isoformat(sep, timespec)))
            }
            (Temporal::Date(day), "isoformat") => {
                self.no_args(&qualname, &args, &kwargs, at)?;
                Ok(RunValue::str(&date_text(i64::from(day))))
            }
            (Temporal::DateTime(_) | Temporal::Date(_), "strftime") => {
                let params = Params {
                    name: Some("strftime"),
                    names: &["format"],
                    kinds: &[Conv::Str],
                    required: 1,
                    positional: 1,
                };
                let slots = self.parse_args(&params, args, kwargs, at)?;
                let format = match slots.first().and_then(Option::as_ref) {
                    Some(RunValue::Str(s)) => s.clone(),
                    _ => return Ok(RunValue::None),
                };
                Ok(RunValue::str(&self.strftime(t, &format, at)?))
            }
            (Temporal::DateTime(dt), "date") => {
                self.no_args(&qualname, &args, &kwargs, at)?;
                Ok(RunValue::Temporal(Temporal::Date(dt.day)))
            }
            (Temporal::DateTime(dt), "timestamp") => {
                self.no_args(&qualname, &args, &kwargs, at)?;
                let epoch = EPOCH_DAY * MICROS_PER_DAY;
                if dt.zone.is_some() {
                    return Ok(RunValue::Float(true_divide(
                        i128::from(dt.utc() - epoch),
                        i128::from(MICROS_PER_SECOND),
                    )));
                }
                // CPython reads a naive datetime as local time, looking a day back.
                if dt.day < 1 {
                    return Err(self.raise("ValueError", "year 0 is out of range", at));
                }
                let seconds = (dt.local() - epoch).div_euclid(MICROS_PER_SECOND);
                #[allow(clippy::cast_precision_loss)]
                let value = seconds as f64 + f64::from(dt.microsecond) / 1e6;
                Ok(RunValue::Float(value))
            }
            (Temporal::DateTime(dt), "replace") => {
                let params = Params {
                    name: Some("replace"),
                    names: DATETIME_PARAMS.names,
                    kinds: DATETIME_PARAMS.kinds,
                    required: 0,
                    positional: 8,
                };
                let slots = self.parse_args(&params, args, kwargs, at)?;
                let (year, month, day) = civil(i64::from(dt.day));
                let (hour, minute, second) = clock(dt.second);
                let current = [
                    year,
                    month,
                    day,
                    i64::from(hour),
                    i64::from(minute),
                    i64::from(second),
                    i64::from(dt.microsecond),
                ];
                let mut fields = current;
                for (i, field) in fields.iter_mut().enumerate() {
                    *field = Self::field_of(slots.get(i).and_then(Option::as_ref), *field);
                }
                let value = self.checked_datetime(fields, None, at)?;
                let fold = Self::field_of(slots.get(8).and_then(Option::as_ref), 0);
                if !(0..=1).contains(&fold) {
                    return Err(self.raise("ValueError", "fold must be either 0 or 1", at));
                }
                let zone = match slots.get(7).and_then(Option::as_ref) {
                    None => dt.zone,
                    Some(given) => self.tzinfo_arg(Some(given), at)?,
                };
                if fold == 1 {
                    return Err(self.unsupported("`fold=1`", at));
                }
                Ok(RunValue::Temporal(Temporal::DateTime(DateTime { zone, ..value })))
            }
            (Temporal::Date(day), "replace") => {
                let params = Params {
                    name: Some("replace"),
                    names: DATE_PARAMS.names,
                    kinds: DATE_PARAMS.kinds,
                    required: 0,
                    positional: 3,
                };
                let slots = self.parse_args(&params, args, kwargs, at)?;
                let (year, month, day) = civil(i64::from(day));
                let field = |i: usize, current: i64| {
                    Self::field_of(slots.get(i).and_then(Option::as_ref), current)
                };
                let day = self.checked_day(field(0, year), field(1, month), field(2, day), at)?;
                Ok(RunValue::Temporal(Temporal::Date(day)))
            }
            (Temporal::DateTime(dt), "astimezone") => {
                let params = Params {
                    name: Some("astimezone"),
                    names: &["tz"],
                    kinds: &[Conv::Any],
                    required: 0,
                    positional: 1,
                };
                let slots = self.parse_args(&params, args, kwargs, at)?;
                match self.tzinfo_arg(slots.first().and_then(Option::as_ref), at)? {
                    None => Err(self.unsupported(
                        "`astimezone()` without a timezone (CPython names the machine's own)",
                        at,
                    )),
                    Some(zone) => Ok(RunValue::Temporal(Temporal::DateTime(self.shift(
                        dt,
                        Some(zone),
                        at,
                    )?))),
                }
            }
            (Temporal::DateTime(dt), "utcoffset" | "tzname" | "dst") => {
                self.no_args(&qualname, &args, &kwargs, at)?;
                Ok(match (dt.zone, name) {
                    (None, _) | (Some(_), "dst") => RunValue::None,
                    (Some(offset), "tzname") => RunValue::str(&zone_name(offset)),
                    (Some(offset), _) => self.delta(i128::from(offset) * 1_000_000, at)?,
                })
            }
            (Temporal::Zone(offset), "utcoffset" | "tzname" | "dst") => {
                let qualname = format!("timezone.{name}");
                let dt = self.one_arg(&qualname, args, &kwargs, at)?;
                if !matches!(dt, RunValue::None | RunValue::Temporal(Temporal::DateTime(_))) {
                    let kind = self.type_name(&dt);
                    let message = format!(
                        "{name}(dt) argument must be a datetime instance or None, not {kind}"
                    );
                    return Err(self.raise("TypeError", message, at));
                }
                Ok(match name {
                    "dst" => RunValue::None,
                    "tzname" => RunValue::str(&zone_name(offset)),
                    _ => self.delta(i128::from(offset) * 1_000_000, at)?,
                })
            }
            (Temporal::DateTime(DateTime { day, .. }) | Temporal::Date(day), _)
                if matches!(name, "weekday" | "isoweekday" | "toordinal" | "ctime") =>
            {
                self.no_args(&qualname, &args, &kwargs, at)?;
                let weekday = i64::from(day).rem_euclid(7);
                Ok(match name {
                    "weekday" => RunValue::Int(weekday),
                    "isoweekday" => RunValue::Int(weekday + 1),
                    "toordinal" => RunValue::Int(i64::from(day) + 1),
                    _ => {
                        let (year, month, date) = civil(i64::from(day));
                        let seconds = match t {
                            Temporal::DateTime(dt) => dt.second,
                            _ => 0,
                        };
                        let (hour, minute, second) = clock(seconds);
                        let weekday = usize::try_from(weekday).unwrap_or(0);
                        let month = usize::try_from(month).unwrap_or(0);
                        RunValue::str(&format!(
                            "{} {} {date:>2} {hour:02}:{minute:02}:{second:02} {year:04}",
                            &DAY_NAMES[weekday][..3],
                            MONTH_NAMES.get(month).and_then(|m| m.get(..3)).unwrap_or(""),
                        ))
                    }
                })
            }
            (Temporal::Delta(delta), "total_seconds") => {
                self.no_args(&qualname, &args, &kwargs, at)?;
                Ok(RunValue::Float(true_divide(delta.total(), 1_000_000)))
            }
            _ => Err(self.unsupported(&format!("`{}.{name}()`", t.kind().type_name()), at)),
        }
    }

    /// `strftime(format)` of a datetime or date, for the directives whose output does
    /// not depend on the platform or the locale.
    fn strftime(&mut self, t: Temporal, format: &str, at: At) -> R<String> {
        self.charge(format.len(), at)?;
        let dt = match t {
            Temporal::DateTime(dt) => dt,
            Temporal::Date(day) => DateTime { day, second: 0, microsecond: 0, zone: None },
            _ => return Ok(String::new()),
        };
        let (year, month, day) = civil(i64::from(dt.day));
        let (hour, minute, second) = clock(dt.second);
        let weekday = usize::try_from(i64::from(dt.day).rem_euclid(7)).unwrap_or(0);
        let month_name =
            MONTH_NAMES.get(usize::try_from(month).unwrap_or(0)).copied().unwrap_or("");
        let mut out = String::with_capacity(format.len() * 2);
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let Some(directive) = chars.next() else {
                return Err(self.unsupported("a `%` at the end of a strftime format", at));
            };
            match directive {
                'Y' if year < 1000 => {
                    let what =
                        "`%Y` of a year before 1000 (CPython's output depends on the platform)";
                    return Err(self.unsupported(what, at));
                }
                'Y' => out.push_str(&year.to_string()),
                'y' => out.push_str(&format!("{:02}", year % 100)),
                'm' => out.push_str(&format!("{month:02}")),
                'd' => out.push_str(&format!("{day:02}")),
                'H' => out.push_str(&format!("{hour:02}")),
                'I' => out.push_str(&format!("{:02}", (hour + 11) % 12 + 1)),
                'p' => out.push_str(if hour < 12 { "AM" } else { "PM" }),
                'M' => out.push_str(&format!("{minute:02}")),
                'S' => out.push_str(&format!("{second:02}")),
                'f' => out.push_str(&format!("{:06}", dt.microsecond)),
                'j' => {
                    let first = day_number(year, 1, 1);
                    out.push_str(&format!("{:03}", i64::from(dt.day) - first + 1));
                }
                'a' => out.push_str(&DAY_NAMES[weekday][..3]),
                'A' => out.push_str(DAY_NAMES[weekday]),
                'b' => out.push_str(month_name.get(..3).unwrap_or("")),
                'B' => out.push_str(month_name),
                'w' => out.push_str(&((weekday + 1) % 7).to_string()),
                'u' => out.push_str(&(weekday + 1).to_string()),
                'z' => {
                    if let Some(offset) = dt.zone {
                        out.push_str(&offset_text(offset, ""));
                    }
                }
                'Z' => {
                    if let Some(offset) = dt.zone {
                        out.push_str(&zone_name(offset));
                    }
                }
                '%' => out.push('%'),
                other => {
                    let what = format!("the strftime directive `%{other}`");
                    return Err(self.unsupported(&what, at));
                }
            }
        }
        self.check_str(&out, at)?;
        Ok(out)
    }

    /// `format(value, spec)`: a datetime's or date's spec is a `strftime` format; the
    /// others take only an empty one.
    pub(crate) fn format_temporal(&mut self, t: Temporal, spec: &str, at: At) -> R<String> {
        if spec.is_empty() {
            return Ok(t.text());
        }
        match t {
            Temporal::DateTime(_) | Temporal::Date(_) => self.strftime(t, spec, at),
            _ => {
                let message = format!(
                    "unsupported format string passed to {}.__format__",
                    t.kind().type_name()
                );
                Err(self.raise("TypeError", message, at))
            }
        }
    }

    // ----- operators -----

    /// `a <op> b` where one side is a value of `datetime`: `None` when the operator does
    /// not apply to these types (the caller raises CPython's `TypeError`).
    pub(crate) fn temporal_binary(
        &mut self,
        op: BinOp,
        a: &RunValue,
        b: &RunValue,
        at: At,
    ) -> R<Option<RunValue>> {
        use Temporal::{Date, DateTime as Dt, Delta as Td};
        let (RunValue::Temporal(x), other) = (a, b) else {
            // A number or a sequence on the left: only `n * timedelta`.
            return match (op, a, b) {
                (BinOp::Mul, n, RunValue::Temporal(Td(delta))) if n.is_number() => {
                    self.delta_times(*delta, n, at).map(Some)
                }
                _ => Ok(None),
            };
        };
        let other_t = match other {
            RunValue::Temporal(t) => Some(*t),
            _ => None,
        };
        let value = match (op, *x, other_t) {
            (BinOp::Add, Dt(dt), Some(Td(d))) | (BinOp::Add, Td(d), Some(Dt(dt))) => {
                RunValue::Temporal(Dt(self.add_micros(dt, d.total(), at)?))
            }
            (BinOp::Sub, Dt(dt), Some(Td(d))) => {
                RunValue::Temporal(Dt(self.add_micros(dt, -d.total(), at)?))
            }
            (BinOp::Sub, Dt(x), Some(Dt(y))) => {
                if x.zone.is_some() != y.zone.is_some() {
                    let message = "can't subtract offset-naive and offset-aware datetimes";
                    return Err(self.raise("TypeError", message, at));
                }
                self.delta(i128::from(x.utc() - y.utc()), at)?
            }
            (BinOp::Add, Date(day), Some(Td(d))) | (BinOp::Add, Td(d), Some(Date(day))) => {
                RunValue::Temporal(Date(self.add_days(day, i64::from(d.days), at)?))
            }
            (BinOp::Sub, Date(day), Some(Td(d))) => {
                RunValue::Temporal(Date(self.add_days(day, -i64::from(d.days), at)?))
            }
            (BinOp::Sub, Date(x), Some(Date(y))) => self
                .delta(i128::from(i64::from(x) - i64::from(y)) * i128::from(MICROS_PER_DAY), at)?,
            (BinOp::Add, Td(x), Some(Td(y))) => self.delta(x.total() + y.total(), at)?,
            (BinOp::Sub, Td(x), Some(Td(y))) => self.delta(x.total() - y.total(), at)?,
            (BinOp::Mul, Td(d), None) if other.is_number() => self.delta_times(d, other, at)?,
            (BinOp::Div, Td(x), Some(Td(y))) => {
                if y.total() == 0 {
                    return Err(self.raise("ZeroDivisionError", "division by zero", at));
                }
                RunValue::Float(true_divide(x.total(), y.total()))
            }
            (BinOp::FloorDiv, Td(x), Some(Td(y))) => {
                if y.total() == 0 {
                    let message = "integer division or modulo by zero";
                    return Err(self.raise("ZeroDivisionError", message, at));
                }
                let (q, _) = python_divmod(x.total(), y.total());
                RunValue::Int(i64::try_from(q).map_err(|_| self.overflow(at))?)
            }
            (BinOp::Mod, Td(x), Some(Td(y))) => {
                if y.total() == 0 {
                    return Err(self.raise("ZeroDivisionError", "integer modulo by zero", at));
                }
                let (_, r) = python_divmod(x.total(), y.total());
                self.delta(r, at)?
            }
            (BinOp::Div | BinOp::FloorDiv, Td(d), None) if other.as_int().is_some() => {
                let n = i128::from(other.as_int().unwrap_or(0));
                if n == 0 {
                    let message = "integer division or modulo by zero";
                    return Err(self.raise("ZeroDivisionError", message, at));
                }
                let micros = if op == BinOp::Div {
                    divide_nearest(d.total(), n)
                } else {
                    python_divmod(d.total(), n).0
                };
                self.delta(micros, at)?
            }
            (BinOp::Div, Td(d), None) if matches!(other, RunValue::Float(_)) => {
                let x = other.as_float().unwrap_or(0.0);
                let (numerator, shift) = self.ratio(x, at)?;
                let Some(numerator) = numerator else {
                    // A huge divisor: the quotient rounds to nothing.
                    return Ok(Some(self.delta(0, at)?));
                };
                if numerator == 0 {
                    let message = "integer division or modulo by zero";
                    return Err(self.raise("ZeroDivisionError", message, at));
                }
                let scaled = if shift >= 127 { None } else { d.total().checked_mul(1 << shift) };
                match scaled {
                    Some(scaled) => self.delta(divide_nearest(scaled, numerator), at)?,
                    None if d.total() == 0 => self.delta(0, at)?,
                    None => self.delta(i128::MAX, at)?,
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(value))
    }

    /// `delta * n` for an int or a float, rounded half to even.
    fn delta_times(&mut self, delta: Delta, n: &RunValue, at: At) -> R<RunValue> {
        if let Some(n) = n.as_int() {
            let product = delta.total().checked_mul(i128::from(n));
            return self.delta(product.unwrap_or(i128::MAX), at);
        }
        let x = n.as_float().unwrap_or(0.0);
        let (numerator, shift) = self.ratio(x, at)?;
        let Some(numerator) = numerator else {
            return self.delta(if delta.total() == 0 { 0 } else { i128::MAX }, at);
        };
        let Some(product) = delta.total().checked_mul(numerator) else {
            return self.delta(i128::MAX, at);
        };
        if shift >= 122 {
            // The exact product is below half a microsecond.
            return self.delta(0, at);
        }
        self.delta(divide_nearest(product, 1 << shift), at)
    }

    /// A float's integer ratio, or CPython's error for a NaN or an infinity.
    fn ratio(&self, x: f64, at: At) -> R<(Option<i128>, u32)> {
        if x.is_nan() {
            return Err(self.raise("ValueError", "cannot convert NaN to integer ratio", at));
        }
        if x.is_infinite() {
            return Err(self.raise(
                "OverflowError",
                "cannot convert Infinity to integer ratio",
                at,
            ));
        }
        Ok(float_ratio(x))
    }

    fn add_micros(&self, dt: DateTime, micros: i128, at: At) -> R<DateTime> {
        let moved = i128::from(dt.local()) + micros;
        i64::try_from(moved)
            .ok()
            .and_then(|m| DateTime::at(m, dt.zone))
            .ok_or_else(|| self.out_of_range(at))
    }

    fn add_days(&self, day: i32, days: i64, at: At) -> R<i32> {
        let moved = i64::from(day) + days;
        if !(0..=MAX_DAY).contains(&moved) {
            return Err(self.out_of_range(at));
        }
        Ok(i32::try_from(moved).unwrap_or(0))
    }

    /// `-value`, `+value`.
    pub(crate) fn temporal_unary(&mut self, op: UnOp, t: Temporal, at: At) -> R<Option<RunValue>> {
        match (op, t) {
            (UnOp::Neg, Temporal::Delta(d)) => self.delta(-d.total(), at).map(Some),
            (UnOp::Pos, Temporal::Delta(d)) => Ok(Some(RunValue::Temporal(Temporal::Delta(d)))),
            _ => Ok(None),
        }
    }

    /// `abs(timedelta)`.
    pub(crate) fn temporal_abs(&mut self, t: Temporal, at: At) -> R<Option<RunValue>> {
        match t {
            Temporal::Delta(d) => self.delta(d.total().abs(), at).map(Some),
            _ => Ok(None),
        }
    }

    /// `a == b` for two values of `datetime`.
    pub(crate) fn temporal_eq(a: Temporal, b: Temporal) -> bool {
        match (a, b) {
            (Temporal::DateTime(x), Temporal::DateTime(y)) => {
                x.zone.is_some() == y.zone.is_some() && x.utc() == y.utc()
            }
            (Temporal::Date(x), Temporal::Date(y)) => x == y,
            (Temporal::Delta(x), Temporal::Delta(y)) => x == y,
            (Temporal::Zone(x), Temporal::Zone(y)) => x == y,
            _ => false,
        }
    }

    /// The order of two values of `datetime`, CPython's `TypeError` where they have
    /// none, or `None` for the caller's generic `TypeError`.
    pub(crate) fn temporal_cmp(
        &self,
        a: Temporal,
        b: Temporal,
        at: At,
    ) -> R<Option<std::cmp::Ordering>> {
        match (a, b) {
            (Temporal::DateTime(x), Temporal::DateTime(y)) => {
                if x.zone.is_some() != y.zone.is_some() {
                    let message = "can't compare offset-naive and offset-aware datetimes";
                    return Err(self.raise("TypeError", message, at));
                }
                Ok(Some(x.utc().cmp(&y.utc())))
            }
            (Temporal::DateTime(_), Temporal::Date(_))
            | (Temporal::Date(_), Temporal::DateTime(_)) => {
                let message = "can't compare datetime.datetime to datetime.date";
                Err(self.raise("TypeError", message, at))
            }
            (Temporal::Date(x), Temporal::Date(y)) => Ok(Some(x.cmp(&y))),
            (Temporal::Delta(x), Temporal::Delta(y)) => Ok(Some(x.total().cmp(&y.total()))),
            _ => Ok(None),
        }
    }

    /// Whether `value` is an instance of class `kind` (a datetime is a date).
    pub(crate) fn temporal_isinstance(value: &RunValue, kind: Kind) -> bool {
        match value {
            RunValue::Temporal(t) => {
                t.kind() == kind || (kind == Kind::Date && t.kind() == Kind::DateTime)
            }
            _ => false,
        }
    }
}

/// An integral float as an `i128`, if it fits.
fn float_to_int(x: f64) -> Option<i128> {
    if x.is_finite() && x.abs() < 1.7e38 {
        #[allow(clippy::cast_possible_truncation)]
        Some(x as i128)
    } else {
        None
    }
}

/// `HH[:MM[:SS[.f…]]]` as `[hour, minute, second, microsecond]`: fractions beyond six
/// digits are cut, as CPython cuts them.
fn parse_clock(clock: &str) -> Option<[i64; 4]> {
    let (main, fraction) = match clock.split_once(['.', ',']) {
        Some((main, fraction)) => (main, Some(fraction)),
        None => (clock, None),
    };
    let parts: Vec<&str> = main.split(':').collect();
    if parts.is_empty()
        || parts.len() > 3
        || parts.iter().any(|p| p.len() != 2 || !p.bytes().all(|b| b.is_ascii_digit()))
        || (fraction.is_some() && parts.len() != 3)
    {
        return None;
    }
    let value = |p: &str| p.bytes().fold(0, |n, d| n * 10 + i64::from(d - b'0'));
    let mut out = [0; 4];
    for (slot, part) in out.iter_mut().zip(&parts) {
        *slot = value(part);
    }
    if let Some(fraction) = fraction {
        if fraction.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits = &fraction[..fraction.len().min(6)];
        out[3] = value(digits) * 10_i64.pow(u32::try_from(6 - digits.len()).unwrap_or(0));
    }
    Some(out)
}

/// `HH[:MM[:SS]]` of an offset, in seconds.
fn parse_offset(text: &str) -> Option<i64> {
    let fields = parse_clock(text)?;
    if text.contains(['.', ',']) {
        return None;
    }
    Some(fields[0] * 3600 + fields[1] * 60 + fields[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_http_date_is_written_from_the_fixed_instant() {
        assert_eq!(FIXED_DATE, "Wed, 02 Dec 2026 09:00:00 GMT");
        assert_eq!(http_date(0), *b"Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(http_date(951_827_696), *b"Tue, 29 Feb 2000 12:34:56 GMT");
    }

    #[test]
    fn day_numbers_and_dates_agree_over_the_whole_range() {
        assert_eq!(day_number(1970, 1, 1), EPOCH_DAY);
        assert_eq!(day_number(9999, 12, 31), MAX_DAY);
        let mut n = 0;
        for year in 1..=9999 {
            for month in 1..=12 {
                for day in 1..=days_in_month(year, month) {
                    assert_eq!(day_number(year, month, day), n);
                    assert_eq!(civil(n), (year, month, day));
                    n += 1;
                }
            }
        }
        assert_eq!(civil(-1), (0, 12, 31));
        assert_eq!(civil(-366), (0, 1, 1));
    }

    #[test]
    fn true_division_is_correctly_rounded() {
        assert_eq!(true_divide(1, 1_000_000), 1e-6);
        assert_eq!(true_divide(-2_208_988_799_999_999, 1_000_000), -2_208_988_799.999_999);
        assert_eq!(true_divide(86_400_000_000, 25_200_000_000), 3.428_571_428_571_428_4);
        assert_eq!(true_divide(1, 3), 1.0 / 3.0);
        assert!(true_divide(0, -5).is_sign_negative());
        assert_eq!(true_divide((1 << 53) + 1, 1), 9_007_199_254_740_992.0);
        assert_eq!(true_divide((1 << 53) + 3, 1), 9_007_199_254_740_996.0);
    }

    #[test]
    fn rounding_halves_to_even() {
        assert_eq!(divide_nearest(5, 2), 2);
        assert_eq!(divide_nearest(7, 2), 4);
        assert_eq!(divide_nearest(-5, 2), -2);
        assert_eq!(divide_nearest(-7, 2), -4);
        assert_eq!(divide_nearest(1, 3), 0);
        assert_eq!(divide_nearest(2, 3), 1);
        assert_eq!(divide_nearest(5, -2), -2);
        assert_eq!(divide_nearest(i128::MIN, -1), i128::MAX);
        assert_eq!(python_divmod(-7, 2), (-4, 1));
        assert_eq!(python_divmod(7, -2), (-4, -1));
    }
}
