#!/usr/bin/env python3
"""Shape diff for scripts/compare-kafka-connect.sh: reads the answers both workers gave to
each scenario, compares status codes and body shapes, prints the table and the summary, and
writes a report with both bodies of every scenario that differs.

A body's shape is its JSON types and key sets, recursively; the elements of an array are
merged into one shape (the union of their keys and types). Values are not compared, except
for the enumerations named in ENUM_KEYS, whose sets of values are. Keys of objects listed
as maps for a scenario (dynamic keys, such as logger names) are not compared either: their
values are merged into one shape under `*`. The side tags (wc, kc) that make connector
names unique on the shared broker are replaced by `@SIDE@` in keys.

This file only reads the results directory and prints; it never talks to a worker.

    compare-shapes.py RESULTS_DIR DELIBERATE_FILE REPORT_FILE

RESULTS_DIR holds scenarios.tsv (name, method, path, maps, lines in run order; method WAIT
for a wait between steps, whose code is ok or timeout) and, for each scenario and side,
NAME.SIDE.code and NAME.SIDE.body. DELIBERATE_FILE has lines
`scenario-glob | path-glob | reason` (path `status` is the status code). Exit status: 0 when
every difference is deliberate, 1 otherwise.
"""

import fnmatch
import json
import os
import sys

HERE, THERE = "wc", "kc"
HERE_NAME, THERE_NAME = "wasm-connect", "Kafka Connect"
# Keys whose values are an enumeration: their sets of values are compared.
ENUM_KEYS = {"state", "type", "importance", "width"}


class Shape:
    """The merged shape of one or more JSON values at one path."""

    def __init__(self):
        self.types = set()
        self.keys = {}  # object keys -> Shape
        self.items = None  # merged Shape of array elements, None when no element was seen
        self.enum = set()

    def add(self, value, key, maps, path, tag):
        if isinstance(value, dict):
            self.types.add("object")
            is_map = any(fnmatch.fnmatchcase(path or "body", m) for m in maps)
            for k, v in value.items():
                name = "*" if is_map else k.replace(tag, "@SIDE@")
                child = self.keys.setdefault(name, Shape())
                child.add(v, k, maps, join(path, name), tag)
        elif isinstance(value, list):
            self.types.add("array")
            for v in value:
                if self.items is None:
                    self.items = Shape()
                self.items.add(v, key, maps, path + "[]", tag)
        else:
            self.types.add(scalar_type(value))
            if key in ENUM_KEYS and isinstance(value, str):
                self.enum.add(value)


def scalar_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    return "string"


def join(path, key):
    return f"{path}.{key}" if path else key


def shape_of(raw, maps, tag):
    s = Shape()
    if not raw.strip():
        s.types.add("empty")
        return s
    try:
        value = json.loads(raw)
    except ValueError:
        s.types.add("text")
        return s
    s.add(value, None, maps, "", tag)
    return s


def diff(here, there, path, out):
    """Appends (path, message) for every difference; messages speak of `here`."""
    shown = path or "body"
    if here.types != there.types:
        out.append((shown, f"type {fmt(here.types)} here, {fmt(there.types)} there"))
    for k in sorted(there.keys.keys() - here.keys.keys()):
        out.append((join(path, k), "missing"))
    for k in sorted(here.keys.keys() - there.keys.keys()):
        out.append((join(path, k), "extra key"))
    for k in sorted(here.keys.keys() & there.keys.keys()):
        diff(here.keys[k], there.keys[k], join(path, k), out)
    if "array" in here.types and "array" in there.types:
        if here.items is None and there.items is not None:
            out.append((shown, "empty array here, not there"))
        elif there.items is None and here.items is not None:
            out.append((shown, "empty array there, not here"))
        elif here.items is not None:
            diff(here.items, there.items, path + "[]", out)
    if here.enum != there.enum and (here.enum or there.enum):
        only_here, only_there = here.enum - there.enum, there.enum - here.enum
        parts = []
        if only_here:
            parts.append(f"only here {fmt(only_here)}")
        if only_there:
            parts.append(f"only there {fmt(only_there)}")
        out.append((shown, "values " + ", ".join(parts)))


def fmt(values):
    return "|".join(sorted(values))


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def load_deliberate(path):
    rules = []
    for line in read(path).splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|", 2)]
        if len(parts) != 3:
            sys.exit(f"compare-shapes: bad deliberate line (want 'scenario | path | reason'): {line}")
        rules.append(parts)
    return rules


def deliberate_reason(rules, scenario, path):
    for sc, p, reason in rules:
        if fnmatch.fnmatchcase(scenario, sc) and fnmatch.fnmatchcase(path, p):
            return reason
    return None


def pretty(raw):
    try:
        return json.dumps(json.loads(raw), indent=2, sort_keys=False)
    except ValueError:
        return raw


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    results, deliberate_file, report_file = sys.argv[1:]
    rules = load_deliberate(deliberate_file)
    rows = []
    report = [
        "# Kafka Connect compatibility: scenarios that differ\n",
        f"here = {HERE_NAME}, there = {THERE_NAME}\n",
    ]
    counts = {"same": 0, "deliberate": 0, "different": 0}
    for line in read(os.path.join(results, "scenarios.tsv")).splitlines():
        name, method, path, maps = (line.split("\t") + [""] * 4)[:4]
        maps = [m for m in maps.split(",") if m]
        base = os.path.join(results, name)
        code = {s: read(f"{base}.{s}.code").strip() or "-" for s in (HERE, THERE)}
        body = {s: read(f"{base}.{s}.body") for s in (HERE, THERE)}
        diffs = []
        if code[HERE] != code[THERE]:
            diffs.append(("status", f"{code[HERE]} here, {code[THERE]} there"))
        if method != "WAIT":  # a wait's outcome is its code (ok, timeout), not the last body
            diff(shape_of(body[HERE], maps, HERE), shape_of(body[THERE], maps, THERE), "", diffs)
        notes, undeclared = [], 0
        for p, msg in diffs:
            reason = deliberate_reason(rules, name, p)
            if reason is None:
                undeclared += 1
                notes.append(f"{p}: {msg}")
            else:
                notes.append(f"{p}: {msg} (deliberate: {reason})")
        result = "same" if not diffs else "different" if undeclared else "deliberate"
        counts[result] += 1
        rows.append((name, code[HERE], code[THERE], result, notes))
        if diffs:
            report.append(f"\n## {name} ({result})\n\n`{method} {path}`: {code[HERE]} here, {code[THERE]} there\n")
            report.extend(f"- {n}\n" for n in notes)
            for side, label in ((HERE, HERE_NAME), (THERE, THERE_NAME)):
                report.append(f"\n{label} ({code[side]}):\n\n```json\n{pretty(body[side]).rstrip()}\n```\n")
    width = max([len(r[0]) for r in rows] + [8])
    print(f"{'scenario':<{width}}  {'wc':>4} {'kc':>4}  {'result':<10}  differences (here = wasm-connect, there = Kafka Connect)")
    for name, c_here, c_there, result, notes in rows:
        first = notes[0] if notes else ""
        print(f"{name:<{width}}  {c_here:>4} {c_there:>4}  {result:<10}  {first}")
        for n in notes[1:]:
            print(f"{'':<{width}}  {'':>4} {'':>4}  {'':<10}  {n}")
    with open(report_file, "w", encoding="utf-8") as f:
        f.writelines(report)
    print(
        f"{len(rows)} scenarios, {counts['same']} same, {counts['deliberate']} deliberate, "
        f"{counts['different']} different"
    )
    return 1 if counts["different"] else 0


if __name__ == "__main__":
    sys.exit(main())
