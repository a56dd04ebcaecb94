// `SourceRecord` and `SinkRecord`: the records a task writes and reads, with keys and
// values as JavaScript values and a kind saying what their bytes hold.
//
// This file owns turning values into bytes (and back) by kind. The byte layout of a batch
// belongs to `batch.js`; the Kafka Connect converters applied to the bytes belong to the
// host.

import { KINDS } from './batch.js';

/** @typedef {import('./batch.js').Kind} Kind */
/** @typedef {import('./batch.js').RawRecord} RawRecord */

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** The kind a value gets when none is given: bytes, string, or else JSON. */
function inferKind(value) {
  if (value instanceof Uint8Array) return 'bytes';
  if (typeof value === 'string') return 'string';
  return 'json';
}

/**
 * The bytes of a key or value of `kind`: a `Uint8Array` is taken as is (already encoded),
 * a string of kind `bytes` or `string` as its UTF-8, anything else as its JSON text.
 * `null` and `undefined` are null.
 * @param {unknown} value @param {Kind} kind @returns {Uint8Array | null}
 */
export function encodeData(value, kind) {
  if (value == null) return null;
  if (!KINDS.includes(kind)) throw new TypeError(`unknown record kind ${JSON.stringify(kind)}`);
  if (value instanceof Uint8Array) return value;
  if (kind === 'bytes' || kind === 'string') {
    if (typeof value !== 'string') throw new TypeError(`a ${kind} key or value must be a string or a Uint8Array`);
    return utf8.encode(value);
  }
  return utf8.encode(JSON.stringify(value));
}

/**
 * The JavaScript value of bytes of `kind`: `bytes` stays a `Uint8Array`, `string` is
 * text, `json` and `connect-json` are parsed.
 * @param {Uint8Array | null} bytes @param {Kind} kind @returns {unknown}
 */
export function decodeData(bytes, kind) {
  if (bytes == null) return null;
  switch (kind) {
    case 'bytes':
      return bytes;
    case 'string':
      return fromUtf8.decode(bytes);
    default:
      return JSON.parse(fromUtf8.decode(bytes));
  }
}

/** A header value as bytes: strings become UTF-8. */
function headerBytes(v) {
  if (v == null) return null;
  return v instanceof Uint8Array ? v : utf8.encode(String(v));
}

/** A record a source task returns from `poll`. */
export class SourceRecord {
  /**
   * @param {object} fields
   * @param {string} fields.topic
   * @param {object} fields.sourcePartition  JSON object naming where the record came from
   * @param {object} fields.sourceOffset     JSON object: the position to resume after
   * @param {unknown} [fields.key]           a string, a Uint8Array, or any JSON value
   * @param {unknown} [fields.value]
   * @param {Kind} [fields.keyKind]          default: inferred from the key
   * @param {Kind} [fields.valueKind]        default: inferred from the value
   * @param {Array<[string, string | Uint8Array | null]>} [fields.headers]
   * @param {number} [fields.timestamp]      ms since the epoch
   * @param {number} [fields.partition]      Kafka partition; default: chosen by key
   */
  constructor(fields) {
    // Fields read one by one rather than destructured with defaults, and `inferKind`
    // inline: in the engine, the destructuring and the two calls were a third of a
    // record's construction. The defaults are the same (they apply to undefined only).
    const topic = fields.topic;
    const sourcePartition = fields.sourcePartition;
    const sourceOffset = fields.sourceOffset;
    if (typeof topic !== 'string' || topic === '') throw new TypeError('a SourceRecord needs a topic');
    if (sourcePartition == null || typeof sourcePartition !== 'object') {
      throw new TypeError('a SourceRecord needs a sourcePartition object');
    }
    if (sourceOffset == null || typeof sourceOffset !== 'object') throw new TypeError('a SourceRecord needs a sourceOffset object');
    let key = fields.key;
    if (key === undefined) key = null;
    let value = fields.value;
    if (value === undefined) value = null;
    const headers = fields.headers;
    const timestamp = fields.timestamp;
    const partition = fields.partition;
    this.topic = topic;
    this.sourcePartition = sourcePartition;
    this.sourceOffset = sourceOffset;
    this.key = key;
    this.value = value;
    this.keyKind = fields.keyKind ?? (typeof key === 'string' ? 'string' : key instanceof Uint8Array ? 'bytes' : 'json');
    this.valueKind = fields.valueKind ?? (typeof value === 'string' ? 'string' : value instanceof Uint8Array ? 'bytes' : 'json');
    this.headers = headers === undefined ? [] : headers;
    this.timestamp = timestamp === undefined ? null : timestamp;
    this.partition = partition === undefined ? null : partition;
  }

