// The `record-batch` byte encoding of `wit/types.wit`: version 2 written, versions 1 and
// 2 read, with DataView and TextEncoder (the Rust twin is `plugins/batch`).
//
// This file owns the byte layout only. Records here are "raw": bytes or null for keys,
// values, headers and source fields, and a kind name per key and value. Turning JS values
// into those bytes belongs to `records.js`.

/** The version this encoder writes. */
export const VERSION = 2;

/** Kind names in tag order: `bytes` (0), `string` (1), `json` (2), `connect-json` (3). */
export const KINDS = Object.freeze(['bytes', 'string', 'json', 'connect-json']);

/**
 * @typedef {'bytes' | 'string' | 'json' | 'connect-json'} Kind
 * @typedef {object} RawRecord
 * @property {string} topic
 * @property {number | null} partition  null: none (the host picks by key)
 * @property {number | null} offset     Kafka offset on sink records, null on source records
 * @property {number | null} timestamp  ms since the epoch, null: none
 * @property {Kind} keyKind
 * @property {Uint8Array | null} key
 * @property {Kind} valueKind
 * @property {Uint8Array | null} value
 * @property {Array<[string, Uint8Array | null]>} headers
 * @property {Uint8Array | null} sourcePartition  JSON text (source records only)
 * @property {Uint8Array | null} sourceOffset     JSON text (source records only)
 */

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A growable little-endian byte buffer. */
class Writer {
  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
    this.len = 0;
  }

  reserve(n) {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v) {
    this.reserve(1);
    this.buf[this.len++] = v;
  }

  u32(v) {
    this.reserve(4);
    this.view.setUint32(this.len, v, true);
    this.len += 4;
  }

  i32(v) {
    this.reserve(4);
    this.view.setInt32(this.len, v, true);
    this.len += 4;
  }

  i64(v) {
    this.reserve(8);
    this.view.setBigInt64(this.len, BigInt(v), true);
    this.len += 8;
  }

  raw(b) {
    this.reserve(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  bytes(b) {
    this.u32(b.length);
    this.raw(b);
  }

  optBytes(b) {
    if (b == null) return this.i32(-1);
    this.i32(b.length);
    this.raw(b);
  }

  kind(k) {
    const tag = KINDS.indexOf(k);
    if (tag < 0) throw new TypeError(`unknown record kind ${JSON.stringify(k)}`);
    this.u8(tag);
  }
}

/**
 * Encodes raw records as one version 2 batch.
 * @param {RawRecord[]} records
 * @returns {Uint8Array}
 */
export function encodeBatch(records) {
  const w = new Writer();
  w.u8(VERSION);
  w.u32(records.length);
  for (const r of records) {
    w.bytes(utf8.encode(r.topic));
    w.i32(r.partition ?? -1);
    w.i64(r.offset ?? -1);
    w.i64(r.timestamp ?? -1);
    w.kind(r.keyKind ?? 'bytes');
    w.optBytes(r.key);
    w.kind(r.valueKind ?? 'bytes');
    w.optBytes(r.value);
    const headers = r.headers ?? [];
    w.u32(headers.length);
    for (const [k, v] of headers) {
      w.bytes(utf8.encode(k));
      w.optBytes(v);
    }
    w.optBytes(r.sourcePartition);
    w.optBytes(r.sourceOffset);
  }
  return w.buf.slice(0, w.len);
}

/** Why a batch could not be decoded, naming the record and field. */
export class BatchError extends Error {
  constructor(message) {
    super(message);
    this.name = 'BatchError';
  }
}

/**
 * `batch` as a `Uint8Array` of this realm, without copying. The `list<u8>` that
 * componentize-js lifts for `put` and `apply` is a `Uint8Array` of the bindings' own realm,
 * so `instanceof Uint8Array` is false for it: it is viewed through `ArrayBuffer.isView`
 * (true in any realm). `Uint8Array.from` walked it element by element in the interpreter,
 * ~2.5 µs a byte: 99 % of a put's time. Plain arrays of numbers (tests) are still copied.
 * @param {Uint8Array | ArrayLike<number>} batch
 */
function asBytes(batch) {
  if (batch instanceof Uint8Array) return batch;
  if (ArrayBuffer.isView(batch)) return new Uint8Array(batch.buffer, batch.byteOffset, batch.byteLength);
  return Uint8Array.from(batch);
}

/** Raised inside `scan` on anything unexpected; never leaves this module. */
const MALFORMED = new Error('malformed');
const TWO_32 = 4294967296;

/**
 * Decodes a version 1 or 2 batch. Keys, values and headers are copies, not views into
 * `batch`: thousands of views on one buffer per call made StarlingMonkey (componentize-js
 * 0.23.0) fail with "out of memory" after ~260 puts of 500 records, whatever the cap.
 *
 * A well-formed batch is read by one loop with no per-field function calls (the engine
 * interprets this code, so calls are what a record costs); anything unexpected sends the
 * batch through `checkedDecode`, the field-by-field reader, for the error naming what is
 * wrong.
 * @param {Uint8Array} batch
 * @returns {RawRecord[]}
 */
export function decodeBatch(batch) {
  return decodeBatchWith(batch, rawRecord);
}

/**
 * `decodeBatch` with each record made by `build(topic, partition, offset, timestamp,
 * keyKind, key, valueKind, value, headers, sourcePartition, sourceOffset)` instead of a
 * `RawRecord` (partition, offset and timestamp as read, negative for none): a sink's
 * `SinkRecord`s are made straight from the fields, with no `RawRecord` between (in the
 * engine an object literal of 11 fields costs about what the rest of the record does).
 * @template T
 * @param {Uint8Array} batch
 * @param {(...fields: any[]) => T} build
 * @returns {T[]}
 */
export function decodeBatchWith(batch, build) {
  const bytes = asBytes(batch);
  try {
    return scan(bytes, build);
  } catch {
    // Out-of-range reads, bad UTF-8 and MALFORMED alike: the checked reader says which.
  }
  checkedDecode(bytes);
  throw new BatchError('malformed record batch');
}

/** The `RawRecord` of a record's fields, as `scan` reads them. */
function rawRecord(topic, partition, offset, timestamp, keyKind, key, valueKind, value, headers, sourcePartition, sourceOffset) {
  return {
    topic,
    partition: partition >= 0 ? partition : null,
    offset: offset >= 0 ? offset : null,
    timestamp: timestamp >= 0 ? timestamp : null,
    keyKind,
    key,
    valueKind,
    value,
    headers,
    sourcePartition,
    sourceOffset,
  };
}

/** The fast path of `decodeBatch`; throws MALFORMED or RangeError on a bad batch. */
function scan(bytes, build) {
  const end = bytes.length;
  const view = new DataView(bytes.buffer, bytes.byteOffset, end);
  const version = bytes[0];
  if (version !== 1 && version !== 2) throw MALFORMED;
  const kinds = version === 2;
  const count = view.getUint32(1, true);
  if (count > end) throw MALFORMED;
  const out = [];
  let at = 5;
  let topicAt = -1;
  let topicLength = -1;
  let topic = '';
  for (let i = 0; i < count; i++) {
    let n = view.getUint32(at, true);
    at += 4;
    if (at + n > end) throw MALFORMED;
    // The topic's text is kept while its bytes repeat (compared inline: a call costs more
    // than the loop for a short topic).
    let same = n === topicLength && n <= 64;
    for (let k = 0; same && k < n; k++) same = bytes[at + k] === bytes[topicAt + k];
    if (!same) {
      topic = fromUtf8.decode(bytes.subarray(at, at + n));
      topicAt = at;
      topicLength = n;
    }
    at += n;
    const partition = view.getInt32(at, true);
    const offset = view.getInt32(at + 8, true) * TWO_32 + view.getUint32(at + 4, true);
    const timestamp = view.getInt32(at + 16, true) * TWO_32 + view.getUint32(at + 12, true);
    at += 20;
    let keyKind = 'bytes';
    if (kinds) {
      keyKind = KINDS[bytes[at++]];
      if (keyKind === undefined) throw MALFORMED;
    }
    n = view.getInt32(at, true);
    at += 4;
    let key = null;
    if (n >= 0) {
      if (at + n > end) throw MALFORMED;
      key = bytes.slice(at, (at += n));
    } else if (n !== -1) throw MALFORMED;
    let valueKind = 'bytes';
    if (kinds) {
      valueKind = KINDS[bytes[at++]];
      if (valueKind === undefined) throw MALFORMED;
    }
    n = view.getInt32(at, true);
    at += 4;
    let value = null;
    if (n >= 0) {
      if (at + n > end) throw MALFORMED;
      value = bytes.slice(at, (at += n));
    } else if (n !== -1) throw MALFORMED;
    const headerCount = view.getUint32(at, true);
    at += 4;
    const headers = [];
    for (let h = 0; h < headerCount; h++) {
      n = view.getUint32(at, true);
      at += 4;
      if (at + n > end) throw MALFORMED;
      const name = fromUtf8.decode(bytes.subarray(at, (at += n)));
      n = view.getInt32(at, true);
      at += 4;
      if (n >= 0) {
        if (at + n > end) throw MALFORMED;
        headers.push([name, bytes.slice(at, (at += n))]);
      } else if (n === -1) headers.push([name, null]);
      else throw MALFORMED;
    }
    n = view.getInt32(at, true);
    at += 4;
    let sourcePartition = null;
    if (n >= 0) {
      if (at + n > end) throw MALFORMED;
      sourcePartition = bytes.slice(at, (at += n));
    } else if (n !== -1) throw MALFORMED;
    n = view.getInt32(at, true);
    at += 4;
    let sourceOffset = null;
    if (n >= 0) {
      if (at + n > end) throw MALFORMED;
      sourceOffset = bytes.slice(at, (at += n));
    } else if (n !== -1) throw MALFORMED;
    out.push(build(topic, partition, offset, timestamp, keyKind, key, valueKind, value, headers, sourcePartition, sourceOffset));
  }
  if (at !== end) throw MALFORMED;
  return out;
}

/**
 * The reference reader: every field read and checked on its own, each error naming the
 * record and field. `decodeBatch` runs it only on a batch its fast path refused.
 * @param {Uint8Array} batch
 * @returns {RawRecord[]}
 */
export function checkedDecode(batch) {
  const bytes = asBytes(batch);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length === 0) throw new BatchError('empty record batch');
  const version = bytes[0];
  if (version < 1 || version > VERSION) {
    throw new BatchError(`record batch version ${version} is not supported (want 1 to ${VERSION})`);
  }
  let at = 1;
  let record = 0;
  const need = (n, field) => {
    if (at + n > bytes.length) throw new BatchError(`record batch ends inside \`${field}\` of record ${record}`);
    const start = at;
    at += n;
    return start;
  };
  const u32 = (field) => view.getUint32(need(4, field), true);
  const i32 = (field) => view.getInt32(need(4, field), true);
  const i64 = (field) => Number(view.getBigInt64(need(8, field), true));
  const take = (n, field) => bytes.slice(need(n, field), at);
  const string = (field) => {
    const b = take(u32(field), field);
    try {
      return fromUtf8.decode(b);
    } catch {
      throw new BatchError(`\`${field}\` of record ${record} is not UTF-8`);
    }
  };
  const optBytes = (field) => {
    const n = i32(field);
    if (n === -1) return null;
    if (n < 0) throw new BatchError(`\`${field}\` of record ${record} has an invalid length`);
    return take(n, field);
  };
  const kind = (field) => {
    if (version < 2) return 'bytes';
    const tag = bytes[need(1, field)];
    if (tag >= KINDS.length) throw new BatchError(`\`${field}\` of record ${record} is the unknown kind tag ${tag}`);
    return KINDS[tag];
  };
  const nonNegative = (n) => (n >= 0 ? n : null);
  const count = u32('count');
  const out = [];
  for (; record < count; record++) {
    const topic = string('topic');
    const partition = nonNegative(i32('partition'));
    const offset = nonNegative(i64('offset'));
    const timestamp = nonNegative(i64('timestamp'));
    const keyKind = kind('key kind');
    const key = optBytes('key');
    const valueKind = kind('value kind');
    const value = optBytes('value');
    const headerCount = u32('header count');
    const headers = [];
    for (let h = 0; h < headerCount; h++) headers.push([string('header key'), optBytes('header value')]);
    const sourcePartition = optBytes('source partition');
    const sourceOffset = optBytes('source offset');
    out.push({ topic, partition, offset, timestamp, keyKind, key, valueKind, value, headers, sourcePartition, sourceOffset });
  }
  if (at !== bytes.length) throw new BatchError(`${bytes.length - at} bytes after the last record of the batch`);
  return out;
}
