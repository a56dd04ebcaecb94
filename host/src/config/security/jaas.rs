//! `sasl.jaas.config` in Kafka's JAAS syntax, for the two login modules this worker
//! supports:
//!
//! ```text
//! org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";
//! org.apache.kafka.common.security.scram.ScramLoginModule required username=u password="p";
//! ```
//!
//! One login module, a control flag, `name=value` options (values quoted with `"`, backslash
//! escapes as Java's tokenizer reads them, or unquoted words) and a final `;`. It yields
//! [`SaslCredentials`], whose `Debug` hides the password. Errors name the key and never show
//! the value.

use std::fmt;

use super::error::SecurityError;
use super::secret::Secret;

/// Kafka's PLAIN login module.
pub const PLAIN_MODULE: &str = "org.apache.kafka.common.security.plain.PlainLoginModule";
/// Kafka's SCRAM login module.
pub const SCRAM_MODULE: &str = "org.apache.kafka.common.security.scram.ScramLoginModule";

/// Which login module a JAAS config names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoginModule {
    /// `PlainLoginModule`, for `PLAIN`.
    Plain,
    /// `ScramLoginModule`, for `SCRAM-SHA-256` and `SCRAM-SHA-512`.
    Scram,
}

/// The user name and password of a JAAS config.
#[derive(Clone, PartialEq, Eq)]
pub struct SaslCredentials {
    /// The login module they are for.
    pub module: LoginModule,
    /// `username`.
    pub username: String,
    /// `password`.
    pub password: Secret,
}

impl fmt::Debug for SaslCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslCredentials")
            .field("module", &self.module)
            .field("username", &self.username)
            .field("password", &self.password)
            .finish()
    }
}

/// Parses the value of `key` (`sasl.jaas.config`, maybe prefixed).
pub fn parse(key: &str, value: &str) -> Result<SaslCredentials, SecurityError> {
    let err = |message: &str| SecurityError::invalid(key, message);
    let mut tokens = Tokens { rest: value };
    let module = match tokens.next().map_err(&err)? {
        Some(Token::Word(w)) => w,
        _ => return Err(err("expected a login module class name")),
    };
    let module = match module.as_str() {
        PLAIN_MODULE => LoginModule::Plain,
        SCRAM_MODULE => LoginModule::Scram,
        other if other.contains('.') => {
            return Err(err(&format!(
                "login module {other} is not supported: use PlainLoginModule or ScramLoginModule"
            )));
        }
        _ => return Err(err("expected a login module class name")),
    };
    match tokens.next().map_err(&err)? {
        Some(Token::Word(flag))
            if ["required", "requisite", "sufficient", "optional"]
                .iter()
                .any(|f| f.eq_ignore_ascii_case(&flag)) => {}
        _ => {
            return Err(err(
                "expected a control flag (required, requisite, sufficient or optional) after the \
                 login module",
            ));
        }
    }
    let (mut username, mut password) = (None, None);
    loop {
        let name = match tokens.next().map_err(&err)? {
            Some(Token::Semicolon) => break,
            Some(Token::Word(name)) => name,
            Some(_) => return Err(err("expected an option name or ';'")),
            None => return Err(err("expected ';' at the end of the login module")),
        };
        if tokens.next().map_err(&err)? != Some(Token::Equals) {
            return Err(err("expected '=' after an option name"));
        }
        let value = match tokens.next().map_err(&err)? {
            Some(Token::Word(v) | Token::Quoted(v)) => v,
            _ => return Err(err("expected a value after '='")),
        };
        match name.as_str() {
            "username" => username = Some(value),
            "password" => password = Some(Secret::new(value)),
            _ => {}
        }
    }
    if tokens.next().map_err(&err)?.is_some() {
        return Err(err("expected exactly one login module"));
    }
    Ok(SaslCredentials {
        module,
        username: username.ok_or_else(|| err("the login module has no username option"))?,
        password: password.ok_or_else(|| err("the login module has no password option"))?,
    })
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Quoted(String),
    Equals,
    Semicolon,
}

/// Java `StreamTokenizer`-like tokens: words, `"quoted"` strings with backslash escapes,
/// `=` and `;`; `//` and `/* */` comments are skipped.
struct Tokens<'a> {
    rest: &'a str,
}

