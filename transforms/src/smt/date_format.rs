//! Java's `SimpleDateFormat` patterns, in UTC and the English locale, as `TimestampConverter`
//! (its `format` key) and `Cast` (`Values.dateFormatFor`) use them: compiling a pattern,
//! formatting epoch milliseconds and parsing text leniently back to them.
//!
//! Letters: `G y M L d H h k K m s S a E u D z Z X`, quoted literals (`'T'`, `''`) and any
//! other character as a literal. Week-based letters (`w W F Y`) are refused when compiled.
//! The calendar is proleptic Gregorian (Java switches to Julian before 1582-10-15).
//! This module owns the pattern language; it must not know about records or schemas.

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
const DAYS: [&str; 7] =
    ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MILLIS_PER_DAY: i64 = 86_400_000;

#[derive(Clone, Debug, PartialEq)]
enum Item {
    Literal(String),
    Field(char, usize),
}

/// A compiled pattern.
#[derive(Clone, Debug)]
pub(crate) struct DateFormat {
    pattern: String,
    items: Vec<Item>,
}

impl DateFormat {
    /// Compiles `pattern`; the error is what Java's `IllegalArgumentException` says.
    pub(crate) fn new(pattern: &str) -> Result<Self, String> {
        let mut items = Vec::new();
        let mut literal = String::new();
        let chars: Vec<char> = pattern.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '\'' {
                if chars.get(i + 1) == Some(&'\'') {
                    literal.push('\'');
                    i += 2;
                    continue;
                }
                let mut j = i + 1;
                loop {
                    match chars.get(j) {
                        None => return Err("Unterminated quote".into()),
                        Some('\'') if chars.get(j + 1) == Some(&'\'') => {
                            literal.push('\'');
                            j += 2;
                        }
                        Some('\'') => break,
                        Some(&ch) => {
                            literal.push(ch);
                            j += 1;
                        }
                    }
                }
                i = j + 1;
            } else if c.is_ascii_alphabetic() {
                if !"GyMLdHhkKmsSaEuDzZXwWFY".contains(c) {
                    return Err(format!("Illegal pattern character '{c}'"));
                }
                if "wWFY".contains(c) {
                    return Err(format!("Pattern letter '{c}' (week-based) is not supported"));
                }
                let mut count = 1;
                while chars.get(i + count) == Some(&c) {
                    count += 1;
                }
                if c == 'X' && count > 3 {
                    return Err(format!("invalid ISO 8601 format: length={count}"));
                }
                if !literal.is_empty() {
                    items.push(Item::Literal(std::mem::take(&mut literal)));
                }
                items.push(Item::Field(c, count));
                i += count;
            } else {
                literal.push(c);
                i += 1;
            }
        }
        if !literal.is_empty() {
            items.push(Item::Literal(literal));
        }
        Ok(Self { pattern: pattern.to_owned(), items })
    }

    /// The pattern as given (Java's `toPattern`).
    pub(crate) fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Formats `millis` since the epoch, in UTC.
    pub(crate) fn format(&self, millis: i64) -> String {
        let days = millis.div_euclid(MILLIS_PER_DAY);
        let ms_of_day = millis.rem_euclid(MILLIS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        let hour = ms_of_day / 3_600_000;
        let mut out = String::new();
        for item in &self.items {
            let (c, n) = match item {
                Item::Literal(s) => {
                    out.push_str(s);
                    continue;
                }
                Item::Field(c, n) => (*c, *n),
            };
            let num = |out: &mut String, v: i64| out.push_str(&format!("{v:0n$}"));
            match c {
                'G' => out.push_str(if year > 0 { "AD" } else { "BC" }),
                'y' => {
                    let y = if year > 0 { year } else { 1 - year };
                    if n == 2 { num(&mut out, y % 100) } else { num(&mut out, y) }
                }
                'M' | 'L' => text_or_number(&mut out, n, month, MONTHS[month as usize - 1]),
                'd' => num(&mut out, day),
                'H' => num(&mut out, hour),
                'k' => num(&mut out, if hour == 0 { 24 } else { hour }),
                'K' => num(&mut out, hour % 12),
                'h' => num(&mut out, if hour % 12 == 0 { 12 } else { hour % 12 }),
                'm' => num(&mut out, ms_of_day / 60_000 % 60),
                's' => num(&mut out, ms_of_day / 1000 % 60),
                'S' => num(&mut out, ms_of_day % 1000),
                'a' => out.push_str(if hour < 12 { "AM" } else { "PM" }),
                'E' => {
                    let name = DAYS[(days + 3).rem_euclid(7) as usize];
                    out.push_str(if n >= 4 { name } else { &name[..3] });
                }
                'u' => num(&mut out, (days + 3).rem_euclid(7) + 1),
                'D' => num(&mut out, days - days_from_civil(year, 1, 1) + 1),
                'z' => out.push_str(if n >= 4 { "Coordinated Universal Time" } else { "UTC" }),
                'Z' => out.push_str("+0000"),
                'X' => out.push('Z'),
                _ => unreachable!("refused when compiled"),
            }
        }
        out
    }

    /// Parses `text` as Java's lenient `DateFormat.parse(String)` does: from the start,
    /// ignoring what follows the pattern, out-of-range fields rolling over. `None` when
    /// it does not match.
    pub(crate) fn parse(&self, text: &str) -> Option<i64> {
        let mut p = Parsed::default();
        let mut rest = text;
        for (i, item) in self.items.iter().enumerate() {
            match item {
                Item::Literal(s) => rest = rest.strip_prefix(s.as_str())?,
                Item::Field(c, n) => {
                    let abutting = matches!(self.items.get(i + 1), Some(Item::Field(d, m)) if is_numeric(*d, *m));
                    rest = p.field(*c, *n, rest, abutting)?;
                }
            }
        }
        p.resolve()
    }
}