  /** The record as `batch.js` encodes it. @returns {RawRecord} */
  toRaw() {
    return {
      topic: this.topic,
      partition: this.partition,
      offset: null,
      timestamp: this.timestamp,
      keyKind: this.keyKind,
      key: encodeData(this.key, this.keyKind),
      valueKind: this.valueKind,
      value: encodeData(this.value, this.valueKind),
      headers: this.headers.map(([k, v]) => [k, headerBytes(v)]),
      sourcePartition: utf8.encode(JSON.stringify(this.sourcePartition)),
      sourceOffset: utf8.encode(JSON.stringify(this.sourceOffset)),
    };
  }
}

/** A record a sink task receives in `put`. Keys and values are decoded on first use. */
export class SinkRecord {
  /** @param {RawRecord} raw */
  constructor(raw) {
    this.topic = raw.topic;
    /** @type {number} */
    this.partition = raw.partition ?? -1;
    /** @type {number} */
    this.offset = raw.offset ?? -1;
    /** @type {number | null} */
    this.timestamp = raw.timestamp;
    this.keyKind = raw.keyKind;
    this.valueKind = raw.valueKind;
    /** The key's bytes as the host's converter produced them, or null. */
    this.keyBytes = raw.key;
    /** The value's bytes as the host's converter produced them, or null. */
    this.valueBytes = raw.value;
    /** Header values stay bytes (or null). @type {Array<[string, Uint8Array | null]>} */
    this.headers = raw.headers;
  }

  /** The key as a JavaScript value, by its kind. */
  get key() {
    return decodeData(this.keyBytes, this.keyKind);
  }

  /** The value as a JavaScript value, by its kind. */
  get value() {
    return decodeData(this.valueBytes, this.valueKind);
  }

  /** The value's bytes as text (UTF-8), whatever its kind; null for a null value. */
  get valueText() {
    return this.valueBytes == null ? null : fromUtf8.decode(this.valueBytes);
  }

  /**
   * Sets the value and its kind together (a transform's change): see `encodeData`; the
   * kind is inferred from the value when not given. Returns the record.
   * @param {unknown} value @param {Kind} [kind]
   */
  setValue(value, kind) {
    this.valueKind = kind ?? inferKind(value);
    this.valueBytes = encodeData(value, this.valueKind);
    return this;
  }

  /**
   * Sets the key and its kind together, as `setValue` does. Returns the record.
   * @param {unknown} key @param {Kind} [kind]
   */
  setKey(key, kind) {
    this.keyKind = kind ?? inferKind(key);
    this.keyBytes = encodeData(key, this.keyKind);
    return this;
  }

  /** The record as `batch.js` encodes it (what a transform passes on). @returns {RawRecord} */
  toRaw() {
    return {
      topic: this.topic,
      partition: this.partition < 0 ? null : this.partition,
      offset: this.offset < 0 ? null : this.offset,
      timestamp: this.timestamp,
      keyKind: this.keyKind,
      key: this.keyBytes,
      valueKind: this.valueKind,
      value: this.valueBytes,
      headers: this.headers.map(([k, v]) => [k, headerBytes(v)]),
      sourcePartition: null,
      sourceOffset: null,
    };
  }

  /**
   * A record from the fields a batch holds (partition and offset negative for none), as
   * `new SinkRecord(raw)` makes it but with no `RawRecord` to read: what `put` uses.
   * @returns {SinkRecord}
   */
  static fromFields(topic, partition, offset, timestamp, keyKind, key, valueKind, value, headers) {
    const r = Object.create(SinkRecord.prototype);
    r.topic = topic;
    r.partition = partition >= 0 ? partition : -1;
    r.offset = offset >= 0 ? offset : -1;
    r.timestamp = timestamp >= 0 ? timestamp : null;
    r.keyKind = keyKind;
    r.valueKind = valueKind;
    r.keyBytes = key;
    r.valueBytes = value;
    r.headers = headers;
    return r;
  }

  /**
   * A record from JavaScript values, for tests: kinds inferred as `SourceRecord` does.
   * @param {{ topic: string, key?: unknown, value?: unknown, keyKind?: Kind, valueKind?: Kind,
   *   partition?: number, offset?: number, timestamp?: number | null,
   *   headers?: Array<[string, string | Uint8Array | null]> }} fields
   */
  static of({ topic, key = null, value = null, keyKind, valueKind, partition = 0, offset = 0, timestamp = null, headers = [] }) {
    const record = new SinkRecord({ topic, partition, offset, timestamp, keyKind: 'bytes', key: null, valueKind: 'bytes', value: null, headers: headers.map(([k, v]) => [k, headerBytes(v)]) });
    return record.setKey(key, keyKind).setValue(value, valueKind);
  }
}
