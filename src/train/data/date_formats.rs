//! A date and the 30 ways the generator writes it ("29 August 1958", "Aug 29, '58",
//! "29/08/1958", "Friday, the 29th of August 1958", "1958年8月29日", …), with its real weekday.
//! Which dates to write, and what each answers, is `dates`' business.

use crate::session::sampling::Rng;
use crate::text::calendar::days_in_month;

/// Month names, January first.
const MONTHS: [&str; 12] = [
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
/// Weekday names, Monday first (as [`Date::weekday`] counts).
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Days 1–31 as words (“the twenty-first”).
const ORDINAL_WORDS: [&str; 31] = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
    "twenty-first",
    "twenty-second",
    "twenty-third",
    "twenty-fourth",
    "twenty-fifth",
    "twenty-sixth",
    "twenty-seventh",
    "twenty-eighth",
    "twenty-ninth",
    "thirtieth",
    "thirty-first",
];

/// A calendar date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Date {
    /// Year, 1900..=2099.
    pub year: i32,
    /// Month, 1..=12.
    pub month: u32,
    /// Day of the month (past the month's end for an impossible date).
    pub day: u32,
}

/// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
fn days_from_civil(date: Date) -> i64 {
    let y = if date.month <= 2 {
        date.year - 1
    } else {
        date.year
    } as i64;
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = date.month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + date.day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

impl Date {
    /// 0 = Monday … 6 = Sunday.
    pub fn weekday(self) -> usize {
        // 1970-01-01 was a Thursday (index 3).
        (days_from_civil(self) + 3).rem_euclid(7) as usize
    }

    /// `YYYY-MM-DD`.
    pub fn iso(self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// A uniformly random date in 1900–2099.
    pub fn random(rng: &mut Rng) -> Self {
        let year = 1900 + (rng.next_u64() % 200) as i32;
        let month = 1 + (rng.next_u64() % 12) as u32;
        let day = 1 + (rng.next_u64() % days_in_month(year, month) as u64) as u32;
        Self { year, month, day }
    }
}

/// 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, …, 21st.
fn ordinal(day: u32) -> String {
    let suffix = match (day % 10, day % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{day}{suffix}")
}

/// Number of written formats.
pub const FORMATS: usize = 30;

/// Formats that name the weekday (never used for an impossible date).
pub const WITH_WEEKDAY: [usize; 4] = [5, 6, 7, 18];

/// The date written in format `index` (0..FORMATS); `None` when the format needs a two-digit
/// year and the date is outside 1950–2049, or is US order and the day is 12 or less.
pub fn format_date(date: Date, index: usize) -> Option<String> {
    let Date { year, month, day } = date;
    let name = MONTHS[month as usize - 1];
    let short = &name[..3];
    let weekday = WEEKDAYS[date.weekday()];
    let words = ORDINAL_WORDS
        .get(day as usize - 1)
        .copied()
        .unwrap_or("zeroth");
    let yy = format!("{:02}", year.rem_euclid(100));
    let two_digit_ok = (1950..=2049).contains(&year);
    let text = match index {
        0 => format!("{day} {name} {year}"),
        1 => format!("{name} {day}, {year}"),
        2 => format!("{short} {day}, {year}"),
        3 if two_digit_ok => format!("{short} {day}, '{yy}"),
        4 => format!("{day:02}/{month:02}/{year}"),
        5 => format!("{weekday}, the {} of {name} {year}", ordinal(day)),
        6 => format!("{weekday}, {name} {day}, {year}"),
        7 => format!("{} {day} {short} {year}", &weekday[..3]),
        8 => format!("{} {name} {year}", ordinal(day)),
        9 => format!("the {} of {name}, {year}", ordinal(day)),
        10 => format!("{day:02}-{short}-{year}"),
        11 => format!("{} {day} {year}", name.to_uppercase()),
        12 => format!("{year}, {name} {day}"),
        13 if two_digit_ok => format!("{day} {short} '{yy}"),
        14 => format!("{short}. {day}, {year}"),
        15 => format!("{day}.{month}.{year}"),
        16 => format!("{year}/{month}/{day}"),
        17 => format!("{year}年{month}月{day}日"),
        18 => format!("{}, {day} {short} {year}", &weekday[..3]),
        19 => format!("{} {}, {year}", name.to_lowercase(), ordinal(day)),
        20 => format!("the {words} of {name} {year}"),
        21 => format!("{name} {words}, {year}"),
        22 => format!("{words} of {name}, {year}"),
        23 => date.iso(),
        24 if day > 12 => format!("{month:02}/{day:02}/{year}"),
        25 if day > 12 => format!("{month}/{day}/{year}"),
        26 => format!("{day} {short} {year}"),
        27 => format!("{name} {day} {year}"),
        28 => format!("{} of {name} {year}", ordinal(day)),
        29 => format!("{short} {} {year}", ordinal(day)),
        _ => return None,
    };
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weekdays_are_real() {
        let date = Date {
            year: 1958,
            month: 8,
            day: 29,
        };
        assert_eq!(WEEKDAYS[date.weekday()], "Friday");
        assert_eq!(
            WEEKDAYS[Date {
                year: 2000,
                month: 1,
                day: 1
            }
            .weekday()],
            "Saturday"
        );
        assert_eq!(
            WEEKDAYS[Date {
                year: 2026,
                month: 11,
                day: 29
            }
            .weekday()],
            "Sunday"
        );
        assert_eq!(
            format_date(date, 5).unwrap(),
            "Friday, the 29th of August 1958"
        );
        assert_eq!(format_date(date, 3).unwrap(), "Aug 29, '58");
        assert_eq!(date.iso(), "1958-08-29");
        assert!(format_date(
            Date {
                year: 1920,
                month: 1,
                day: 2
            },
            3
        )
        .is_none());
    }

    #[test]
    fn words_ordinals_iso_and_us_order() {
        let solstice = Date {
            year: 1999,
            month: 6,
            day: 21,
        };
        assert_eq!(
            format_date(solstice, 20).unwrap(),
            "the twenty-first of June 1999"
        );
        assert_eq!(format_date(solstice, 23).unwrap(), "1999-06-21");
        assert_eq!(format_date(solstice, 24).unwrap(), "06/21/1999");
        let ambiguous = Date { day: 5, ..solstice };
        assert_eq!(
            format_date(ambiguous, 24),
            None,
            "US order only when the day is over 12"
        );
    }
}
