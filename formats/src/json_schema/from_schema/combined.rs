//! `oneOf`, `anyOf` and `allOf` (and everit's synthetic ones), read as Confluent's
//! `JsonSchemaData` reads `CombinedSchema`. It owns the union and merge rules only.

use std::sync::Arc;

use wasm_connect_transforms::data::schemaless::json::Json;
use wasm_connect_transforms::data::{Field, Schema};

use super::{Reading, Union, get, has, is_null_schema, resolve, unsupported};
use crate::FormatError;
use crate::json_schema::java_order;
use crate::json_schema::names::*;

impl<'a> Reading<'a> {
    /// `oneOf`/`anyOf`: null and one schema is that schema optional, one schema is that
    /// schema, anything else the union STRUCT (still to be finished by the caller).
    pub(super) fn union(&mut self, members: &[Json]) -> Result<Union, FormatError> {
        if members.len() == 1 && self.options.flatten_singleton_unions {
            return self.convert(&members[0], false).map(Union::Done);
        }
        if members.len() == 2
            && let Some(i) = members.iter().position(is_null_schema)
        {
            return self.convert(&members[1 - i], true).map(Union::Done);
        }
        let name = if self.options.generalized_sum_types {
            self.unions += 1;
            format!("{UNION_PREFIX}{}", self.unions - 1)
        } else {
            ONE_OF.to_owned()
        };
        let mut schema = Schema::structure().named(name.clone());
        if self.options.generalized_sum_types {
            schema.parameters.push((GENERALIZED_UNION.to_owned(), name.clone()));
        }
        for member in members {
            if is_null_schema(member) {
                schema.optional = true;
                continue;
            }
            let field_name = if self.options.generalized_sum_types {
                format!("{UNION_FIELD_PREFIX}{}", schema.fields.len())
            } else {
                format!("{name}.field.{}", schema.fields.len())
            };
            let member = self.convert(member, true)?;
            let index = schema.fields.len();
            schema.fields.push(Field { name: field_name, index, schema: Arc::new(member) });
        }
        Ok(Union::Struct(schema))
    }

    /// `allOf`: the merged properties of its object members, else its one union member,
    /// else a string or number member that a `const`, `enum` or `format` qualifies.
    pub(super) fn all_of(
        &mut self,
        members: &[Json],
        force_optional: bool,
    ) -> Result<Schema, FormatError> {
        let mut properties: Vec<(String, &Json, bool)> = Vec::new();
        let mut visited: Vec<*const Json> = Vec::new();
        for member in members {
            self.collect_properties(member, &mut properties, &mut visited)?;
        }
        if !properties.is_empty() {
            let mut schema = Schema::structure();
            for (name, property, required) in properties {
                let optional = self.options.optional_for_nonrequired && !required;
                let field_schema = Arc::new(self.convert(property, optional)?);
                match schema.fields.iter_mut().find(|f| f.name == name) {
                    Some(f) => f.schema = field_schema,
                    None => {
                        let index = schema.fields.len();
                        schema.fields.push(Field { name, index, schema: field_schema });
                    }
                }
            }
            schema.optional = force_optional;
            return Ok(schema);
        }
        let find = |pred: &dyn Fn(&Json) -> bool| members.iter().rev().find(|m| pred(m));
        let type_is = |m: &Json, t: &[&str]| matches!(get(m, "type"), Some(Json::String(s)) if t.contains(&s.as_str()));
        let combined = find(&|m| has(m, &["allOf", "anyOf", "oneOf"]));
        let number = find(&|m| type_is(m, &["number", "integer"]));
        let string = find(&|m| type_is(m, &["string"]));
        let constant = find(&|m| m.get("const").is_some());
        let enumeration = find(&|m| m.get("enum").is_some());
        let reference = find(&|m| m.get("$ref").is_some());
        let chosen = if combined.is_some() {
            combined
        } else if constant.is_some() {
            string.or(number)
        } else if enumeration.is_some() {
            if string.is_some() { enumeration } else { number }
        } else if string.is_some_and(|s| s.get("format").is_some()) {
            number.or(string)
        } else {
            reference
        };
        match chosen {
            Some(member) => self.convert(member, force_optional),
            None => unsupported("Unsupported criterion allOf"),
        }
    }

    fn collect_properties<'j>(
        &self,
        member: &'j Json,
        out: &mut Vec<(String, &'j Json, bool)>,
        visited: &mut Vec<*const Json>,
    ) -> Result<(), FormatError>
    where
        'a: 'j,
    {
        if visited.contains(&(member as *const Json)) {
            return Ok(());
        }
        visited.push(member as *const Json);
        if let Some(Json::String(pointer)) = get(member, "$ref") {
            let target: &'j Json = resolve(self.root, pointer)?;
            return self.collect_properties(target, out, visited);
        }
        if let Some(Json::Array(subs)) = get(member, "allOf") {
            for sub in subs {
                self.collect_properties(sub, out, visited)?;
            }
        }
        if let Some(Json::Object(entries)) = get(member, "properties") {
            let required: Vec<&str> = match get(member, "required") {
                Some(Json::Array(names)) => names
                    .iter()
                    .filter_map(|n| match n {
                        Json::String(s) => Some(s.as_str()),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let ordered = java_order::hash_map(java_order::hash_map(
                entries.iter().map(|(k, v)| (k.clone(), v)).collect(),
            ));
            for (name, property) in ordered {
                let is_required = required.contains(&name.as_str());
                match out.iter_mut().find(|(n, _, _)| *n == name) {
                    Some(e) => *e = (name, property, is_required),
                    None => out.push((name, property, is_required)),
                }
            }
        }
        Ok(())
    }
}
