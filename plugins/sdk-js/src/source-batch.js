// `encodeSources`: the batch `poll` returns, written straight from `SourceRecord`s into one
// buffer (the layout of `wit/types.wit`, version 2; `batch.js` is the reference encoder).
//
// StarlingMonkey interprets this code, so what a record costs is the calls and objects it
// makes, not the bytes: this loop keeps its buffer in locals, makes no intermediate record,
// checks the room once a record, writes text with
// `TextEncoder.encodeInto` straight into the batch, writes 64-bit fields as two 32-bit
// halves instead of through BigInt, encodes a topic once per batch, and reuses the bytes of
// a source partition whose JSON text did not change. It produces the same bytes as
// `encodeBatch(records.map((r) => r.toRaw()))`, which the tests assert.

import { VERSION } from './batch.js';
import { encodeData } from './records.js';

const utf8 = new TextEncoder();
/** Kind tags, on an object without a prototype so that only the four kinds are found. */
const TAGS = Object.freeze(Object.assign(Object.create(null), { bytes: 0, string: 1, json: 2, 'connect-json': 3 }));
const TWO_32 = 4294967296;
/** The buffer `encodeSources(records, true)` reuses, and the largest one it keeps. */
let spare = null;
const SPARE_MAX = 4 << 20;
const NONE = Symbol('none');

/** The kind tag of `kind`; throws for an unknown kind, as `encodeData` does. */
function tag(kind) {
  const t = TAGS[kind];
  if (t === undefined) throw new TypeError(`unknown record kind ${JSON.stringify(kind)}`);
  return t;
}

/**
 * What a key or value is written as: a string (its UTF-8 goes in place), a Uint8Array, or
 * null. Strings of kind `string`/`bytes` and JSON data stay text; the rest is `encodeData`.
 */
function payload(value, kind) {
  if (value == null) return null;
  if (typeof value === 'string' && (kind === 'string' || kind === 'bytes')) return value;
  if ((kind === 'json' || kind === 'connect-json') && !(value instanceof Uint8Array)) {
    const text = JSON.stringify(value);
    if (typeof text === 'string') return text;
  }
  return encodeData(value, kind);
}

/** The bytes a payload may take: 3 a UTF-16 unit for text. */
function size(p) {
  return p == null ? 0 : typeof p === 'string' ? p.length * 3 : p.length;
}

/**
 * Encodes `SourceRecord`s as one version 2 batch.
 *
 * One loop over locals (`buf`, `view`, `at`), one capacity check a record, text written
 * with `encodeInto` in place, and the source partition's JSON text made once per distinct
 * object in the batch (every record of the batch refers to the object as it is now, so one
 * object has one text within a call), its bytes kept while the text does not change.
 *
 * With `reuse`, the buffer is kept for the next such call and the result is a view of it,
 * valid until then: `poll` passes it, since the bindings copy the batch into linear memory
 * as soon as `poll` returns. That spares two allocations of ~160 KB a poll (a fresh
 * buffer and the trimmed copy), which fed the collector most of a poll's garbage.
 * @param {import('./records.js').SourceRecord[]} records
 * @param {boolean} [reuse] return a view of a buffer the next `reuse` call overwrites
 * @returns {Uint8Array}
 */
