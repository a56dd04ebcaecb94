// `encodeSources`: the batch `poll` returns, written straight from `SourceRecord`s into one
// buffer (the layout of `wit/types.wit`, version 2; `batch.js` is the reference encoder).
//
// StarlingMonkey interprets this code, so what a record costs is the calls and objects it
// makes, not the bytes (measured in the guest: a native call ~0.1-0.3 µs, a `subarray`
// ~0.5 µs, `encodeInto` into it ~1.1 µs). Two loops: `encodeAscii` for batches whose text is
// all ASCII and that have no headers (the usual case), which encodes all the batch's text
// with one `encodeInto`; and `encodeGeneral` for any batch, which keeps its buffer in
// locals, checks the room once a record, writes text with `encodeInto` straight into the
// batch, 64-bit fields as two 32-bit halves instead of through BigInt, a topic once per
// batch, and reuses the bytes of a source partition whose JSON text did not change. Both
// produce the same bytes as `encodeBatch(records.map((r) => r.toRaw()))`, which the tests
// assert.

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
 * Most batches hold only ASCII text and no headers: `encodeAscii` writes those with no
 * call per piece of text beyond a `push` and a `copyWithin`. A batch it refuses is written
 * by `encodeGeneral`, which also takes the next few batches (a task whose text is not
 * ASCII would pay for both loops on every poll otherwise).
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
  if (generalFor > 0) {
    generalFor--;
  } else {
    const out = encodeAscii(records, reuse);
    if (out !== null) return out;
    generalFor = GENERAL_RUN;
  }
  return encodeGeneral(records, reuse);
}

/** Batches `encodeGeneral` takes after `encodeAscii` refused one. */
const GENERAL_RUN = 16;
let generalFor = 0;
/** Where each piece of text of a batch goes, reused across calls. */
let holes = new Int32Array(3 * 1024);
/** A source record's partition, offset and timestamp when all three are unset (-1). */
const UNSET = new Uint8Array(20).fill(255);

/** `bytes` after a u32 length, after `skip` zero bytes (room for a header count). */
function prefixed(bytes, skip) {
  const out = new Uint8Array(skip + 4 + bytes.length);
  new DataView(out.buffer).setUint32(skip, bytes.length, true);
  out.set(bytes, skip + 4);
  return out;
}

/**
 * The batch of `records` when every text in it (keys, values, offsets) is ASCII and no
 * record has headers, else null.
 *
 * A text's length is then its UTF-8 length, so the loop writes each length at once and
 * leaves a hole for the text; the texts, joined, are encoded with one `encodeInto` past
 * the end of the batch and copied into their holes with `copyWithin`. That spares a
 * `subarray`, an `encodeInto` and its result object per text (3 a record), which in the
 * interpreter cost more than the bytes. The topic with its length (and the unset partition,
 * offset and timestamp), and the empty header count with the source partition's length and
 * text, are each one `set` per record. A
 * text that is not ASCII shows as an `encodeInto` that writes more bytes than the joined
 * text has characters.
 */
export function encodeAscii(records, reuse = false) {
  const count = records.length;
  const first = 64 + count * 160;
  let buf = reuse && spare !== null && spare.length >= first ? spare : new Uint8Array(first);
  let view = new DataView(buf.buffer);
  if (holes.length < 3 * count) holes = new Int32Array(3 * count);
  const texts = [];
  let pieces = 0;
  buf[0] = VERSION;
  view.setUint32(1, count, true);
  let at = 5;
  let topic = null;
  let head = null; // the topic's length and bytes
  let headUnset = null; // the same, then a partition, offset and timestamp all unset
  let partitionObject = NONE;
  let partitionText = null;
  let tail = null; // no headers, then the source partition's length and bytes
  for (let i = 0; i < count; i++) {
    const r = records[i];
    if (r.headers.length !== 0) return null;
    if (r.topic !== topic) {
      topic = r.topic;
      head = prefixed(utf8.encode(topic), 0);
      headUnset = new Uint8Array(head.length + 20);
      headUnset.set(head);
      headUnset.set(UNSET, head.length);
    }
    const keyTag = TAGS[r.keyKind];
    if (keyTag === undefined) tag(r.keyKind);
    const valueTag = TAGS[r.valueKind];
    if (valueTag === undefined) tag(r.valueKind);
    const key = payload(r.key, r.keyKind);
    const value = payload(r.value, r.valueKind);
    if (r.sourcePartition !== partitionObject) {
      partitionObject = r.sourcePartition;
      const text = JSON.stringify(partitionObject);
      if (text !== partitionText) {
        partitionText = text;
        tail = prefixed(utf8.encode(text), 4);
      }
    }
    const offsetText = JSON.stringify(r.sourceOffset);
    const partition = r.partition;
    const timestamp = r.timestamp;
    if (timestamp != null && !Number.isInteger(timestamp)) {
      throw new RangeError(`${timestamp} is not an integer, as an i64 field needs`);
    }

    const need = 34 + head.length + (key == null ? 0 : key.length) + (value == null ? 0 : value.length) + tail.length + offsetText.length;
    if (at + need > buf.length) [buf, view] = grow(buf, at, need);

    if (partition == null && timestamp == null) {
      buf.set(headUnset, at);
      at += head.length;
    } else {
      buf.set(head, at);
      at += head.length;
      const ms = timestamp ?? -1;
      const high = Math.floor(ms / TWO_32);
      view.setInt32(at, partition ?? -1, true);
      view.setInt32(at + 4, -1, true);
      view.setInt32(at + 8, -1, true);
      view.setUint32(at + 12, ms - high * TWO_32, true);
      view.setInt32(at + 16, high, true);
    }
    at += 20;

    buf[at] = keyTag;
    if (key == null) {
      view.setInt32(at + 1, -1, true);
      at += 5;
    } else {
      view.setUint32(at + 1, key.length, true);
      if (typeof key === 'string') {
        holes[pieces++] = at + 5;
        texts.push(key);
      } else {
        buf.set(key, at + 5);
      }
      at += 5 + key.length;
    }
    buf[at] = valueTag;
    if (value == null) {
      view.setInt32(at + 1, -1, true);
      at += 5;
    } else {
      view.setUint32(at + 1, value.length, true);
      if (typeof value === 'string') {
        holes[pieces++] = at + 5;
        texts.push(value);
      } else {
        buf.set(value, at + 5);
      }
      at += 5 + value.length;
    }
    buf.set(tail, at);
    at += tail.length;
    view.setUint32(at, offsetText.length, true);
    holes[pieces++] = at + 4;
    texts.push(offsetText);
    at += 4 + offsetText.length;
  }

  const text = texts.join('');
  if (at + text.length > buf.length) [buf, view] = grow(buf, at, text.length);
  const { read, written } = utf8.encodeInto(text, buf.subarray(at));
  if (read !== text.length || written !== text.length) return null;
  let from = at;
  for (let p = 0; p < pieces; p++) {
    const n = texts[p].length;
    buf.copyWithin(holes[p], from, from + n);
    from += n;
  }
  if (!reuse) return buf.slice(0, at);
  if (buf.length <= SPARE_MAX) spare = buf;
  return buf.subarray(0, at);
}

/**
 * Any batch: one loop over locals (`buf`, `view`, `at`), one capacity check a record, text
 * written with `encodeInto` in place, and the source partition's JSON text made once per
 * distinct object in the batch (every record of the batch refers to the object as it is
 * now, so one object has one text within a call), its bytes kept while the text does not
 * change.
 */
function encodeGeneral(records, reuse) {
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
