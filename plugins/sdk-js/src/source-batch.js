// `encodeSources`: the batch `poll` returns, written straight from `SourceRecord`s into one
// buffer (the layout of `wit/types.wit`, version 2; `batch.js` is the reference encoder).
//
// StarlingMonkey interprets this code, so what a record costs is the calls and objects it
// makes, not the bytes: this loop makes no intermediate record, writes text with
// `TextEncoder.encodeInto` straight into the batch, writes 64-bit fields as two 32-bit
// halves instead of through BigInt, encodes a topic once per batch, and reuses the bytes of
// a source partition whose JSON text did not change. It produces the same bytes as
// `encodeBatch(records.map((r) => r.toRaw()))`, which the tests assert.

import { VERSION } from './batch.js';
import { encodeData } from './records.js';

const utf8 = new TextEncoder();
const TAGS = Object.freeze({ bytes: 0, string: 1, json: 2, 'connect-json': 3 });
const TWO_32 = 4294967296;

/** A growable buffer that writes little-endian fields and UTF-8 text in place. */
class Out {
  constructor(capacity) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
    this.at = 0;
  }

  room(n) {
    if (this.at + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.at + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  /** Text as a length (i32 or u32, the same bits) then its UTF-8; at most 3 bytes a unit. */
  text(s) {
    this.room(4 + s.length * 3);
    const { written } = utf8.encodeInto(s, this.buf.subarray(this.at + 4));
    this.view.setUint32(this.at, written, true);
    this.at += 4 + written;
  }

  /** Bytes or null as an opt-bytes field. */
  opt(b) {
    if (b == null) {
      this.room(4);
      this.view.setInt32(this.at, -1, true);
      this.at += 4;
      return;
    }
    this.room(4 + b.length);
    this.view.setInt32(this.at, b.length, true);
    this.buf.set(b, this.at + 4);
    this.at += 4 + b.length;
  }

  /** A number that fits in 53 bits (or null, written -1) as an i64. */
  i64(v) {
    const n = v ?? -1;
    if (!Number.isInteger(n)) throw new RangeError(`${n} is not an integer, as an i64 field needs`);
    const high = Math.floor(n / TWO_32);
    this.view.setUint32(this.at, n - high * TWO_32, true);
    this.view.setInt32(this.at + 4, high, true);
    this.at += 8;
  }
}

/** The kind tag of `kind`; throws for an unknown kind, as `encodeData` does. */
function tag(kind) {
  const t = TAGS[kind];
  if (t === undefined || !Object.hasOwn(TAGS, kind)) throw new TypeError(`unknown record kind ${JSON.stringify(kind)}`);
  return t;
}

/** Writes a key or value: strings of kind `string`/`bytes` and JSON data in place. */
function data(out, value, kind) {
  out.room(1);
  out.buf[out.at++] = tag(kind);
  if (value == null) return out.opt(null);
  if (typeof value === 'string' && (kind === 'string' || kind === 'bytes')) return out.text(value);
  if ((kind === 'json' || kind === 'connect-json') && !(value instanceof Uint8Array)) {
    const text = JSON.stringify(value);
    if (typeof text === 'string') return out.text(text);
  }
  out.opt(encodeData(value, kind));
}

/**
 * Encodes `SourceRecord`s as one version 2 batch.
 * @param {import('./records.js').SourceRecord[]} records
 * @returns {Uint8Array}
 */
export function encodeSources(records) {
  const out = new Out(64 + records.length * 160);
  out.buf[0] = VERSION;
  out.view.setUint32(1, records.length, true);
  out.at = 5;
  let topic = null;
  let topicBytes = null;
  let partitionText = null;
  let partitionBytes = null;
  for (const r of records) {
    if (r.topic !== topic) {
      topic = r.topic;
      topicBytes = utf8.encode(topic);
    }
    out.room(4 + topicBytes.length + 20);
    out.view.setUint32(out.at, topicBytes.length, true);
    out.buf.set(topicBytes, out.at + 4);
    out.at += 4 + topicBytes.length;
    out.view.setInt32(out.at, r.partition ?? -1, true);
    out.at += 4;
    out.i64(null); // offset: none on source records
    out.i64(r.timestamp);
    data(out, r.key, r.keyKind);
    data(out, r.value, r.valueKind);
    const headers = r.headers;
    out.room(4);
    out.view.setUint32(out.at, headers.length, true);
    out.at += 4;
    for (const [k, v] of headers) {
      out.text(String(k));
      out.opt(v == null ? null : v instanceof Uint8Array ? v : utf8.encode(String(v)));
    }
    const text = JSON.stringify(r.sourcePartition);
    if (text !== partitionText) {
      partitionText = text;
      partitionBytes = utf8.encode(text);
    }
    out.opt(partitionBytes);
    out.text(JSON.stringify(r.sourceOffset));
  }
  return out.buf.slice(0, out.at);
}
