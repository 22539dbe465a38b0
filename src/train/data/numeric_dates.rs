//! Dates written in numbers only (`29/08/1958`, `12.25.2023`, `1958-08-29`), and the one rule
//! that reads them, so that a pair of numbers that names no day in any order answers
//! [`INVALID`] instead of a date the text does not say.
//!
//! - `YYYY?A?B` (any of `/`, `.`, `-`): year, month A, day B.
//! - `A?B?YYYY`: day first (A is the day, B the month) when B can be a month (1–12); month first
//!   (US order) when it cannot and A can (A 1–12, B 13–31); otherwise no date (13/13/2013,
//!   45.07.1999, 07/45/1999).
//! - Then the day must exist in that month of that year (31/04, 29/02/2023 do not), by the
//!   calendar's rule ([`crate::text::calendar`]).
//!
//! The training pairs write random numbers in every order and separator, and label them by this
//! rule; [`impossible_numeric_dates`] lists every impossible month 13–99 and day 00, 32–99 in each
//! order and separator, held out for the exhaustive test.

use super::date_formats::Date;
use super::dates::INVALID;
use super::Pair;
use crate::session::sampling::Rng;
use crate::text::calendar::is_real_date;

/// The separators a numeric date is written with.
pub const SEPARATORS: [char; 3] = ['/', '.', '-'];

/// How the numbers are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Day, month, year.
    DayMonthYear,
    /// Month, day, year (US order).
    MonthDayYear,
    /// Year, month, day (ISO order).
    YearMonthDay,
}

/// Every layout.
pub const ORDERS: [Order; 3] = [
    Order::DayMonthYear,
    Order::MonthDayYear,
    Order::YearMonthDay,
];

/// `day`, `month`, `year` written in `order` with `separator`; `padded`: two digits each.
pub fn write(
    order: Order,
    separator: char,
    padded: bool,
    day: u32,
    month: u32,
    year: i32,
) -> String {
    let number = |n: u32| {
        if padded {
            format!("{n:02}")
        } else {
            n.to_string()
        }
    };
    let (d, m, s) = (number(day), number(month), separator);
    match order {
        Order::DayMonthYear => format!("{d}{s}{m}{s}{year}"),
        Order::MonthDayYear => format!("{m}{s}{d}{s}{year}"),
        Order::YearMonthDay => format!("{year}{s}{m}{s}{d}"),
    }
}

/// The date a numeric text names by the rule above, or `None` when it names none (also for text
/// that is not three numbers with one separator and a four-digit year).
pub fn read(text: &str) -> Option<Date> {
    let separator = SEPARATORS.into_iter().find(|&s| text.contains(s))?;
    let parts: Vec<&str> = text.split(separator).collect();
    let [a, b, c] = parts.as_slice() else {
        return None;
    };
    let number = |part: &str| -> Option<u32> {
        (!part.is_empty() && part.len() <= 4 && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse().ok())
            .flatten()
    };
    let (a4, c4) = (a.len() == 4, c.len() == 4);
    let (year, month, day) = match (a4, c4) {
        (true, false) => (number(a)?, number(b)?, number(c)?),
        (false, true) => {
            let (first, second, year) = (number(a)?, number(b)?, number(c)?);
            if (1..=12).contains(&second) {
                (year, second, first)
            } else if (1..=12).contains(&first) && (13..=31).contains(&second) {
                (year, first, second)
            } else {
                return None;
            }
        }
        _ => return None,
    };
    let year = i32::try_from(year).ok()?;
    let real = (1900..=2099).contains(&year) && is_real_date(year, month, day);
    real.then_some(Date { year, month, day })
}

/// How a numeric text is laid out: the order, the separator, and whether each number is padded
/// to two digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Which number comes first.
    pub order: Order,
    /// `/`, `.` or `-`.
    pub separator: char,
    /// Two digits each.
    pub padded: bool,
}

impl Layout {
    /// A layout drawn uniformly: order, then separator, then padding.
    pub fn random(rng: &mut Rng) -> Self {
        let pick = |rng: &mut Rng, n: usize| (rng.next_u64() % n as u64) as usize;
        let order = ORDERS[pick(rng, ORDERS.len())];
        let separator = SEPARATORS[pick(rng, SEPARATORS.len())];
        let padded = rng.next_u64().is_multiple_of(2);
        Self {
            order,
            separator,
            padded,
        }
    }

