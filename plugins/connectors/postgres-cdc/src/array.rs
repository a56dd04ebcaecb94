//! PostgreSQL's text form of a one-dimensional array (`{1,NULL,"a b","q\"uote"}`) split
//! into its elements' texts.
//!
//! This module owns the array quoting rules only; converting each element is `value`'s.
//! Multi-dimensional arrays are refused.

/// The elements of an array's text; `None` is an unquoted `NULL`.
pub fn parse(text: &str) -> Result<Vec<Option<String>>, String> {
    let bad = |why: &str| format!("array {text:?}: {why}");
    // An explicit lower bound (`[0:1]={...}`) is skipped.
    let body = match text.find("={") {
        Some(i) if text.starts_with('[') => &text[i + 1..],
        _ => text,
    };
    let inner = body
        .strip_prefix('{')
        .and_then(|b| b.strip_suffix('}'))
        .ok_or_else(|| bad("not in braces"))?;
    let mut out = Vec::new();
    if inner.is_empty() {
        return Ok(out);
    }
    let mut chars = inner.chars().peekable();
    loop {
        let mut item = String::new();
        let mut quoted = false;
        if chars.peek() == Some(&'{') {
            return Err(bad("multi-dimensional arrays are not supported"));
        }
        if chars.peek() == Some(&'"') {
            quoted = true;
            chars.next();
            loop {
                match chars.next() {
                    Some('\\') => item.push(chars.next().ok_or_else(|| bad("dangling escape"))?),
                    Some('"') => break,
                    Some(c) => item.push(c),
                    None => return Err(bad("unterminated quote")),
                }
            }
        }
        while let Some(&c) = chars.peek() {
            if c == ',' {
                break;
            }
            chars.next();
            if quoted {
                return Err(bad("text after a quoted element"));
            }
            if c == '\\' {
                item.push(chars.next().ok_or_else(|| bad("dangling escape"))?);
            } else {
                item.push(c);
            }
        }
        let item = item.trim().to_owned();
        out.push(if !quoted && item.eq_ignore_ascii_case("NULL") { None } else { Some(item) });
        match chars.next() {
            Some(',') => continue,
            None => return Ok(out),
            Some(c) => return Err(bad(&format!("unexpected {c:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn s(v: &str) -> Option<String> {
        Some(v.to_owned())
    }

    #[test]
    fn elements_quotes_and_nulls() {
        assert_eq!(parse("{}").unwrap(), Vec::<Option<String>>::new());
        assert_eq!(parse("{1,2,3}").unwrap(), [s("1"), s("2"), s("3")]);
        assert_eq!(
            parse(r#"{a,NULL,"NULL","b c","q\"u\\o"}"#).unwrap(),
            [s("a"), None, s("NULL"), s("b c"), s("q\"u\\o")]
        );
        assert_eq!(parse(r#"{"",x}"#).unwrap(), [s(""), s("x")]);
        assert_eq!(parse("[0:1]={7,8}").unwrap(), [s("7"), s("8")]);
        assert!(parse("{{1,2},{3,4}}").is_err());
        assert!(parse("{\"open}").is_err());
        assert!(parse("1,2").is_err());
    }
}
