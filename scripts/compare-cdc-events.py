#!/usr/bin/env python3
"""Event-by-event comparison of two change-data-capture captures, as scripts/compare-debezium.sh
writes them (one `<topic>.jsonl` per topic, lines of scripts/lib/TopicDump.java: topic, offset,
key, value, headers). Owns the normalisation (prefix mapping, masking) and the verdicts; it
runs nothing and reads no broker.

    compare-cdc-events.py REF_DIR OURS_DIR [--from dbz --to wc] [--deliberate FILE] [--report FILE]
    compare-cdc-events.py --takeover BEFORE_DIR AFTER_DIR --expect SQL [--report FILE]

Compare: REF_DIR holds the reference (Debezium, topics `dbz.*`), OURS_DIR wasm-connect's
(`wc.*`). In the reference, every string `dbz` or starting with `dbz.` (topic and schema names,
`source.name`, the logical-name header) becomes `wc...`. Keys and values are parsed JSON
(JsonConverter envelopes), headers a map of name to value. The fields in MASKED are volatile
and set to "<masked>" on both sides before comparing. Each topic's records are aligned by
(key, op, row) with difflib, so one missing record does not shift every later one; aligned
records are compared leaf by leaf (paths such as `value.payload.after.c_date`; schema field
lists are keyed by field name: `value.schema.fields.after.fields.c_date.type`). A record is
`same`, `deliberate` (every differing path matches a DELIBERATE line `topic-glob | path-glob |
reason`), or `different`; a record on one side only is `missing` or `extra` (path `<record>`).
Prints a table per topic and a summary; exits 1 on any difference that is not deliberate. The
report (Markdown) lists every differing path with both values.

Take-over: BEFORE_DIR is the capture made before the hand-over, AFTER_DIR the one after. For
each data topic (not `*.transaction`, `*.message`): its first records are BEFORE's unchanged;
the new records hold no snapshot read (`op: r`); no change event appears twice (same
source.lsn, op and key); the new change events per (table, op) are exactly the `-- expect:
TABLE OP COUNT` lines of the SQL file. Exits 1 when one check fails.
"""
import argparse, difflib, fnmatch, json, os, re, sys

# Volatile fields: (topic-glob, path-glob, why). Masked on both sides when present.
MASKED = [
    ("*", "value.payload.ts_ms", "processing time"),
    ("*", "value.payload.ts_us", "processing time"),
    ("*", "value.payload.ts_ns", "processing time"),
    ("*", "value.payload.source.ts_ms", "commit time of the run's transactions"),
    ("*", "value.payload.source.ts_us", "commit time"),
    ("*", "value.payload.source.ts_ns", "commit time"),
    ("*", "value.payload.source.lsn", "WAL position: each side has its own slot, same WAL though"),
    ("*", "value.payload.source.sequence", "WAL positions"),
    ("*", "value.payload.source.txId", "transaction ids"),
    ("*", "value.payload.source.xmin", "transaction ids"),
    ("*", "value.payload.transaction.id", "txId:lsn"),
    ("*.transaction", "key.payload.id", "txId:lsn"),
    ("*.transaction", "value.payload.id", "txId:lsn"),
    ("*", "headers.__debezium.context.runId", "a random id per task run"),
]
# Debezium names a logical-decoding message's data collection by a Java object's identity hash
# (masked as `@<hash>`), and lists a transaction's data collections in a HashMap's order, which
# that hash changes from run to run: they are compared sorted by name.
HASHED = re.compile(r"(LogicalDecodingMessageId)@[0-9a-f]+")


def load(directory):
    topics = {}
    for name in sorted(os.listdir(directory) if os.path.isdir(directory) else []):
        if name.endswith(".jsonl"):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                topics[name[: -len(".jsonl")]] = [json.loads(line) for line in f if line.strip()]
    return topics


def parse(text):
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def rename(v, src, dst):
    if isinstance(v, str):
        if v == src or v.startswith(src + "."):
            return dst + v[len(src):]
        return HASHED.sub(r"\1@<hash>", v)
    if isinstance(v, list):
        return [rename(x, src, dst) for x in v]
    if isinstance(v, dict):
        return {k: rename(x, src, dst) for k, x in v.items()}
    return v