    /// `day`, `month`, `year` written in this layout, with the answer the rule gives it: the
    /// date it names, or [`INVALID`].
    pub fn labelled(self, day: u32, month: u32, year: i32) -> Pair {
        let text = write(self.order, self.separator, self.padded, day, month, year);
        let answer = read(&text).map_or_else(|| INVALID.to_string(), Date::iso);
        Pair::new(text, answer)
    }
}

/// One numeric pair: a random date written in a random order, separator and padding, or two
/// random numbers 0–99 in its place (mostly no date); labelled by [`read`].
pub fn numeric_pair(rng: &mut Rng) -> Pair {
    let date = Date::random(rng);
    let layout = Layout::random(rng);
    let replaced = rng.next_u64() % 4;
    let mut number = || (rng.next_u64() % 100) as u32;
    let (mut day, mut month) = (date.day, date.month);
    match replaced {
        0 => month = number(),
        1 => day = number(),
        2 => (day, month) = (number(), number()),
        _ => {}
    }
    layout.labelled(day, month, date.year)
}

/// Every impossible month (13–99) and day (00, 32–99) in each order and separator, two digits
/// each, with a year drawn from `seed`: 3 orders × 3 separators × (87 + 69) = 1,404 texts, none
/// of which names a date. A bad month comes with day 15 and a bad day with month 6, so that no
/// reading in the other order makes a date of them.
pub fn impossible_numeric_dates(seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut out = vec![];
    for order in ORDERS {
        for separator in SEPARATORS {
            let bad_months = (13..=99).map(|month| (15, month));
            let bad_days = std::iter::once(0).chain(32..=99).map(|day| (day, 6));
            for (day, month) in bad_months.chain(bad_days) {
                let year = 1900 + (rng.next_u64() % 200) as i32;
                out.push(write(order, separator, true, day, month, year));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_reads_each_order() {
        let iso = |text: &str| read(text).map(Date::iso);
        assert_eq!(iso("29/08/1958").as_deref(), Some("1958-08-29"));
        assert_eq!(iso("12/25/2023").as_deref(), Some("2023-12-25"));
        assert_eq!(
            iso("05/06/2000").as_deref(),
            Some("2000-06-05"),
            "day first"
        );
        assert_eq!(iso("5.13.2000").as_deref(), Some("2000-05-13"), "US order");
        assert_eq!(iso("1999.7.5").as_deref(), Some("1999-07-05"));
        assert_eq!(iso("2024-02-29").as_deref(), Some("2024-02-29"));
        for text in [
            "13/13/2013",
            "45.07.1999",
            "07/45/1999",
            "99/99/1999",
            "2020-00-10",
            "12/00/2000",
            "1999.07.45",
            "31.11.2011",
            "2019/02/29",
            "0/5/1999",
            "hello",
            "1/2/3",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    #[test]
    fn the_impossible_set_is_every_bad_month_and_day_and_names_no_date() {
        let texts = impossible_numeric_dates(7);
        assert_eq!(texts.len(), 3 * 3 * (87 + 69));
        assert!(texts.iter().all(|t| read(t).is_none()));
        assert!(texts.iter().any(|t| t.starts_with("15/13/")));
        assert!(texts.iter().any(|t| t.starts_with("06.99.")));
        assert!(texts.iter().any(|t| t.ends_with("-06-00")));
    }

    #[test]
    fn numeric_pairs_label_by_the_rule() {
        let mut rng = Rng::new(5);
        let pairs: Vec<Pair> = (0..2000).map(|_| numeric_pair(&mut rng)).collect();
        let invalid = pairs.iter().filter(|p| p.target == INVALID).count();
        assert!((600..1400).contains(&invalid), "{invalid}");
        for pair in &pairs {
            let expected = read(&pair.source).map_or_else(|| INVALID.to_string(), Date::iso);
            assert_eq!(pair.target, expected, "{}", pair.source);
        }
    }
}
