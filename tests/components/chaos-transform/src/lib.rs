//! `ChaosTransform`: a host test fixture. It passes every record unchanged, except:
//!
//! - `chaos.fail.field`: a record whose JSON value (kind `json`, or a `connect-json`
//!   envelope's payload) is an object with this field fails, reason `told to fail`;
//! - `chaos.trap.field`: a record whose JSON value has this field makes `apply` panic
//!   (the component traps);
//! - `chaos.configure.fail` (boolean): `configure` returns a config error;
//! - `chaos.apply.error` (boolean): every `apply` returns `err(fatal)`.
//!
//! It owns nothing but those switches and must stay predictable: the host's tests rely on
//! each one doing exactly this.

use wasm_connect_sdk::serde_json::{self, Value};
use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Error, Kind, Result, SinkRecord, Transform, TransformResult,
    export_transform,
};

/// The transform and its switches.
#[derive(Default)]
pub struct ChaosTransform {
    fail_field: Option<String>,
    trap_field: Option<String>,
    apply_error: bool,
}

impl Transform for ChaosTransform {
    fn name(&self) -> &str {
        "ChaosTransform"
    }

    fn version(&self) -> &str {
        // `scripts/build-guests.sh` builds copies that report other versions (KIP-891 tests).
        option_env!("CHAOS_PLUGIN_VERSION").unwrap_or(env!("CARGO_PKG_VERSION"))
    }

    fn config_definition(&self) -> ConfigDef {
        ConfigDef::new()
            .define(ConfigKey::string("chaos.fail.field").doc("Fail records whose value has it."))
            .define(
                ConfigKey::string("chaos.trap.field").doc("Trap on records whose value has it."),
            )
            .define(
                ConfigKey::boolean("chaos.configure.fail")
                    .default_value(false)
                    .doc("Fail configure with a config error."),
            )
            .define(
                ConfigKey::boolean("chaos.apply.error")
                    .default_value(false)
                    .doc("Fail every apply with a fatal error."),
            )
    }

    fn configure(&mut self, config: Config) -> Result<()> {
        if config.get_bool("chaos.configure.fail")?.unwrap_or(false) {
            return Err(Error::config("chaos.configure.fail is set"));
        }
        let field = |key| config.get(key).filter(|s| !s.is_empty()).map(str::to_owned);
        self.fail_field = field("chaos.fail.field");
        self.trap_field = field("chaos.trap.field");
        self.apply_error = config.get_bool("chaos.apply.error")?.unwrap_or(false);
        Ok(())
    }

    fn apply(&mut self, record: SinkRecord) -> Result<TransformResult> {
        if self.apply_error {
            return Err(Error::fatal("chaos.apply.error is set"));
        }
        let has = |field: &Option<String>| {
            field.as_ref().is_some_and(|f| object(&record).is_some_and(|o| o.get(f).is_some()))
        };
        if has(&self.trap_field) {
            panic!("chaos.trap.field is in the record");
        }
        if has(&self.fail_field) {
            return Ok(TransformResult::fail("told to fail"));
        }
        Ok(TransformResult::Keep(record))
    }
}

/// The JSON object `record`'s value holds, if it holds one.
fn object(record: &SinkRecord) -> Option<serde_json::Map<String, Value>> {
    let value: Value = serde_json::from_slice(record.value.as_deref()?).ok()?;
    let data = match record.value_kind {
        Kind::Json => value,
        Kind::ConnectJson => value.get("payload")?.clone(),
        Kind::Bytes | Kind::String => return None,
    };
    match data {
        Value::Object(o) => Some(o),
        _ => None,
    }
}

export_transform!(ChaosTransform);

#[cfg(test)]
mod tests {
    use wasm_connect_sdk::serde_json::json;
    use wasm_connect_sdk::testing::TransformHarness;

    use super::*;

    #[test]
    fn fails_by_field_and_passes_the_rest_unchanged() {
        let mut t = TransformHarness::<ChaosTransform>::new();
        t.configure(Config::new().with("chaos.fail.field", "bad")).unwrap();
        let records = t.json_records("t", 0, [json!({"bad": 1}), json!({"ok": 1}), json!(2)]);
        let out = t.apply(&records).unwrap();
        assert_eq!(out.origins, [1, 2]);
        assert_eq!(out.records, records[1..]);
        assert_eq!(out.failures[0].index, 0);
        assert_eq!(out.failures[0].reason, "told to fail");
    }

    #[test]
    fn configure_and_apply_fail_on_demand() {
        let mut t = TransformHarness::<ChaosTransform>::new();
        let err = t.configure(Config::new().with("chaos.configure.fail", "true")).unwrap_err();
        assert!(matches!(err, Error::Config(_)), "{err:?}");
        t.configure(Config::new().with("chaos.apply.error", "true")).unwrap();
        let records = t.json_records("t", 0, [json!({})]);
        assert!(matches!(t.apply(&records), Err(Error::Fatal(_))));
    }

    #[test]
    #[should_panic(expected = "chaos.trap.field")]
    fn traps_on_the_trap_field() {
        let mut t = TransformHarness::<ChaosTransform>::new();
        t.configure(Config::new().with("chaos.trap.field", "boom")).unwrap();
        let records = t.json_records("t", 0, [json!({"ok": 1}), json!({"boom": true})]);
        let _ = t.apply(&records);
    }
}
