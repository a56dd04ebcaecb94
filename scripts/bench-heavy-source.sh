#!/usr/bin/env bash
# A heavy source beside a healthy pipeline, on the real binary (standalone, embedded
# topics): the healthy pipeline's rate and the process's resident memory before, while and
# after a source returning huge batches runs (issue 34). Prints one table.
#
#   scripts/bench-heavy-source.sh            # the release binary of $CARGO_TARGET_DIR
#   BIN=/path/to/wasm-connect scripts/bench-heavy-source.sh
#
# The healthy pipeline: Datagen (LIGHT_RATE records/s, 8-byte keys, 100-byte values) →
# topic → FileStreamSink; its rate is the sink file's lines per second over WINDOW seconds.
# The heavy source: the ChaosSource fixture in `huge` mode, HEAVY_BYTES (15 MiB) per poll in
# 64 KiB records. Phases: `before` (healthy alone), `heavy` (both), `deleted` (SETTLE
# seconds after the heavy connector was deleted). RSS is VmRSS of the worker; `peak` is the
# highest RSS sampled each second during the phase; `heavy MiB/s` what the heavy source
# had written (its records produced, from /metrics).
#
# Environment (defaults): BIN, PORT (18383), WINDOW (10), SETTLE (15), LIGHT_RATE (20000),
# HEAVY_BYTES (15728640), HEAVY_CONFIG (extra JSON members for the heavy connector, e.g.
# `"wasm.poll.bytes.per.second":"16777216"`), WORK (a fresh directory under /var/tmp,
# deleted at the end: the embedded file grows by gigabytes while the heavy source runs).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/wasm-connect}"
PORT="${PORT:-18383}"
WINDOW="${WINDOW:-10}"
SETTLE="${SETTLE:-15}"
LIGHT_RATE="${LIGHT_RATE:-20000}"
HEAVY_BYTES="${HEAVY_BYTES:-15728640}"
HEAVY_CONFIG="${HEAVY_CONFIG:-}"
WORK="${WORK:-$(mktemp -d /var/tmp/bench-heavy.XXXXXX)}"
URL="http://127.0.0.1:$PORT"

die() { echo "bench-heavy-source: $*" >&2; exit 1; }
[[ -x "$BIN" ]] || die "no binary at $BIN (cargo build --release, or set BIN)"
for f in build/plugins/datagen.wasm build/plugins/file-sink.wasm build/fixtures/chaos-source.wasm; do
    [[ -f "$ROOT/$f" ]] || die "$f missing: run scripts/build-guests.sh"
done
command -v curl >/dev/null || die "curl not found"

PID=""
cleanup() {
    [[ -n "$PID" ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

cat >"$WORK/worker.properties" <<EOF
plugin.path=$ROOT/build/plugins/datagen.wasm,$ROOT/build/plugins/file-sink.wasm,$ROOT/build/fixtures/chaos-source.wasm
listeners=http://127.0.0.1:$PORT
offset.storage.file.filename=$WORK/worker.db
offset.flush.interval.ms=1000
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
EOF

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$PID/status"; }
lines() { [[ -f "$WORK/out.txt" ]] && wc -l <"$WORK/out.txt" || echo 0; }
heavy_records() {
    curl -sf "$URL/metrics" | awk '/^wasm_connect_source_records_produced_total\{connector="heavy",task="0"\}/ {print int($2); f=1} END {if (!f) print 0}'
}
put() { curl -sf -X PUT -H 'Content-Type: application/json' "$URL/connectors/$1/config" -d "$2" >/dev/null; }

"$BIN" standalone "$WORK/worker.properties" >"$WORK/worker.log" 2>&1 &
PID=$!
for _ in $(seq 1 600); do
    curl -sf "$URL/" >/dev/null 2>&1 && break
    kill -0 "$PID" 2>/dev/null || { tail -n 20 "$WORK/worker.log" >&2; die "the worker exited"; }
    sleep 0.2
done
curl -sf "$URL/" >/dev/null || die "the worker did not answer on $URL"
IDLE_RSS=$(rss_kib)

put light-src "{\"connector.class\":\"Datagen\",\"topic\":\"light\",\"rate\":\"$LIGHT_RATE\",\"value.size\":\"100\"}"
put light-snk "{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSinkConnector\",\"topics\":\"light\",\"file\":\"$WORK/out.txt\"}"
for _ in $(seq 1 300); do (( $(lines) > 0 )) && break; sleep 0.2; done
(( $(lines) > 0 )) || { tail -n 20 "$WORK/worker.log" >&2; die "the healthy pipeline wrote nothing"; }
sleep 3

# One phase: the healthy pipeline's lines/s over WINDOW s, RSS at the end, peak RSS.
ROWS=()
phase() {
    local name="$1" start end peak=0 rss h0 h1
    start=$(lines)
    h0=$(heavy_records)
    for _ in $(seq 1 "$WINDOW"); do
        sleep 1
        rss=$(rss_kib)
        (( rss > peak )) && peak=$rss
    done
    end=$(lines)
    h1=$(heavy_records)
    # The fixture's huge records are 64 KiB each.
    local heavy_mib=$(( (h1 - h0) * 64 / 1024 / WINDOW ))
    ROWS+=("$(printf '| %-8s | %9d | %11d | %7d | %8d |' "$name" $(( (end - start) / WINDOW )) "$heavy_mib" $(( rss / 1024 )) $(( peak / 1024 )))")
    echo "  $name: $(( (end - start) / WINDOW )) lines/s, heavy $heavy_mib MiB/s, RSS $(( rss / 1024 )) MiB (peak $(( peak / 1024 )))" >&2
}

echo "bench-heavy-source: idle RSS $(( IDLE_RSS / 1024 )) MiB; measuring $WINDOW s windows" >&2
phase before
heavy="{\"connector.class\":\"ChaosSource\",\"topic\":\"heavy\",\"chaos.mode\":\"huge\",\"chaos.huge.bytes\":\"$HEAVY_BYTES\"${HEAVY_CONFIG:+,$HEAVY_CONFIG}}"
put heavy "$heavy"
sleep 3
phase heavy
curl -sf "$URL/connectors/heavy/status" | grep -o '"state":"[A-Z]*"' | head -n 2 | tr '\n' ' ' >&2; echo >&2
curl -sf -X DELETE "$URL/connectors/heavy" >/dev/null
sleep "$SETTLE"
phase deleted

echo
echo "binary: $BIN"
echo "healthy pipeline: Datagen at $LIGHT_RATE records/s → FileStreamSink; heavy: ChaosSource huge, $HEAVY_BYTES bytes a poll${HEAVY_CONFIG:+, $HEAVY_CONFIG}"
echo "idle RSS before any connector: $(( IDLE_RSS / 1024 )) MiB"
echo
echo "| phase    | lines/s   | heavy MiB/s | RSS MiB | peak MiB |"
echo "|----------|-----------|-------------|---------|----------|"
printf '%s\n' "${ROWS[@]}"
