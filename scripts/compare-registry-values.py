#!/usr/bin/env python3
"""Field-by-field comparison of the records two workers read from one topic, for
scripts/compare-registry-kafka-connect.sh.

    compare-registry-values.py [--markdown] [--known FILE] TITLE HERE THERE [TITLE HERE THERE ...]

HERE is wasm-connect's FileStreamSink output (one record per line: the payload as JSON, or
a whole {"schema", "payload"} envelope); THERE is Kafka Connect's (one JsonConverter
envelope per line). Records are paired by line (one partition: both read them in order).
The fields are those of THERE's schema, nested structs flattened to dotted paths; arrays
and maps are compared whole. When HERE holds envelopes too, each field's schema must also
be the same (the type column then shows `here / there` where they differ). A file of
Avro schemas (one per line) is compared part by part: the record's attributes, then
each field, nested records flattened too.

Tables are numbered from 1 in argument order. FILE lists understood differences, one
`table | field | reason` per line: such a field prints as `known` with its reason and
does not fail. Numbers compare by value (1 and 1.0 are the same), booleans only with
booleans, strings exactly.

Prints one table per TITLE (field, type, here, there, same?: here and there list each
record's value, separated by ` | `) and the summary line `N fields, N same, N different`
(and `N known` when some are); exits 1 when a field differs and is not known, or when a
side holds another number of records or a line that is not JSON. --markdown prints the
tables as Markdown. It reads files and prints; it starts nothing.
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


def is_envelope(record):
    return isinstance(record, dict) and record.keys() == {"schema", "payload"}


def payload(record):
    return record["payload"] if is_envelope(record) else record


def leaf_schema(record, path):
    """The schema of the field at `path` in an envelope's schema, or None."""
    if not is_envelope(record):
        return None
    schema = record["schema"] or {}
    if path == "(value)":
        return schema
    for part in path.split("."):
        fields = {f["field"]: f for f in schema.get("fields", [])}
        if part not in fields:
            return None
        schema = fields[part]
    return schema


# --markdown: tables as Markdown (for docs/schema-registry-compare.md).
MARKDOWN = False


def cell(text):
    """A Markdown table cell: code, its pipes escaped."""
    return "`" + str(text).replace("|", "\\|") + "`"


def show(values, width=None):
    width = width or (80 if MARKDOWN else 48)
    text = " | ".join(json.dumps(v, ensure_ascii=False) for v in values)
    return text if len(text) <= width else text[: width - 1] + "…"


def avro_fields(schema, path=""):
    """(path, JSON) of an Avro record schema's parts: the record's own attributes, then
    each field (name left out), nested records recursively."""
    own = f"{path} (record)" if path else "(record)"
    yield own, {k: v for k, v in schema.items() if k != "fields"}
    for field in schema.get("fields", []):
        sub = f"{path}.{field['name']}" if path else field["name"]
        kind = field.get("type")
        if isinstance(kind, dict) and kind.get("type") == "record":
            yield sub, {k: v for k, v in field.items() if k not in ("name", "type")}
            yield from avro_fields(kind, sub)
        else:
            yield sub, {k: v for k, v in field.items() if k != "name"}


def envelope_rows(here_records, there):
    """(field, type, here values, there values, same) of records read as Connect data."""
    here = [payload(r) for r in here_records]
    schema = there[0]["schema"] or {}
    for path, field in leaves(schema):
        h = [pick(r, path) for r in here]
        t = [pick(payload(r), path) for r in there]
        label, equal = type_name(field), same(h, t)
        # Envelopes on both sides: each field's schema is compared too.
        theirs = [leaf_schema(r, path) for r in there]
        ours = [leaf_schema(r, path) for r in here_records]
        if all(x is not None for x in ours + theirs) and not same(ours, theirs):
            label, equal = f"{type_name(ours[0])} / {label}", False
        yield path, label, h, t, equal


def avro_rows(here_records, there):
    """The rows of Avro schema texts, one record per schema: part by part."""
    here = [dict(avro_fields(r)) for r in here_records]
    theirs = [dict(avro_fields(r)) for r in there]
    paths = list(dict.fromkeys([p for r in theirs for p in r] + [p for r in here for p in r]))
    for path in paths:
        h = [r.get(path) for r in here]
        t = [r.get(path) for r in theirs]
        yield path, "avro record" if path.endswith("(record)") else "avro field", h, t, same(h, t)


def compare(number, title, here_path, there_path, known, problems):
    """Prints table NUMBER; returns the count of each outcome (yes, NO, known)."""
    here_records = read(here_path, problems)
    there = read(there_path, problems)
    if len(here_records) != len(there):
        problems.append(f"{title}: {len(here_records)} records here, {len(there)} there")
    if not there or not here_records:
        problems.append(f"{title}: no records {'there' if not there else 'here'}")
        return {}
    if is_envelope(there[0]):
        rows, what = envelope_rows(here_records, there), "records"
    else:
        rows, what = avro_rows(here_records, there), "schemas"
    table, notes = [], []
    for path, label, h, t, equal in rows:
        reason = known.get((number, path))
        outcome = "yes" if equal else ("known" if reason else "NO")
        if outcome == "known":
            notes.append(f"  known: {path}: {reason}")
        table.append((path, label, show(h), show(t), outcome))
    head = ("field", "type", "here (wasm-connect)", "there (Kafka Connect)", "same?")
    what = what if len(there) != 1 else what[:-1]
    print(f"\n{number}. {title} ({len(there)} {what})")
    if MARKDOWN:
        print()
        for row in [head, ("---",) * 5] + table:
            plain = row[0] in ("field", "---")
            cells = [c if plain else cell(c) for c in row[:4]] + [row[4]]
            print("| " + " | ".join(cells) + " |")
        print()
    else:
        widths = [max(len(str(r[i])) for r in table + [head]) for i in range(4)]
        for row in [head] + table:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)) + "  " + row[4])
    print("\n".join(notes), end="\n" if notes else "")
    counts = {}
    for row in table:
        counts[row[4]] = counts.get(row[4], 0) + 1
    return counts


def read_known(path):
    """`table | field | reason` lines: differences that are understood and do not fail."""
    known = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            parts = [p.strip() for p in line.split("|", 2)]
            if len(parts) == 3 and not line.lstrip().startswith("#"):
                known[(parts[0], parts[1])] = parts[2]
    return known


def main(args):
    global MARKDOWN
    known = {}
    if args and args[0] == "--markdown":
        MARKDOWN, args = True, args[1:]
    if len(args) >= 2 and args[0] == "--known":
        known, args = read_known(args[1]), args[2:]
    if not args or len(args) % 3:
        sys.exit(__doc__)
    problems, total = [], {}
    for i in range(0, len(args), 3):
        counts = compare(str(i // 3 + 1), *args[i : i + 3], known, problems)
        for outcome, n in counts.items():
            total[outcome] = total.get(outcome, 0) + n
    for problem in problems:
        print(f"problem: {problem}")
    fields = sum(total.values())
    summary = f"{fields} fields, {total.get('yes', 0)} same, {total.get('NO', 0)} different"
    if total.get("known"):
        summary += f", {total['known']} known (not counted as different; see the notes)"
    print(f"\n{summary}")
    return 1 if problems or total.get("NO") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
