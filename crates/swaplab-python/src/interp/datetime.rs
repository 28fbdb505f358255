//! The run's clock: one fixed instant, [`FIXED_EPOCH`] (2026-12-02T09:00:00 UTC), from
//! which the in-memory network's `Date` header, [`FIXED_DATE`], is written, so that
//! whatever else reads the clock cannot drift from it.

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

/// Days before each month (index 1 to 12) in a year that is not a leap year.
const DAYS_BEFORE_MONTH: [i64; 13] = [0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

/// Days in each month (index 1 to 12) in a year that is not a leap year.
const DAYS_IN_MONTH: [i64; 13] = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_http_date_is_written_from_the_fixed_instant() {
        assert_eq!(FIXED_DATE, "Wed, 02 Dec 2026 09:00:00 GMT");
        assert_eq!(http_date(0), *b"Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(http_date(951_827_696), *b"Tue, 29 Feb 2000 12:34:56 GMT");
        assert_eq!(civil(-1), (0, 12, 31));
        assert_eq!(civil(-366), (0, 1, 1));
    }
}
