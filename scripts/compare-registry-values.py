#!/usr/bin/env python3
"""Field-by-field comparison of the records two workers read from one topic, for
scripts/compare-registry-kafka-connect.sh.

    compare-registry-values.py TITLE HERE THERE [TITLE HERE THERE ...]

HERE is wasm-connect's FileStreamSink output (one record per line: the payload as JSON, or
a whole {"schema", "payload"} envelope); THERE is Kafka Connect's (one JsonConverter
envelope per line). Records are paired by line (one partition: both read them in order).
The fields are those of THERE's schema, nested structs flattened to dotted paths; arrays
and maps are compared whole. Numbers compare by value (1 and 1.0 are the same), booleans
only with booleans, strings exactly.

Prints one table per TITLE (field, type, here, there, same?: here and there list each
record's value, separated by ` | `) and the summary line `N fields, N same, N different`;
exits 1 when a field differs, or when a side holds another number of records or a line
that is not JSON. It reads files and prints; it starts nothing.
"""

import json
import sys


def same(a, b):
    """Strict JSON equality: numbers by value, booleans apart from numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def type_name(schema):
    """A short label of a Connect schema in JsonConverter's JSON form."""
    name = schema.get("name") or ""
    kind = schema.get("type")
    if name.startswith("org.apache.kafka.connect.data."):
        label = name.rsplit(".", 1)[1]
        scale = (schema.get("parameters") or {}).get("scale")
        if scale is not None:
            label += f"(scale={scale})"
    elif kind == "array":
        label = f"array<{type_name(schema['items'])}>"
    elif kind == "map":
        label = f"map<{type_name(schema['keys'])},{type_name(schema['values'])}>"
    elif kind == "struct":
        label = f"struct {name}".strip()
    else:
        label = kind
    return ("optional " if schema.get("optional") else "") + label


def leaves(schema, path=""):
    """(path, schema) of each compared field: struct fields recursively, else the value."""
    if schema.get("type") == "struct":
        for field in schema.get("fields", []):
            yield from leaves(field, f"{path}.{field['field']}" if path else field["field"])
    else:
        yield path or "(value)", schema


def pick(value, path):
    """The value at a dotted path; None below a null struct."""
    if path == "(value)":
        return value
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def read(path, problems):
    records = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as e:
                problems.append(f"{path}:{number}: not JSON ({e}): {line.strip()[:120]}")
    return records


def payload(record):
    if isinstance(record, dict) and record.keys() == {"schema", "payload"}:
        return record["payload"]
    return record


def show(values, width=48):
    text = " | ".join(json.dumps(v, ensure_ascii=False) for v in values)
    return text if len(text) <= width else text[: width - 1] + "…"


def compare(title, here_path, there_path, problems):
    """Prints TITLE's table; returns (fields, same)."""
    here = [payload(r) for r in read(here_path, problems)]
    there = read(there_path, problems)
    if len(here) != len(there):
        problems.append(f"{title}: {len(here)} records here, {len(there)} there")
    if not there:
        return 0, 0
    schema = there[0].get("schema") or {}
    rows = []
    for path, field in leaves(schema):
        h = [pick(r, path) for r in here]
        t = [pick(payload(r), path) for r in there]
        rows.append((path, type_name(field), show(h), show(t), same(h, t)))
    head = ("field", "type", "here (wasm-connect)", "there (Kafka Connect)", "same?")
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(4)]
    print(f"\n{title}: {len(there)} records, schema {schema.get('name') or schema.get('type')}")
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)) + "  " + head[4])
    for row in rows:
        cells = [str(c).ljust(w) for c, w in zip(row, widths)]
        print("  ".join(cells) + "  " + ("yes" if row[4] else "NO"))
    return len(rows), sum(1 for r in rows if r[4])


def main(args):
    if not args or len(args) % 3:
        sys.exit(__doc__)
    problems, fields, equal = [], 0, 0
    for i in range(0, len(args), 3):
        n, s = compare(*args[i : i + 3], problems)
        fields, equal = fields + n, equal + s
    for problem in problems:
        print(f"problem: {problem}")
    print(f"\n{fields} fields, {equal} same, {fields - equal} different")
    return 1 if problems or equal != fields else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