fn text_or_number(out: &mut String, n: usize, v: i64, name: &str) {
    match n {
        1 | 2 => out.push_str(&format!("{v:0n$}")),
        3 => out.push_str(&name[..3]),
        _ => out.push_str(name),
    }
}

fn is_numeric(c: char, n: usize) -> bool {
    match c {
        'M' | 'L' => n <= 2,
        'G' | 'a' | 'E' | 'z' | 'Z' | 'X' => false,
        _ => true,
    }
}

#[derive(Default)]
struct Parsed {
    bc: bool,
    year: Option<(i64, bool)>,
    month: Option<i64>,
    day: Option<i64>,
    day_of_year: Option<i64>,
    hour24: Option<i64>,
    hour12: Option<i64>,
    pm: Option<bool>,
    minute: i64,
    second: i64,
    millis: i64,
    offset_minutes: i64,
}

impl Parsed {
    fn field<'t>(&mut self, c: char, n: usize, text: &'t str, abutting: bool) -> Option<&'t str> {
        let text = text.trim_start_matches([' ', '\t']);
        if !is_numeric(c, n) {
            return match c {
                'M' | 'L' => {
                    let (i, rest) = match_name(text, &MONTHS)?;
                    self.month = Some(i as i64 + 1);
                    Some(rest)
                }
                'E' => match_name(text, &DAYS).map(|(_, rest)| rest),
                'a' => {
                    let (i, rest) = match_name(text, &["AM", "PM"])?;
                    self.pm = Some(i == 1);
                    Some(rest)
                }
                'G' => {
                    let (i, rest) = match_name(text, &["AD", "BC"])?;
                    self.bc = i == 1;
                    Some(rest)
                }
                _ => {
                    let (offset, rest) = parse_zone(text)?;
                    self.offset_minutes = offset;
                    Some(rest)
                }
            };
        }
        let max = if abutting { n } else { 18 };
        let digits = text.bytes().take(max).take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let v: i64 = text[..digits].parse().ok()?;
        match c {
            'y' => self.year = Some((v, n <= 2 && digits == 2)),
            'M' | 'L' => self.month = Some(v),
            'd' => self.day = Some(v),
            'D' => self.day_of_year = Some(v),
            'H' => self.hour24 = Some(v),
            'k' => self.hour24 = Some(if v == 24 { 0 } else { v }),
            'h' => self.hour12 = Some(if v == 12 { 0 } else { v }),
            'K' => self.hour12 = Some(v),
            'm' => self.minute = v,
            's' => self.second = v,
            'S' => self.millis = v,
            _ => {} // 'u': the day of the week does not move a date that has its fields
        }
        Some(&text[digits..])
    }

    fn resolve(&self) -> Option<i64> {
        let year = match self.year {
            None => 1970,
            Some((yy, true)) => two_digit_year(yy),
            Some((y, false)) => y,
        };
        let year = if self.bc { 1 - year } else { year };
        let days = if self.month.is_some() || self.day.is_some() || self.day_of_year.is_none() {
            let m0 = self.month.unwrap_or(1) - 1;
            days_from_civil(year + m0.div_euclid(12), m0.rem_euclid(12) + 1, 1)
                + self.day.unwrap_or(1)
                - 1
        } else {
            days_from_civil(year, 1, 1) + self.day_of_year.unwrap_or(1) - 1
        };
        let hour = match (self.hour24, self.hour12) {
            (Some(h), _) => h,
            (None, Some(h)) => h + if self.pm == Some(true) { 12 } else { 0 },
            (None, None) => 0,
        };
        let ms = [
            days.checked_mul(MILLIS_PER_DAY)?,
            hour.checked_mul(3_600_000)?,
            self.minute.checked_mul(60_000)?,
            self.second.checked_mul(1000)?,
            self.millis,
            -self.offset_minutes * 60_000,
        ];
        ms.into_iter().try_fold(0i64, i64::checked_add)
    }
}

