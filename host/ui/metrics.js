//! metrics.js: per-task figures from the worker's `GET /metrics` (Prometheus text). One
//! sampler for the whole page reads it every two seconds while a connector page is open,
//! keeps the last five minutes of samples in a ring buffer (kept across page switches) and
//! turns counters into series: records/s in and out, failures and restarts per task. The
//! last sample also keeps what the Schema Registry converters report (`registryOf`): the
//! subjects each side's converter uses and the requests it sent, per connector.

import { call } from './api.js';

const PERIOD_MS = 2000;
const KEEP = 150; // five minutes of samples

// Counter names (host/src/telemetry/data.rs), by what the charts call them.
const IN = ['wasm_connect_source_records_polled_total', 'wasm_connect_sink_records_consumed_total'];
const OUT = ['wasm_connect_source_records_produced_total', 'wasm_connect_sink_records_put_total'];
const FAILURES = 'wasm_connect_task_failures_total';
const STARTS = 'wasm_connect_task_starts_total';
// The Schema Registry converters' (host/src/telemetry/registry.rs).
const REGISTRY_REQUESTS = 'wasm_connect_schema_registry_requests_total';
const REGISTRY_SUBJECT = 'wasm_connect_schema_registry_subject';

const samples = []; // {at, values: Map<"name|connector|task", number>}
let registry = new Map(); // connector → {key, value}: {subjects: Set, converter, requests}
let timer = null;
let users = 0;
let error = null;

/** The samples of Prometheus text: `{name, labels, value}` each. */
function* lines(text) {
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = line.match(/^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)/);
    if (!m) continue;
    const labels = {};
    for (const l of (m[3] || '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    yield { name: m[1], labels, value: Number(m[4]) };
  }
}

/** Parses Prometheus text into a map of `name|connector|task` → value (other labels summed). */
export function parse(text) {
  const values = new Map();
  for (const { name, labels, value } of lines(text)) {
    if (labels.task === undefined) continue;
    const key = `${name}|${labels.connector}|${labels.task}`;
    values.set(key, (values.get(key) || 0) + value);
  }
  return values;
}

/**
 * The Schema Registry figures in Prometheus text: connector → side (`key`, `value`) →
 * `{subjects: Set, converter, requests}`, requests summed over the connector's tasks.
 */
export function parseRegistry(text) {
  const out = new Map();
  const side = (labels) => {
    if (!out.has(labels.connector)) out.set(labels.connector, {});
    const c = out.get(labels.connector);
    c[labels.side] ||= { subjects: new Set(), converter: null, requests: 0 };
    return c[labels.side];
  };
  for (const { name, labels, value } of lines(text)) {
    if (name === REGISTRY_REQUESTS) side(labels).requests += value;
    else if (name === REGISTRY_SUBJECT && value > 0) {
      const s = side(labels);
      s.subjects.add(labels.subject);
      s.converter = labels.converter;
    }
  }
  return out;
}

async function sample() {
  const r = await call('GET', '/metrics');
  if (!r.ok || typeof r.body !== 'string') {
    error = r.status === 503 ? 'This worker does not export metrics.' : `Metrics unavailable (${r.status}).`;
    return;
  }
  error = null;
  samples.push({ at: Date.now(), values: parse(r.body) });
  registry = parseRegistry(r.body);
  if (samples.length > KEEP) samples.splice(0, samples.length - KEEP);
}

/** Starts sampling (if not already) and returns a function that stops this user's share. */
export function watch() {
  users += 1;
  if (!timer) {
    sample();
    timer = setInterval(sample, PERIOD_MS);
  }
  return () => {
    users -= 1;
    if (users === 0) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** Why there are no figures, if there is a reason. */
export function problem() {
  return error;
}

function value(s, names, connector, task) {
  let sum = 0;
  for (const n of [].concat(names)) sum += s.values.get(`${n}|${connector}|${task}`) || 0;
  return sum;
}

/** Task ids the samples know for `connector`. */
export function tasksOf(connector) {
  const ids = new Set();
  const last = samples[samples.length - 1];
  if (last) for (const k of last.values.keys()) {
    const [, c, t] = k.split('|');
    if (c === connector) ids.add(Number(t));
  }
  return [...ids].sort((a, b) => a - b);
}

/**
 * The series of one task: `{in, out, failures, restarts}`, each a list of `[at, y]`.
 * In and out are rates (records/s between samples); failures and restarts are totals.
 */
export function series(connector, task) {
  const out = { in: [], out: [], failures: [], restarts: [] };
  for (let i = 0; i < samples.length; i += 1) {
    const s = samples[i];
    if (i > 0) {
      const p = samples[i - 1];
      const dt = (s.at - p.at) / 1000;
      const rate = (names) => Math.max(0, value(s, names, connector, task) - value(p, names, connector, task)) / dt;
      out.in.push([s.at, rate(IN)]);
      out.out.push([s.at, rate(OUT)]);
    }
    out.failures.push([s.at, value(s, FAILURES, connector, task)]);
    out.restarts.push([s.at, Math.max(0, value(s, STARTS, connector, task) - 1)]);
  }
  return out;
}

/** What the last sample says of `connector`'s registry converters: `{key?, value?}`. */
export function registryOf(connector) {
  return registry.get(connector) || {};
}

/** Milliseconds the ring buffer covers at most. */
export const WINDOW_MS = PERIOD_MS * KEEP;