def record(raw, src=None, dst=None):
    r = {"key": parse(raw["key"]), "value": parse(raw["value"]), "headers": {h[0]: parse(h[1]) for h in raw["headers"]}}
    r = rename(r, src, dst) if src else rename(r, "\0", "\0")
    payload = r["value"].get("payload") if isinstance(r["value"], dict) else None
    if isinstance(payload, dict) and isinstance(payload.get("data_collections"), list):
        payload["data_collections"].sort(key=lambda d: json.dumps(d, sort_keys=True))
    return r


def flatten(v, path, out):
    if isinstance(v, dict):
        if not v:
            out[path] = {}
        for k, x in v.items():
            if k == "fields" and isinstance(x, list) and all(isinstance(f, dict) and "field" in f for f in x):
                for f in x:
                    flatten(f, f"{path}.fields.{f['field']}", out)
            else:
                flatten(x, f"{path}.{k}" if path else k, out)
    elif isinstance(v, list):
        if not v:
            out[path] = []
        for i, x in enumerate(v):
            flatten(x, f"{path}[{i}]", out)
    else:
        out[path] = v
    return out


def masked(topic, flat):
    for path in flat:
        if any(fnmatch.fnmatchcase(topic, t) and fnmatch.fnmatchcase(path, p) for t, p, _ in MASKED):
            flat[path] = "<masked>"
    return flat


def signature(r):
    p = (r["value"] or {}).get("payload") if isinstance(r["value"], dict) else r["value"]
    k = r["key"].get("payload") if isinstance(r["key"], dict) else r["key"]
    row = [p.get(x) for x in ("op", "before", "after", "status", "message")] if isinstance(p, dict) else p
    return json.dumps([k, row], sort_keys=True, default=str)


def deliberate_rules(path):
    rules = []
    if path:
        for line in open(path, encoding="utf-8"):
            parts = [p.strip() for p in line.split("|", 2)]
            if len(parts) == 3 and parts[0]:
                rules.append(tuple(parts))
    return rules


