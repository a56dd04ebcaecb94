"""PyRedact: a single message transform written with the wasm-connect Python SDK, the
same as the Rust `Redact` and the JavaScript `JsRedact`.

For records whose value is a JSON object (kind json, or the struct payload of a
connect-json value): `redact.fields` are replaced by `redact.replacement`, `route.field`
(when present and not null) moves the record to `<topic>.<field value as text>`, and
`drop.field` equal to JSON true drops it. Routing and dropping read the value as it
arrived. A null value passes unchanged; any other value that is not a JSON object fails
that record with a reason naming its kind.

This module owns the example's behaviour only; everything about the contract is the
SDK's. Build: see README.md.
"""

import json

from wasm_connect import ConfigDef, ConfigType, Fail, Importance, Kind, Transform, export_transform

CONFIG = (
    ConfigDef()
    .define("redact.fields", ConfigType.LIST, importance=Importance.HIGH, doc="Fields of the value to replace by redact.replacement.")
    .define("redact.replacement", ConfigType.STRING, default="****", doc="The string a redacted field gets.")
    .define("route.field", ConfigType.STRING, default=None, doc="A field of the value: when present, the record goes to <topic>.<its value>.")
    .define("drop.field", ConfigType.STRING, default=None, doc="A field of the value: when it is true, the record is dropped.")
)


def kind_name(kind):
    """The kind as the WIT documentation spells it: bytes, string, json, connect-json."""
    return kind.name.lower().replace("_", "-")


def type_name(value):
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def dumps(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def read_object(record):
    """(fields, envelope) of the record's value, None for a null value, or a Fail."""
    if record.value is None:
        return None
    kind = kind_name(record.value_kind)
    if record.value_kind not in (Kind.JSON, Kind.CONNECT_JSON):
        return Fail(f"a value of kind {kind} is not a JSON object")
    try:
        value = json.loads(record.value)
    except ValueError as e:
        return Fail(f"a value of kind {kind} is not valid JSON: {e}")
    envelope = None
    if record.value_kind == Kind.CONNECT_JSON:
        if not isinstance(value, dict):
            return Fail(f"a value of kind {kind} is not a schema envelope")
        envelope, value = value, value.get("payload")
    if value is None:
        return None
    if not isinstance(value, dict):
        return Fail(f"a value of kind {kind} is not a JSON object but {type_name(value)}")
    return value, envelope


def string_schema(envelope, field):
    """In a connect-json envelope, the schema of `field` becomes a string schema."""
    schema = envelope.get("schema")
    fields = schema.get("fields") if isinstance(schema, dict) else None
    if not isinstance(fields, list):
        return
    for i, f in enumerate(fields):
        if isinstance(f, dict) and f.get("field") == field:
            fields[i] = {"type": "string", "optional": f.get("optional", False), "field": field}


class Redact(Transform):
    name = "PyRedact"
    version = "0.1.0"
    config_def = CONFIG

    def configure(self, config):
        self.fields = config["redact.fields"]
        self.replacement = config["redact.replacement"]
        self.route_field = (config["route.field"] or "").strip() or None
        self.drop_field = (config["drop.field"] or "").strip() or None

    def apply(self, record):
        read = read_object(record)
        if read is None:
            return record
        if isinstance(read, Fail):
            return read
        fields, envelope = read
        if self.drop_field is not None and fields.get(self.drop_field) is True:
            return None
        route = fields.get(self.route_field) if self.route_field is not None else None
        if route is not None:
            record.topic = f"{record.topic}.{route if isinstance(route, str) else dumps(route)}"
        redacted = False
        for field in self.fields:
            if field in fields:
                fields[field] = self.replacement
                if envelope is not None:
                    string_schema(envelope, field)
                redacted = True
        if redacted:
            if envelope is None:
                record.value = dumps(fields).encode("utf-8")
            else:
                body = dumps({"schema": envelope.get("schema"), "payload": fields})
                record.value = body.encode("utf-8")
        return record


export_transform(Redact)