/// Java puts a two-digit year within 80 years before and 20 years after now.
fn two_digit_year(yy: i64) -> i64 {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let start = civil_from_days(now_ms.div_euclid(MILLIS_PER_DAY)).0 - 80;
    yy + start / 100 * 100 + if yy < start % 100 { 100 } else { 0 }
}

/// The longest full or three-letter name (any case) at the start of `text`.
fn match_name<'t>(text: &'t str, names: &[&str]) -> Option<(usize, &'t str)> {
    let mut best: Option<(usize, usize)> = None;
    for (i, name) in names.iter().enumerate() {
        for candidate in [*name, &name[..name.len().min(3)]] {
            let len = candidate.len();
            if text.len() >= len
                && text.is_char_boundary(len)
                && text[..len].eq_ignore_ascii_case(candidate)
                && best.is_none_or(|(_, l)| len > l)
            {
                best = Some((i, len));
            }
        }
    }
    best.map(|(i, len)| (i, &text[len..]))
}

/// A zone as `z`, `Z` or `X` accept it: `Z`, `UTC`, `GMT`, `GMT+hh:mm`, `+hhmm`, `-hh:mm`,
/// `+hh`, and a few US abbreviations. Gives the offset in minutes.
fn parse_zone(text: &str) -> Option<(i64, &str)> {
    const NAMED: &[(&str, i64)] = &[
        ("Coordinated Universal Time", 0),
        ("UTC", 0),
        ("GMT", 0),
        ("UT", 0),
        ("Z", 0),
        ("EST", -300),
        ("EDT", -240),
        ("CST", -360),
        ("CDT", -300),
        ("MST", -420),
        ("MDT", -360),
        ("PST", -480),
        ("PDT", -420),
    ];
    if let Some(rest) = text.strip_prefix("GMT").or_else(|| text.strip_prefix("UTC"))
        && let Some(r) = signed_offset(rest)
    {
        return Some(r);
    }
    if let Some(r) = signed_offset(text) {
        return Some(r);
    }
    NAMED.iter().find_map(|(name, off)| text.strip_prefix(name).map(|rest| (*off, rest)))
}