def compare(args):
    ref, ours = load(args.ref), load(args.ours)
    rules = deliberate_rules(args.deliberate)
    is_deliberate = lambda t, p: any(fnmatch.fnmatchcase(t, a) and fnmatch.fnmatchcase(p, b) for a, b, _ in rules)
    mapped = {rename(t, args.src, args.dst): recs for t, recs in ref.items()}
    report, rows, bad_total = [], [], 0
    for topic in sorted(set(mapped) | set(ours)):
        a = [record(r, args.src, args.dst) for r in mapped.get(topic, [])]
        b = [record(r) for r in ours.get(topic, [])]
        counts = dict(same=0, deliberate=0, different=0, missing=0, extra=0)
        paths = {}
        matcher = difflib.SequenceMatcher(None, [signature(r) for r in a], [signature(r) for r in b], autojunk=False)
        pairs = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag in ("equal", "replace"):
                n = min(i2 - i1, j2 - j1)
                pairs += [(i1 + k, j1 + k) for k in range(n)]
                pairs += [(i, None) for i in range(i1 + n, i2)] + [(None, j) for j in range(j1 + n, j2)]
            elif tag == "delete":
                pairs += [(i, None) for i in range(i1, i2)]
            else:
                pairs += [(None, j) for j in range(j1, j2)]
        for i, j in pairs:
            if j is None or i is None:
                kind = "missing" if j is None else "extra"
                ok = is_deliberate(topic, "<record>")
                counts["deliberate" if ok else kind] += 1
                side, idx = ("reference", i) if j is None else ("ours", j)
                report.append(f"- `{topic}` {kind} record ({side} #{idx}): `{json.dumps((a[i] if j is None else b[j]), ensure_ascii=False)[:600]}`")
                continue
            fa, fb = masked(topic, flatten(a[i], "", {})), masked(topic, flatten(b[j], "", {}))
            diff = sorted(p for p in set(fa) | set(fb) if fa.get(p, "<absent>") != fb.get(p, "<absent>"))
            if not diff:
                counts["same"] += 1
                continue
            real = [p for p in diff if not is_deliberate(topic, p)]
            counts["different" if real else "deliberate"] += 1
            for p in diff:
                paths.setdefault(p, []).append((i, j))
                tag = "" if p in real else " (deliberate)"
                report.append(f"- `{topic}` #{i}/#{j} `{p}`{tag}: reference `{json.dumps(fa.get(p, '<absent>'), ensure_ascii=False)[:300]}` ours `{json.dumps(fb.get(p, '<absent>'), ensure_ascii=False)[:300]}`")
        bad = counts["different"] + counts["missing"] + counts["extra"]
        bad_total += bad
        first = ", ".join(sorted(p for p in paths if not is_deliberate(topic, p))[:4])
        rows.append((topic, len(a), len(b), counts, first))
    print(f"| topic | {args.src} | {args.dst} | same | deliberate | different | missing | extra | first differing paths |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for topic, na, nb, c, first in rows:
        print(f"| {topic} | {na} | {nb} | {c['same']} | {c['deliberate']} | {c['different']} | {c['missing']} | {c['extra']} | {first} |")
    total = sum(r[1] for r in rows)
    print(f"\n{len(rows)} topics, {total} reference records, {bad_total} not matching")
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write("# Differences\n\n" + "\n".join(report) + "\n")
    return 1 if bad_total else 0


def takeover(args):
    before, after = load(args.before), load(args.after)
    expect = {}
    for line in open(args.expect, encoding="utf-8"):
        m = re.match(r"--\s*expect:\s*(\S+)\s+(\S+)\s+(\d+)", line)
        if m:
            expect[(m.group(1), m.group(2))] = int(m.group(3))
    failures, got = [], {}
    for topic in sorted(after):
        if topic.endswith(".transaction") or topic.endswith(".message"):
            continue
        old, new = before.get(topic, []), after[topic]
        if [r["value"] for r in new[: len(old)]] != [r["value"] for r in old]:
            failures.append(f"{topic}: the records from before the hand-over changed")
        seen = {}
        for n, raw in enumerate(new):
            r = record(raw)
            p = (r["value"] or {}).get("payload") if isinstance(r["value"], dict) else None
            if not p:
                continue
            src = p.get("source") or {}
            ident = (src.get("lsn"), p.get("op"), json.dumps(r["key"], sort_keys=True))
            if p.get("op") != "r" and ident in seen:
                failures.append(f"{topic}: #{n} repeats #{seen[ident]} (lsn {ident[0]}, op {ident[1]}, key {ident[2][:200]})")
            seen.setdefault(ident, n)
            if n >= len(old):
                if p.get("op") == "r":
                    failures.append(f"{topic}: #{n} is a snapshot read after the hand-over")
                key = (src.get("table"), p.get("op"))
                got[key] = got.get(key, 0) + 1
    for key in sorted(set(expect) | set(got)):
        status = "ok" if expect.get(key, 0) == got.get(key, 0) else "WRONG"
        print(f"after the hand-over: {key[0]} op {key[1]}: expected {expect.get(key, 0)}, got {got.get(key, 0)} {status}")
        if status != "ok":
            failures.append(f"{key[0]} op {key[1]}: expected {expect.get(key, 0)} events after the hand-over, got {got.get(key, 0)}")
    for f in failures:
        print("FAIL " + f)
    print("take-over: " + ("every change exactly once" if not failures else f"{len(failures)} failures"))
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write("# Take-over\n\n" + "\n".join("- " + x for x in failures) + "\n")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--takeover", action="store_true")
    ap.add_argument("dirs", nargs=2)
    ap.add_argument("--from", dest="src", default="dbz")
    ap.add_argument("--to", dest="dst", default="wc")
    ap.add_argument("--deliberate")
    ap.add_argument("--expect")
    ap.add_argument("--report")
    args = ap.parse_args()
    if args.takeover:
        args.before, args.after = args.dirs
        if not args.expect:
            ap.error("--takeover needs --expect SQL")
        return takeover(args)
    args.ref, args.ours = args.dirs
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
