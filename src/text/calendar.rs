//! The Gregorian calendar's one rule: which days exist. It is shared: the date generator labels
//! its training pairs by it (native), and the session marks an output that names a day that does
//! not exist (the page and the CLI), so that what the model is taught and what it is held to are
//! the same rule.

use serde::Serialize;

/// Whether `year` has a 29 February: every fourth year, except centuries not divisible by 400
/// (1900 has none, 2000 has one).
pub fn is_leap_year(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// Days in `month` (1–12) of `year`; 0 for a month outside 1–12.
pub fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        _ => 0,
    }
}

/// Whether day `day` of `month` of `year` exists.
pub fn is_real_date(year: i32, month: u32, day: u32) -> bool {
    (1..=days_in_month(year, month)).contains(&day)
}

/// A text in the form date-iso answers in, `YYYY-MM-DD`, that names no day: 2019-02-29,
/// 2024-02-30, 2020-13-01, 2020-06-00.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImpossibleDate {
    /// The year as written.
    pub year: i32,
    /// The month as written (may be 0 or over 12).
    pub month: u32,
    /// The day as written (may be 0 or past the month's end).
    pub day: u32,
    /// Days in that month of that year (0 when the month is not 1–12).
    pub days_in_month: u32,
}

/// `text` as an impossible date, when it is written `YYYY-MM-DD` (four, two and two ASCII digits,
/// nothing around them) and that day does not exist; `None` for a real date and for any other
/// text (`invalid`, a sentence, a date cut short while decoding).
pub fn impossible_iso_date(text: &str) -> Option<ImpossibleDate> {
    let bytes = text.as_bytes();
    let shaped = bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
    if !shaped {
        return None;
    }
    let year = text.get(0..4)?.parse().ok()?;
    let month = text.get(5..7)?.parse().ok()?;
    let day = text.get(8..10)?.parse().ok()?;
    (!is_real_date(year, month, day)).then_some(ImpossibleDate {
        year,
        month,
        day,
        days_in_month: days_in_month(year, month),
    })
}

impl ImpossibleDate {
    /// Why the day does not exist, in English (the CLI's note; the page words it in its own
    /// language from the same fields).
    pub fn reason(&self) -> String {
        let Self {
            year,
            month,
            day,
            days_in_month,
        } = *self;
        if days_in_month == 0 {
            format!("there is no month {month:02}")
        } else if day == 0 {
            "there is no day 00".to_string()
        } else {
            format!("{year:04}-{month:02} has {days_in_month} days, not {day}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leap_years_follow_the_gregorian_rule() {
        assert!(!is_leap_year(1900));
        assert!(is_leap_year(2000));
        assert!(is_leap_year(2024));
        assert!(!is_leap_year(2019));
        assert_eq!(days_in_month(2019, 2), 28);
        assert_eq!(days_in_month(2096, 2), 29);
        assert_eq!(days_in_month(1999, 12), 31);
        assert_eq!(days_in_month(1999, 11), 30);
        assert_eq!(days_in_month(1999, 13), 0);
        assert_eq!(days_in_month(1999, 0), 0);
        let days: u32 = (1..=12).map(|month| days_in_month(2023, month)).sum();
        assert_eq!(days, 365);
    }

    #[test]
    fn only_impossible_iso_dates_are_marked() {
        let marked = |text: &str| impossible_iso_date(text);
        assert_eq!(
            marked("2019-02-29"),
            Some(ImpossibleDate {
                year: 2019,
                month: 2,
                day: 29,
                days_in_month: 28
            })
        );
        assert_eq!(marked("2024-02-30").map(|d| d.days_in_month), Some(29));
        assert_eq!(marked("2023-04-31").map(|d| d.days_in_month), Some(30));
        assert_eq!(marked("2020-13-01").map(|d| d.days_in_month), Some(0));
        assert_eq!(marked("2020-06-00").map(|d| d.day), Some(0));
        let reason = |text: &str| marked(text).map(|d| d.reason());
        assert_eq!(
            reason("2019-02-29").as_deref(),
            Some("2019-02 has 28 days, not 29")
        );
        assert_eq!(
            reason("2020-13-01").as_deref(),
            Some("there is no month 13")
        );
        assert_eq!(reason("2020-06-00").as_deref(), Some("there is no day 00"));
        for text in [
            "2024-02-29",
            "2000-02-29",
            "1999-12-31",
            "invalid",
            "2019-02-2",
            "2019-02-299",
            " 2019-02-29",
            "2019/02/29",
            "２０１９-02-29",
            "我爱吃苹果。",
            "",
        ] {
            assert_eq!(marked(text), None, "{text}");
        }
    }
}