export function encodeSources(records, reuse = false) {
  const count = records.length;
  const first = 64 + count * 160;
  let buf = reuse && spare !== null && spare.length >= first ? spare : new Uint8Array(first);
  let view = new DataView(buf.buffer);
  buf[0] = VERSION;
  view.setUint32(1, count, true);
  let at = 5;
  let topic = null;
  let topicBytes = null;
  let partitionObject = NONE; // no record has it, not even one without a partition
  let partitionText = null;
  let partitionBytes = null;
  for (let i = 0; i < count; i++) {
    const r = records[i];
    if (r.topic !== topic) {
      topic = r.topic;
      topicBytes = utf8.encode(topic);
    }
    const keyTag = tag(r.keyKind);
    const valueTag = tag(r.valueKind);
    const key = payload(r.key, r.keyKind);
    const value = payload(r.value, r.valueKind);
    const headers = r.headers;
    if (r.sourcePartition !== partitionObject) {
      partitionObject = r.sourcePartition;
      const text = JSON.stringify(partitionObject);
      if (text !== partitionText) {
        partitionText = text;
        partitionBytes = utf8.encode(text);
      }
    }
    const offsetText = JSON.stringify(r.sourceOffset);
    const timestamp = r.timestamp;
    let ms = -1;
    if (timestamp != null) {
      if (!Number.isInteger(timestamp)) throw new RangeError(`${timestamp} is not an integer, as an i64 field needs`);
      ms = timestamp;
    }

    // Everything but the headers: topic, partition, offset, timestamp, two tagged
    // payloads, the header count, the partition and the offset text.
    const need = 54 + topicBytes.length + size(key) + size(value) + partitionBytes.length + offsetText.length * 3;
    if (at + need > buf.length) [buf, view] = grow(buf, at, need);

    view.setUint32(at, topicBytes.length, true);
    buf.set(topicBytes, at + 4);
    at += 4 + topicBytes.length;
    view.setInt32(at, r.partition ?? -1, true);
    view.setInt32(at + 4, -1, true); // offset: none on source records
    view.setInt32(at + 8, -1, true);
    const high = Math.floor(ms / TWO_32);
    view.setUint32(at + 12, ms - high * TWO_32, true);
    view.setInt32(at + 16, high, true);
    at += 20;

    buf[at++] = keyTag;
    if (key == null) {
      view.setInt32(at, -1, true);
      at += 4;
    } else if (typeof key === 'string') {
      const { written } = utf8.encodeInto(key, buf.subarray(at + 4));
      view.setUint32(at, written, true);
      at += 4 + written;
    } else {
      view.setUint32(at, key.length, true);
      buf.set(key, at + 4);
      at += 4 + key.length;
    }
    buf[at++] = valueTag;
    if (value == null) {
      view.setInt32(at, -1, true);
      at += 4;
    } else if (typeof value === 'string') {
      const { written } = utf8.encodeInto(value, buf.subarray(at + 4));
      view.setUint32(at, written, true);
      at += 4 + written;
    } else {
      view.setUint32(at, value.length, true);
      buf.set(value, at + 4);
      at += 4 + value.length;
    }

    view.setUint32(at, headers.length, true);
    at += 4;
    for (let h = 0; h < headers.length; h++) {
      const name = String(headers[h][0]);
      const v = headers[h][1];
      const bytes = v == null ? null : v instanceof Uint8Array ? v : utf8.encode(String(v));
      const room = 8 + name.length * 3 + (bytes == null ? 0 : bytes.length) + need;
      if (at + room > buf.length) [buf, view] = grow(buf, at, room);
      const { written } = utf8.encodeInto(name, buf.subarray(at + 4));
      view.setUint32(at, written, true);
      at += 4 + written;
      if (bytes == null) {
        view.setInt32(at, -1, true);
        at += 4;
      } else {
        view.setUint32(at, bytes.length, true);
        buf.set(bytes, at + 4);
        at += 4 + bytes.length;
      }
    }

    view.setUint32(at, partitionBytes.length, true);
    buf.set(partitionBytes, at + 4);
    at += 4 + partitionBytes.length;
    const { written } = utf8.encodeInto(offsetText, buf.subarray(at + 4));
    view.setUint32(at, written, true);
    at += 4 + written;
  }
  if (!reuse) return buf.slice(0, at);
  if (buf.length <= SPARE_MAX) spare = buf;
  return buf.subarray(0, at);
}

/** A buffer at least twice as large with the first `at` bytes of `buf`, and its view. */
function grow(buf, at, need) {
  let cap = buf.length * 2;
  while (cap < at + need) cap *= 2;
  const next = new Uint8Array(cap);
  next.set(buf.subarray(0, at));
  return [next, new DataView(next.buffer)];
}
