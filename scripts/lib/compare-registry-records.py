#!/usr/bin/env python3
"""The records Kafka Connect writes in scripts/compare-registry-kafka-connect.sh (direction
1): JSON envelope lines ({"schema", "payload"}, as JsonConverter with schemas.enable=true
reads them) of the struct `compare.AllTypes`, which holds every Connect type: int8..float64,
boolean, string, bytes, optional fields set and null, Decimal with and without a precision,
Date, Time, Timestamp, an array, maps with string and int keys, a nested optional struct,
defaults, docs and parameters. Edge values: each integer type's minimum and maximum, empty
strings, arrays and maps, escapes and non-ASCII text, dates and times before the epoch.

    compare-registry-records.py OUT    writes the lines to OUT

formats/src/avro/tests/apicurio.rs holds this schema and the second record too: change
them together.
"""
import json, sys
def f(field, type_, optional=False, **extra):
    return {"field": field, "type": type_, "optional": optional, **extra}
logical = lambda n: {"name": "org.apache.kafka.connect.data." + n, "version": 1}
schema = {"type": "struct", "name": "compare.AllTypes", "optional": False, "version": 2, "fields": [
    f("i8", "int8"), f("i16", "int16"), f("i32", "int32"), f("i64", "int64"),
    f("f32", "float"), f("f64", "double"), f("flag", "boolean"), f("text", "string"),
    f("raw", "bytes"), f("maybe", "string", True), f("maybe_long", "int64", True),
    f("amount", "bytes", parameters={"scale": "2"}, **logical("Decimal")),
    f("day", "int32", **logical("Date")), f("clock", "int32", **logical("Time")),
    f("at", "int64", **logical("Timestamp")),
    f("tags", "array", items={"type": "string", "optional": False}),
    f("counts", "map", keys={"type": "string", "optional": False}, values={"type": "int32", "optional": False}),
    f("names", "map", keys={"type": "int32", "optional": False}, values={"type": "string", "optional": True}),
    f("inner", "struct", True, name="compare.Inner", fields=[f("id", "int32"), f("note", "string", True)]),
    f("level", "int32", default=5, doc="a documented field with a default"),
    f("label", "string", True, default="dflt"),
    f("origin", "string", parameters={"source": "compare", "kind": "tag"}),
    f("price", "bytes", parameters={"scale": "3", "connect.decimal.precision": "10"}, **logical("Decimal")),
], "doc": "every Connect type"}
rows = [
    [-128, -32768, -2147483648, -9223372036854775808, -1.5, -1e300, False, "", "", None, None,
     "+w==", 0, 0, 0, [], {}, [], None, 0, None, "", "AA=="],
    [127, 32767, 2147483647, 9223372036854775807, 3.25, 2.5e-300, True, "héllo \"wörld\"\n\t\u00e9",
     "AAH/", "set", 42, "MDk=", 20794, 3723456, 1796605323456, ["a", "b,c", ""],
     {"x": 1, "y": -2}, [[1, "one"], [2, None]], {"id": 7, "note": "nested"}, 5, "set", "x", "AeI="],
    [0, 0, 0, 0, 0.1, 0.1, True, "plain", "/w==", "", -1, "AA==", -1, 86399999, -1,
     ["only"], {"": 0}, [[-3, "minus three"]], {"id": -7, "note": None}, -1, "", "y", "/w=="],
]
with open(sys.argv[1], "w") as out:
    for row in rows:
        payload = {fd["field"]: v for fd, v in zip(schema["fields"], row)}
        out.write(json.dumps({"schema": schema, "payload": payload}, ensure_ascii=False) + "\n")
