//! Dates as people write them, and their ISO 8601 form: the `date-iso` task.
//!
//! Years run 1900–2099; two-digit years ('58) stand for 1950–2049. Weekdays are the real ones.
//! A slash date is day first (29/08/1958) unless the first number cannot be a month, so
//! 12/25/2023 is US order. Text that is not a real date (31 February, "hello") maps to
//! [`INVALID`], so the model never has to invent a date.

use std::collections::HashSet;

use super::numeric_dates::numeric_pair;
use super::Pair;
use crate::session::sampling::Rng;

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
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// The answer for text that is not a valid date.
pub const INVALID: &str = "invalid";

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

/// Words and phrases that are not dates (with random letters and digits, the non-date inputs).
const NOT_DATES: [&str; 40] = [
    "today",
    "yesterday",
    "now",
    "soon",
    "never",
    "someday",
    "later",
    "weekend",
    "the weekend",
    "next week",
    "last year",
    "this month",
    "noon",
    "midnight",
    "my birthday",
    "new year",
    "good morning",
    "thank you",
    "goodbye",
    "hi there",
    "what day is it",
    "a long time ago",
    "the day after",
    "once upon a time",
    "monday morning",
    "january",
    "august",
    "spring",
    "summer holiday",
    "the year 3000",
    "apple pie",
    "cats and dogs",
    "i love you",
    "ten o'clock",
    "half past nine",
    "no idea",
    "n/a",
    "date",
    "the end",
    "banana",
];

/// A calendar date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Date {
    /// Year, 1900..=2099.
    pub year: i32,
    /// Month, 1..=12.
    pub month: u32,
    /// Day of the month.
    pub day: u32,
}

/// Days in a month of a year.
pub fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
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
const WITH_WEEKDAY: [usize; 4] = [5, 6, 7, 18];

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

/// One in this many generated pairs is not a valid date (besides the numeric ones).
pub const INVALID_SHARE: u64 = 8;

/// One in this many generated pairs is written in numbers only, by
/// [`super::numeric_dates::numeric_pair`] (about half of them name no date).
pub const NUMERIC_SHARE: u64 = 4;

/// A written date that does not exist: a day past the month's end (31 February, 31 April,
/// 29 February of a common year), or, in ISO form, month 13–19 or day 00.
fn impossible_date(rng: &mut Rng) -> Option<String> {
    let valid = Date::random(rng);
    if rng.next_u64().is_multiple_of(5) {
        let (year, month, day) = (valid.year, valid.month, valid.day);
        return Some(match rng.next_u64() % 2 {
            0 => format!("{year}-{:02}-{day:02}", 13 + rng.next_u64() % 7),
            _ => format!("{year}-{month:02}-00"),
        });
    }
    let last = days_in_month(valid.year, valid.month);
    if last == 31 {
        return None;
    }
    let day = last + 1 + (rng.next_u64() % (31 - last) as u64) as u32;
    let date = Date { day, ..valid };
    let format = (rng.next_u64() % FORMATS as u64) as usize;
    if WITH_WEEKDAY.contains(&format) {
        return None;
    }
    format_date(date, format)
}

/// Text that is no date at all: a word or phrase, random letters, or random digits.
fn not_a_date(rng: &mut Rng) -> String {
    match rng.next_u64() % 3 {
        0 => NOT_DATES[(rng.next_u64() % NOT_DATES.len() as u64) as usize].to_string(),
        1 => {
            let len = 2 + rng.next_u64() % 12;
            (0..len)
                .map(|_| (b'a' + (rng.next_u64() % 26) as u8) as char)
                .collect()
        }
        _ => {
            let len = 1 + rng.next_u64() % 7;
            (0..len)
                .map(|_| (b'0' + (rng.next_u64() % 10) as u8) as char)
                .collect()
        }
    }
}

/// `count` distinct (written, answer) pairs from `seed`, none of whose sources is in
/// `exclude`: one in [`NUMERIC_SHARE`] is numbers only (labelled by the numeric rule), of the
/// rest about one in [`INVALID_SHARE`] answers [`INVALID`], the others are ISO dates.
pub fn date_pairs(count: usize, seed: u64, exclude: &HashSet<String>) -> Vec<Pair> {
    let mut rng = Rng::new(seed);
    let mut seen = HashSet::new();
    let mut pairs = Vec::with_capacity(count);
    while pairs.len() < count {
        let (text, answer) = if rng.next_u64().is_multiple_of(NUMERIC_SHARE) {
            let pair = numeric_pair(&mut rng);
            (Some(pair.source), pair.target)
        } else if rng.next_u64().is_multiple_of(INVALID_SHARE) {
            let text = match rng.next_u64() % 2 {
                0 => impossible_date(&mut rng),
                _ => Some(not_a_date(&mut rng)),
            };
            (text, INVALID.to_string())
        } else {
            let date = Date::random(&mut rng);
            let format = (rng.next_u64() % FORMATS as u64) as usize;
            (format_date(date, format), date.iso())
        };
        if let Some(text) = text {
            // The tokenizer lower-cases, so sources differing only in case are one source.
            if !exclude.contains(&text.to_lowercase()) && seen.insert(text.to_lowercase()) {
                pairs.push(Pair::new(text, answer));
            }
        }
    }
    pairs
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
    fn new_formats_and_invalid_dates() {
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
        let pairs = date_pairs(4000, 3, &HashSet::new());
        let invalid: Vec<&Pair> = pairs.iter().filter(|p| p.target == INVALID).collect();
        // One in 8 of the named dates, and about 6 in 10 of the numeric quarter (953 here).
        assert!((800..1100).contains(&invalid.len()), "{}", invalid.len());
        // Every invalid source is no real date: none parses back to a valid ISO answer.
        for pair in &pairs {
            assert!(
                pair.target == INVALID || pair.target.len() == 10,
                "{pair:?}"
            );
        }
        assert!(invalid.iter().any(|p| p.source.contains("February 3")
            || p.source.contains("Feb 30")
            || p.source.contains("-00")));
    }

    #[test]
    fn pairs_are_distinct_and_respect_exclusions() {
        let held = date_pairs(100, 1, &HashSet::new());
        let exclude: HashSet<String> = held.iter().map(|p| p.source.to_lowercase()).collect();
        let train = date_pairs(2000, 2, &exclude);
        assert!(train
            .iter()
            .all(|p| !exclude.contains(&p.source.to_lowercase())));
        assert_eq!(train.len(), 2000);
    }
}
