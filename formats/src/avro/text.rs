//! Writing the [`AvroSchema`] model as compact JSON text in the layout of Avro Java's
//! `Schema.toString()`: attributes first, then properties in order; a named type already
//! written is a name reference, short when in the enclosing namespace. This module owns
//! the text layout only.

use super::json::{Json, write_json, write_str};
use super::model::{AvroSchema, Body, Kind, Node};

impl AvroSchema {
    /// The schema as compact JSON text, in the layout of Java's `Schema.toString()`.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let mut written = vec![false; self.named.len()];
        self.write_node(&mut out, &self.root, None, &mut written);
        out
    }

    fn write_node(&self, out: &mut String, node: &Node, space: Option<&str>, done: &mut [bool]) {
        let simple = |out: &mut String, name: &str, props: &[(String, Json)]| {
            if props.is_empty() {
                write_str(out, name);
            } else {
                out.push_str("{\"type\":");
                write_str(out, name);
                write_props(out, props);
                out.push('}');
            }
        };
        match &node.kind {
            Kind::Null => simple(out, "null", &node.props),
            Kind::Boolean => simple(out, "boolean", &node.props),
            Kind::Int => simple(out, "int", &node.props),
            Kind::Long => simple(out, "long", &node.props),
            Kind::Float => simple(out, "float", &node.props),
            Kind::Double => simple(out, "double", &node.props),
            Kind::Bytes => simple(out, "bytes", &node.props),
            Kind::String => simple(out, "string", &node.props),
            Kind::Array(items) => {
                out.push_str("{\"type\":\"array\",\"items\":");
                self.write_node(out, items, space, done);
                write_props(out, &node.props);
                out.push('}');
            }
            Kind::Map(values) => {
                out.push_str("{\"type\":\"map\",\"values\":");
                self.write_node(out, values, space, done);
                write_props(out, &node.props);
                out.push('}');
            }
            Kind::Union(branches) => {
                out.push('[');
                for (i, b) in branches.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.write_node(out, b, space, done);
                }
                out.push(']');
            }
            Kind::Named(i) => self.write_named(out, *i, space, done),
        }
    }

    fn write_named(&self, out: &mut String, index: usize, space: Option<&str>, done: &mut [bool]) {
        let named = &self.named[index];
        if done[index] {
            let short = named.namespace.as_deref() == space;
            write_str(out, &if short { named.name.clone() } else { named.full_name() });
            return;
        }
        done[index] = true;
        let ty = match named.body {
            Body::Record(_) => "record",
            Body::Enum { .. } => "enum",
            Body::Fixed(_) => "fixed",
        };
        out.push_str("{\"type\":\"");
        out.push_str(ty);
        out.push_str("\",\"name\":");
        write_str(out, &named.name);
        match (&named.namespace, space) {
            (Some(ns), s) if Some(ns.as_str()) != s => {
                out.push_str(",\"namespace\":");
                write_str(out, ns);
            }
            (None, Some(_)) => out.push_str(",\"namespace\":\"\""),
            _ => {}
        }
        if let Some(doc) = &named.doc {
            out.push_str(",\"doc\":");
            write_str(out, doc);
        }
        match &named.body {
            Body::Record(fields) => {
                out.push_str(",\"fields\":[");
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str("{\"name\":");
                    write_str(out, &f.name);
                    out.push_str(",\"type\":");
                    self.write_node(out, &f.node, named.namespace.as_deref(), done);
                    if let Some(doc) = &f.doc {
                        out.push_str(",\"doc\":");
                        write_str(out, doc);
                    }
                    if let Some(default) = &f.default {
                        out.push_str(",\"default\":");
                        write_json(out, default);
                    }
                    write_props(out, &f.props);
                    out.push('}');
                }
                out.push(']');
            }
            Body::Enum { symbols, default } => {
                out.push_str(",\"symbols\":[");
                for (i, s) in symbols.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, s);
                }
                out.push(']');
                if let Some(d) = default {
                    out.push_str(",\"default\":");
                    write_str(out, d);
                }
            }
            Body::Fixed(size) => {
                out.push_str(",\"size\":");
                out.push_str(&size.to_string());
            }
        }
        write_props(out, &named.props);
        out.push('}');
    }
}

fn write_props(out: &mut String, props: &[(String, Json)]) {
    for (k, v) in props {
        out.push(',');
        write_str(out, k);
        out.push(':');
        write_json(out, v);
    }
}
