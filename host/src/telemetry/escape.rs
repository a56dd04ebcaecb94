//! [`EscapedFields`]: the text log's field formatter. It writes fields as
//! `tracing-subscriber`'s `DefaultFields` does (the message first, then `name=value`),
//! except that every control character inside a value is escaped (`\n`, `\r`, `\t`,
//! `\u{1b}`, …). So one event is always one line, whatever a value holds: a header, a
//! query parameter or a connector name from a request, a guest's output, a multi-line
//! trace. `?value` fields are escaped by their `Debug` already; `%value` fields and the
//! message are not, and that is what this formatter covers.
//!
//! It only formats; it must not drop, reorder or rename fields. The JSON log needs none of
//! this: JSON strings escape control characters.

use std::fmt::{self, Write};

use tracing::field::{Field, Visit};
use tracing_subscriber::field::{RecordFields, VisitOutput};
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::{DefaultVisitor, Writer};

/// Formats the fields of events and spans for the text log, control characters escaped.
#[derive(Clone, Copy, Debug, Default)]
pub struct EscapedFields;

impl<'w> FormatFields<'w> for EscapedFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'w>, fields: R) -> fmt::Result {
        let mut visitor = Escaping(DefaultVisitor::new(writer, true));
        fields.record(&mut visitor);
        visitor.0.finish()
    }
}

/// A `DefaultVisitor` that hands it every value escaped.
struct Escaping<'w>(DefaultVisitor<'w>);

impl Visit for Escaping<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.record_debug(field, &Escaped(value));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.record_debug(field, &format_args!("{value}"));
        } else {
            // Quoted, as `DefaultFields` writes it; `str`'s `Debug` escapes as well.
            self.record_debug(field, &value);
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        let mut text = value.to_string();
        let mut source = value.source();
        while let Some(s) = source {
            write!(text, ": {s}").ok();
            source = s.source();
        }
        self.record_debug(field, &format_args!("{text}"));
    }
}

/// `Debug` of the inner value with control characters escaped.
struct Escaped<'a>(&'a dyn fmt::Debug);

impl fmt::Debug for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(ControlEscaper(f), "{:?}", self.0)
    }
}

/// Passes text through, each control character replaced by its escape.
struct ControlEscaper<'a, 'b>(&'a mut fmt::Formatter<'b>);

impl Write for ControlEscaper<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut rest = s;
        while let Some(at) = rest.find(char::is_control) {
            self.0.write_str(&rest[..at])?;
            let c = rest[at..].chars().next().expect("found a char at `at`");
            write!(self.0, "{}", c.escape_default())?;
            rest = &rest[at + c.len_utf8()..];
        }
        self.0.write_str(rest)
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::{Registry, fmt as tfmt};

    use super::*;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Buffer {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// What `f` logs through the text layer the worker installs.
    fn logged(f: impl FnOnce()) -> String {
        let buffer = Buffer::default();
        let out = buffer.clone();
        let layer = tfmt::layer()
            .fmt_fields(EscapedFields)
            .with_ansi(false)
            .with_writer(move || out.clone());
        tracing::subscriber::with_default(Registry::default().with(layer), f);
        String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn a_value_with_a_newline_is_one_line() {
        let scope = "x\nFAKE 2024-01-01T00:00:00Z ERROR forged line";
        let text = logged(|| {
            let span = tracing::info_span!("request", connector = %"c\r\nd");
            let _entered = span.enter();
            tracing::warn!(scope = %scope, quoted = ?"q\nq", "Unknown\tscope {}", "m\nn");
        });
        assert_eq!(text.matches('\n').count(), 1, "one line, ended once: {text:?}");
        assert!(text.ends_with('\n'), "{text:?}");
        for want in [
            r"scope=x\nFAKE 2024-01-01T00:00:00Z ERROR forged line",
            r#"quoted="q\nq""#,
            r"Unknown\tscope m\nn",
            r"connector=c\r\nd",
        ] {
            assert!(text.contains(want), "{want:?} missing from {text:?}");
        }
    }

    #[test]
    fn terminal_escapes_and_errors_are_escaped_too() {
        let err = io::Error::other("bad\nthing");
        let text = logged(
            || tracing::error!(name = %"\u{1b}[31mred", error = &err as &dyn std::error::Error, "x"),
        );
        assert_eq!(text.matches('\n').count(), 1, "{text:?}");
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(text.contains(r"name=\u{1b}[31mred"), "{text:?}");
        assert!(text.contains(r"error=bad\nthing"), "{text:?}");
        // Plain values are written as `DefaultFields` writes them.
        let text = logged(|| tracing::info!(n = 3, s = "str", ok = true, "plain"));
        assert!(text.trim_end().ends_with(r#"plain n=3 s="str" ok=true"#), "{text:?}");
    }
}