impl Tokens<'_> {
    fn next(&mut self) -> Result<Option<Token>, &'static str> {
        loop {
            self.rest = self.rest.trim_start();
            if let Some(after) = self.rest.strip_prefix("//") {
                self.rest = after.find('\n').map_or("", |i| &after[i..]);
            } else if let Some(after) = self.rest.strip_prefix("/*") {
                let end = after.find("*/").ok_or("unterminated comment")?;
                self.rest = &after[end + 2..];
            } else {
                break;
            }
        }
        let mut chars = self.rest.char_indices();
        let Some((_, first)) = chars.next() else { return Ok(None) };
        match first {
            '=' | ';' => {
                self.rest = &self.rest[1..];
                Ok(Some(if first == '=' { Token::Equals } else { Token::Semicolon }))
            }
            '"' | '\'' => {
                let mut value = String::new();
                let mut escaped = false;
                for (i, c) in chars {
                    if escaped {
                        value.push(match c {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            'b' => '\u{8}',
                            'f' => '\u{c}',
                            other => other,
                        });
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == first {
                        self.rest = &self.rest[i + 1..];
                        return Ok(Some(Token::Quoted(value)));
                    } else {
                        value.push(c);
                    }
                }
                Err("unterminated quoted value")
            }
            _ => {
                let end = self
                    .rest
                    .find(|c: char| c.is_whitespace() || matches!(c, '=' | ';' | '"' | '\''))
                    .unwrap_or(self.rest.len());
                let word = self.rest[..end].to_owned();
                self.rest = &self.rest[end..];
                Ok(Some(Token::Word(word)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sasl.jaas.config";

    #[test]
    fn plain_and_scram_modules() {
        let c =
            parse(KEY, &format!(r#"{PLAIN_MODULE} required username="u" password="p";"#)).unwrap();
        assert_eq!(
            (c.module, c.username.as_str(), c.password.expose()),
            (LoginModule::Plain, "u", "p")
        );
        let c = parse(
            KEY,
            &format!("  {SCRAM_MODULE}   Required\n  username=connect\n  password=\"s p\" ;  "),
        )
        .unwrap();
        assert_eq!(
            (c.module, c.username.as_str(), c.password.expose()),
            (LoginModule::Scram, "connect", "s p")
        );
    }

    #[test]
    fn quoted_values_with_escapes_and_other_options() {
        let c = parse(
            KEY,
            &format!(
                r#"{SCRAM_MODULE} required tokenauth="false" username="a\"b" password="x\\y\n;=" /* note */;"#
            ),
        )
        .unwrap();
        assert_eq!(c.username, "a\"b");
        assert_eq!(c.password.expose(), "x\\y\n;=");
    }

    #[test]
    fn errors_name_the_key_and_hide_the_value() {
        let cases = [
            (
                format!("{PLAIN_MODULE} required username=\"u\" password=\"hunter2\""),
                "expected ';'",
            ),
            (format!("{PLAIN_MODULE} username=\"u\" password=\"hunter2\";"), "control flag"),
            (format!("{PLAIN_MODULE} required password=\"hunter2\";"), "no username"),
            (format!("{PLAIN_MODULE} required username=\"hunter2\";"), "no password"),
            (format!("{PLAIN_MODULE} required username=\"u\" password=\"hunter2;"), "unterminated"),
            (format!("{PLAIN_MODULE} required username \"hunter2\";"), "expected '='"),
            (
                "com.sun.security.auth.module.Krb5LoginModule required password=\"hunter2\";"
                    .to_owned(),
                "Krb5LoginModule is not supported",
            ),
            (
                format!(
                    "{PLAIN_MODULE} required username=u password=hunter2; {PLAIN_MODULE} required;"
                ),
                "exactly one",
            ),
            ("hunter2".to_owned(), "login module class name"),
        ];
        for (value, expected) in cases {
            let e = parse(KEY, &value).unwrap_err().to_string();
            assert!(e.starts_with("sasl.jaas.config: "), "{e}");
            assert!(e.contains(expected), "{value}: {e}");
            assert!(!e.contains("hunter2"), "{e}");
        }
    }

    #[test]
    fn debug_hides_the_password() {
        let c =
            parse(KEY, &format!("{PLAIN_MODULE} required username=u password=hunter2;")).unwrap();
        let shown = format!("{c:?}");
        assert!(shown.contains("\"u\"") && !shown.contains("hunter2"), "{shown}");
    }
}
