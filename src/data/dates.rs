//! Dates as people write them, and their ISO 8601 form: the `date-iso` task.
//!
//! Years run 1900–2099; two-digit years ('58) stand for 1950–2049. Weekdays are the real ones.

use std::collections::HashSet;

use super::Pair;
use crate::sampling::Rng;

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
pub const FORMATS: usize = 20;

/// The date written in format `index` (0..FORMATS); `None` when the format needs a two-digit
/// year and the date is outside 1950–2049.
pub fn format_date(date: Date, index: usize) -> Option<String> {
    let Date { year, month, day } = date;
    let name = MONTHS[month as usize - 1];
    let short = &name[..3];
    let weekday = WEEKDAYS[date.weekday()];
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
        _ => return None,
    };
    Some(text)
}

/// `count` distinct (written, ISO) pairs from `seed`, none of whose sources is in `exclude`.
pub fn date_pairs(count: usize, seed: u64, exclude: &HashSet<String>) -> Vec<Pair> {
    let mut rng = Rng::new(seed);
    let mut seen = HashSet::new();
    let mut pairs = Vec::with_capacity(count);
    while pairs.len() < count {
        let date = Date::random(&mut rng);
        let format = (rng.next_u64() % FORMATS as u64) as usize;
        if let Some(text) = format_date(date, format) {
            if !exclude.contains(&text) && seen.insert(text.clone()) {
                pairs.push(Pair::new(text, date.iso()));
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
    fn pairs_are_distinct_and_respect_exclusions() {
        let held = date_pairs(100, 1, &HashSet::new());
        let exclude: HashSet<String> = held.iter().map(|p| p.source.clone()).collect();
        let train = date_pairs(2000, 2, &exclude);
        assert!(train.iter().all(|p| !exclude.contains(&p.source)));
        assert_eq!(train.len(), 2000);
    }
}
