// The record-batch encoding against the shared vectors in `plugins/batch/testdata/` (which
// the Rust crate and the Python SDK assert too), and malformed input.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runInNewContext } from 'node:vm';

import { BatchError, decodeBatch, encodeBatch } from '../src/batch.js';

const utf8 = (s) => new TextEncoder().encode(s);
const hex = (b) => Buffer.from(b).toString('hex');
const fromHex = (h) => new Uint8Array(Buffer.from(h, 'hex'));

/** The records of `vector_records` in plugins/batch/src/tests.rs (and the Python SDK's tests). */
const SHARED = [
  {
    topic: 't',
    partition: 3,
    offset: 42,
    timestamp: 1_700_000_000_000,
    keyKind: 'string',
    key: utf8('k'),
    valueKind: 'connect-json',
    value: utf8('{"schema":null,"payload":1}'),
    headers: [['h1', utf8('v')], ['h2', null]],
    sourcePartition: null,
    sourceOffset: null,
  },
  {
    topic: 'src',
    partition: null,
    offset: null,
    timestamp: null,
    keyKind: 'json',
    key: null,
    valueKind: 'json',
    value: utf8('{"n":1}'),
    headers: [],
    sourcePartition: utf8('{"p":0}'),
    sourceOffset: utf8('{"seq":1}'),
  },
];

/** The shared vectors every encoder and decoder of the project is pinned to. */
const testdata = (name) => readFileSync(new URL(`../../batch/testdata/${name}`, import.meta.url), 'utf8').trim();
const SHARED_HEX = testdata('batch-v2.hex');
const SHARED_V1_HEX = testdata('batch-v1.hex');

/** Compares records with Uint8Array fields as plain arrays. */
const plain = (records) => JSON.parse(JSON.stringify(records, (_, v) => (v instanceof Uint8Array ? [...v] : v)));

test('encodes the shared version 2 vector byte for byte', () => {
  assert.equal(hex(encodeBatch(SHARED)), SHARED_HEX);
});

test('decodes the shared version 2 vector into the same records', () => {
  assert.deepEqual(plain(decodeBatch(fromHex(SHARED_HEX))), plain(SHARED));
});

test('decodes the shared version 1 vector with bytes kinds', () => {
  const want = plain(SHARED).map((r) => ({ ...r, keyKind: 'bytes', valueKind: 'bytes' }));
  assert.deepEqual(plain(decodeBatch(fromHex(SHARED_V1_HEX))), want);
});

test('decoded fields are copies, not views into the batch', () => {
  // Views kept StarlingMonkey's engine memory growing until a sink task died (see decodeBatch).
  const batch = fromHex(SHARED_HEX);
  const [first, second] = decodeBatch(batch);
  for (const field of [first.key, first.value, first.headers[0][1], second.value, second.sourceOffset]) {
    assert.notEqual(field.buffer, batch.buffer);
    assert.equal(field.byteLength, field.buffer.byteLength);
  }
});

test('an empty batch is five bytes', () => {
  assert.equal(hex(encodeBatch([])), '0200000000');
  assert.deepEqual(decodeBatch(fromHex('0200000000')), []);
  assert.deepEqual(decodeBatch(fromHex('0100000000')), []);
});

test('every truncation is a BatchError naming the field', () => {
  const bytes = fromHex(SHARED_HEX);
  for (let cut = 0; cut < bytes.length; cut++) {
    assert.throws(() => decodeBatch(bytes.subarray(0, cut)), BatchError, `cut at ${cut}`);
  }
  assert.throws(() => decodeBatch(bytes.subarray(0, 8)), /ends inside `topic` of record 0/);
});

test('rejects wrong versions, trailing bytes, unknown kinds and negative lengths', () => {
  const bytes = fromHex(SHARED_HEX);
  assert.throws(() => decodeBatch(Uint8Array.of(3, 0, 0, 0, 0)), /version 3 is not supported \(want 1 to 2\)/);
  assert.throws(() => decodeBatch(Uint8Array.of(...bytes, 0)), /1 bytes after the last record/);
  const badKind = bytes.slice();
  badKind[30] = 9;
  assert.throws(() => decodeBatch(badKind), /`key kind` of record 0 is the unknown kind tag 9/);
  const badLength = bytes.slice();
  new DataView(badLength.buffer).setInt32(31, -5, true);
  assert.throws(() => decodeBatch(badLength), /`key` of record 0 has an invalid length/);
  assert.throws(() => encodeBatch([{ ...SHARED[0], keyKind: 'xml' }]), /unknown record kind "xml"/);
});

test('large batches grow the buffer and round-trip', () => {
  const records = Array.from({ length: 2000 }, (_, i) => ({ ...SHARED[1], value: utf8(`value ${i}`.repeat(10)), timestamp: i }));
  const decoded = decodeBatch(encodeBatch(records));
  assert.equal(decoded.length, 2000);
  assert.equal(new TextDecoder().decode(decoded[1999].value), 'value 1999'.repeat(10));
  assert.equal(decoded[1999].timestamp, 1999);
});

test('a batch lifted in another realm is viewed, not walked, and decodes the same', () => {
  // componentize-js hands `put` and `apply` a Uint8Array of the bindings' realm.
  const encoded = encodeBatch(SHARED);
  const foreign = runInNewContext('new Uint8Array(n)', { n: encoded.length + 3 }).subarray(3);
  foreign.set(encoded);
  assert.equal(foreign instanceof Uint8Array, false);
  // Walking it byte by byte (what `Uint8Array.from` did, ~2.5 µs a byte in StarlingMonkey) fails here.
  foreign[Symbol.iterator] = () => {
    throw new Error('walked the batch');
  };
  const records = decodeBatch(foreign);
  assert.deepEqual(records, decodeBatch(encoded));
  // Keys and values are copies of this realm: they outlive changes to the lifted bytes.
  assert.equal(records[0].key instanceof Uint8Array, true);
  foreign.fill(0);
  assert.deepEqual(records, decodeBatch(encoded));
  // A malformed foreign batch still gets the checked reader's error.
  assert.throws(() => decodeBatch(runInNewContext('new Uint8Array([9])')), BatchError);
});