fn signed_offset(text: &str) -> Option<(i64, &str)> {
    let sign = match text.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let body = &text[1..];
    let digits = |s: &str, max: usize| s.bytes().take(max).take_while(u8::is_ascii_digit).count();
    let h = digits(body, 2);
    if h == 0 {
        return None;
    }
    let hours: i64 = body[..h].parse().ok()?;
    let mut rest = &body[h..];
    let mut minutes = 0;
    let after_colon = rest.strip_prefix(':').unwrap_or(rest);
    if digits(after_colon, 2) == 2 {
        minutes = after_colon[..2].parse().ok()?;
        rest = &after_colon[2..];
    }
    Some((sign * (hours * 60 + minutes), rest))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12).
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian (year, month 1-12, day) of days since 1970-01-01.
pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(p: &str) -> DateFormat {
        DateFormat::new(p).unwrap()
    }

    // 2017-01-01T12:34:56.789Z, a Sunday, as Kafka Connect's TimestampConverter tests use.
    const T: i64 = 1_483_274_096_789;

    #[test]
    fn civil_round_trips() {
        for days in [-800_000, -719_468, -1, 0, 1, 59, 365, 11_016, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(17_167), (2017, 1, 1));
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn formats_the_letters_kafka_connect_users_use() {
        assert_eq!(f("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").format(T), "2017-01-01T12:34:56.789Z");
        assert_eq!(f("yyyy MM dd HH mm ss SSS").format(T), "2017 01 01 12 34 56 789");
        assert_eq!(f("EEE, d MMM yy h:mm a z").format(T), "Sun, 1 Jan 17 12:34 PM UTC");
        assert_eq!(f("EEEE MMMM G Z X D u k K").format(T), "Sunday January AD +0000 Z 1 7 12 0");
        assert_eq!(f("h a S 'o''clock' ''").format(5), "12 AM 5 o'clock '");
        assert_eq!(f("zzzz yyyyy").format(-1), "Coordinated Universal Time 01969");
        assert_eq!(f("yyyy-MM-dd HH:mm:ss.SSS").format(-1), "1969-12-31 23:59:59.999");
    }

    #[test]
    fn bad_patterns_are_refused_as_java_refuses_them() {
        assert_eq!(DateFormat::new("yyyy-bb").unwrap_err(), "Illegal pattern character 'b'");
        assert_eq!(DateFormat::new("yyyy 'T").unwrap_err(), "Unterminated quote");
        assert_eq!(DateFormat::new("XXXX").unwrap_err(), "invalid ISO 8601 format: length=4");
        assert!(DateFormat::new("YYYY-ww").is_err());
    }

    #[test]
    fn parses_back_what_it_formats() {
        for p in [
            "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'",
            "yyyyMMddHHmmssSSS",
            "EEE, d MMM yyyy hh:mm:ss.SSS a Z",
        ] {
            let fmt = f(p);
            assert_eq!(fmt.parse(&fmt.format(T)), Some(T), "{p}");
        }
    }

    #[test]
    fn parsing_is_lenient_like_java() {
        let fmt = f("yyyy-MM-dd");
        // Month 13 and day 32 roll over; trailing text is ignored.
        assert_eq!(fmt.parse("2016-13-01"), fmt.parse("2017-01-01"));
        assert_eq!(fmt.parse("2017-01-32 and more"), fmt.parse("2017-02-01"));
        assert_eq!(fmt.parse("2017-1-1"), Some(17_167 * MILLIS_PER_DAY));
        assert_eq!(fmt.parse("2017/01/01"), None);
        assert_eq!(fmt.parse(""), None);
        let z = f("yyyy-MM-dd HH:mm XXX");
        assert_eq!(z.parse("1970-01-01 02:00 +02:00"), Some(0));
        assert_eq!(f("HH:mm z").parse("01:00 GMT+01:00"), Some(0));
        assert_eq!(f("HH:mm Z").parse("00:00 -0130"), Some(90 * 60_000));
        assert_eq!(f("MMM d, yyyy").parse("feb 3, 1970"), Some(33 * MILLIS_PER_DAY));
        assert_eq!(f("h:mm a").parse("12:30 AM"), Some(30 * 60_000));
        assert_eq!(f("h:mm a").parse("1:00 pm"), Some(13 * 3_600_000));
    }

    #[test]
    fn two_digit_years_land_near_now() {
        let y = f("yy").parse("05").unwrap();
        assert_eq!(civil_from_days(y.div_euclid(MILLIS_PER_DAY)).0, 2005);
        // Four digits with a two-letter pattern are taken as they are.
        let y = f("yy").parse("1905").unwrap();
        assert_eq!(civil_from_days(y.div_euclid(MILLIS_PER_DAY)).0, 1905);
    }
}
