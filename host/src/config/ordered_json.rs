//! [`Node`]: a JSON value whose objects keep their keys in file order (`serde_json::Value`
//! sorts them, and the `preserve_order` feature is not enabled in this workspace).
//!
//! Only what connector files need: arrays keep no contents, and a repeated object key keeps
//! its first position and its last value, as Jackson does.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A parsed JSON value.
#[derive(Debug, PartialEq)]
pub(super) enum Node {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    /// An array; its contents are not kept.
    Array,
    /// An object, keys in file order.
    Object(Vec<(String, Node)>),
}

impl Node {
    /// What a user calls this kind of value, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Bool(_) => "a boolean",
            Self::Number(_) => "a number",
            Self::String(_) => "a string",
            Self::Array => "an array",
            Self::Object(_) => "an object",
        }
    }

    /// The value as a config string: strings as they are, numbers and booleans in their
    /// JSON spelling (as Kafka Connect's REST layer coerces them); `None` for the rest.
    pub fn into_config_string(self) -> Result<String, Self> {
        match self {
            Self::String(s) => Ok(s),
            Self::Number(n) => Ok(n.to_string()),
            Self::Bool(b) => Ok(b.to_string()),
            other => Err(other),
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Node, E> {
        Ok(Node::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Node, E> {
        Ok(Node::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Node, E> {
        Ok(Node::Number(n.into()))
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Node, E> {
        serde_json::Number::from_f64(n).map(Node::Number).ok_or_else(|| E::custom("not a number"))
    }

    fn visit_str<E>(self, s: &str) -> Result<Node, E> {
        Ok(Node::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Node, E> {
        Ok(Node::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Node::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries: Vec<(String, Node)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Node>()? {
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key, value)),
            }
        }
        Ok(Node::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::Node;

    #[test]
    fn objects_keep_file_order_and_last_duplicate() {
        let node: Node =
            serde_json::from_str(r#"{"z": 1, "a": [1, {}], "m": {"y": null}, "z": true}"#).unwrap();
        let Node::Object(entries) = node else { panic!("object") };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["z", "a", "m"]);
        assert_eq!(entries[0].1, Node::Bool(true));
        assert_eq!(entries[1].1, Node::Array);
        assert_eq!(entries[2].1, Node::Object(vec![("y".into(), Node::Null)]));
    }

    #[test]
    fn scalars_become_config_strings() {
        let s = |json: &str| serde_json::from_str::<Node>(json).unwrap().into_config_string();
        assert_eq!(s(r#""x""#), Ok("x".to_owned()));
        assert_eq!(s("10"), Ok("10".to_owned()));
        assert_eq!(s("-3"), Ok("-3".to_owned()));
        assert_eq!(s("1.5"), Ok("1.5".to_owned()));
        assert_eq!(s("false"), Ok("false".to_owned()));
        assert_eq!(s("null"), Err(Node::Null));
    }
}
