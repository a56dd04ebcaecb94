// The fast paths of the batch (`encodeSources`, the loop inside `decodeBatch`) against the
// reference code they stand in for: the same bytes, the same records, the same errors.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { BatchError, checkedDecode, decodeBatch, decodeBatchWith, encodeBatch } from '../src/batch.js';
import { SinkRecord, SourceRecord } from '../src/records.js';
import { encodeAscii, encodeSources } from '../src/source-batch.js';

const fromHex = (h) => new Uint8Array(Buffer.from(h, 'hex'));
const testdata = (name) => fromHex(readFileSync(new URL(`../../batch/testdata/${name}`, import.meta.url), 'utf8').trim());
const plain = (records) => JSON.parse(JSON.stringify(records, (_, v) => (v instanceof Uint8Array ? [...v] : v)));

function sources() {
  const shared = { file: 'a' };
  return [
    new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { line: 1 }, key: 'k', value: 'v' }),
    new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { line: 2 }, key: [1, 2], value: { n: 1, s: 'é\u{1F600}' } }),
    new SourceRecord({ topic: 'u', sourcePartition: shared, sourceOffset: { line: 3 }, value: Uint8Array.of(0, 255), partition: 2, timestamp: 1_700_000_000_123 }),
    new SourceRecord({ topic: 't', sourcePartition: { file: 'b' }, sourceOffset: {}, key: new Uint8Array(0) }),
    new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { l: 4 }, key: 5, keyKind: 'connect-json', value: 'x', valueKind: 'json' }),
    new SourceRecord({ topic: 'tópico', sourcePartition: shared, sourceOffset: { l: 5 }, value: 'h', headers: [['a', '1'], ['b', null], ['c', Uint8Array.of(1)], ['d', 7]] }),
  ];
}

test('source batches are byte for byte the reference encoding', () => {
  const records = sources();
  assert.deepEqual([...encodeSources(records)], [...encodeBatch(records.map((r) => r.toRaw()))]);
  assert.deepEqual([...encodeSources([])], [...encodeBatch([])]);
});

test('a partition object changed between polls gets its new text', () => {
  const records = sources().slice(0, 2);
  const before = encodeSources(records);
  records[0].sourcePartition.file = 'z';
  const after = encodeSources(records);
  assert.notDeepEqual([...before], [...after]);
  assert.deepEqual([...after], [...encodeBatch(records.map((r) => r.toRaw()))]);
});

test('an unknown kind or a fractional timestamp is refused', () => {
  const r = sources()[0];
  assert.throws(() => encodeSources([Object.assign(r, { valueKind: 'xml' })]), /unknown record kind "xml"/);
  assert.throws(() => encodeSources([Object.assign(sources()[0], { timestamp: 1.5 })]), RangeError);
});

test('the fast reader gives the checked reader\'s records for both vectors and many shapes', () => {
  for (const bytes of [testdata('batch-v1.hex'), testdata('batch-v2.hex'), encodeSources(sources())]) {
    assert.deepEqual(plain(decodeBatch(bytes)), plain(checkedDecode(bytes)));
  }
});

test('every truncation, extension and corruption is the checked reader\'s error', () => {
  const data = testdata('batch-v2.hex');
  const bad = [];
  for (let n = 0; n < data.length; n++) bad.push(data.subarray(0, n));
  bad.push(Uint8Array.of(...data, 0));
  for (let i = 0; i < data.length; i++) {
    for (const v of [0x80, 0xff]) {
      const b = Uint8Array.from(data);
      b[i] = v;
      bad.push(b);
    }
  }
  for (const b of bad) {
    let checked = null;
    try {
      checkedDecode(b);
    } catch (e) {
      checked = e;
    }
    if (checked === null) {
      assert.deepEqual(plain(decodeBatch(b)), plain(checkedDecode(b)));
      continue;
    }
    assert.throws(() => decodeBatch(b), (e) => e instanceof BatchError && e.message === checked.message);
  }
});

test('a batch that outgrows its first buffer, in a field or in a header, is still the reference encoding', () => {
  const shared = { file: 'a' };
  const big = 'é'.repeat(40_000);
  const records = [];
  for (let i = 0; i < 50; i++) {
    records.push(new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { i }, key: String(i), value: { i } }));
  }
  records.push(new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { i: 50 }, value: big, headers: [['h', big], [big, null]] }));
  records.push(new SourceRecord({ topic: 't', sourcePartition: { file: 'b' }, sourceOffset: { i: 51 }, key: Uint8Array.from({ length: 70_000 }, (_, j) => j & 255) }));
  assert.deepEqual([...encodeSources(records)], [...encodeBatch(records.map((r) => r.toRaw()))]);
});

test('a reused buffer gives the reference encoding each time, and is overwritten by the next poll', () => {
  const records = sources();
  const long = records.concat(records, records);
  const a = encodeSources(records, true);
  assert.deepEqual([...a], [...encodeBatch(records.map((r) => r.toRaw()))]);
  const b = encodeSources(long.slice(0, 2), true);
  assert.deepEqual([...b], [...encodeBatch(long.slice(0, 2).map((r) => r.toRaw()))]);
  assert.equal(a.buffer, b.buffer);
  assert.deepEqual([...encodeSources(long, true)], [...encodeBatch(long.map((r) => r.toRaw()))]);
  // Without `reuse` a batch is its own copy.
  assert.notEqual(encodeSources(records).buffer, encodeSources(records).buffer);
});

/** ASCII records with no headers, in every shape the ASCII loop writes on its own. */
function asciiSources() {
  const shared = { file: 'a' };
  return [
    new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { line: 1 }, key: 'k', value: 'v' }),
    new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { line: 2 }, key: [1, 2], value: { n: 1, s: 'x\n' } }),
    new SourceRecord({ topic: 'u', sourcePartition: shared, sourceOffset: { line: 3 }, value: Uint8Array.of(0, 255), partition: 2, timestamp: 1_700_000_000_123 }),
    new SourceRecord({ topic: 't', sourcePartition: { file: 'b' }, sourceOffset: {}, key: new Uint8Array(0), value: '' }),
    new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { l: 4 }, key: 5, keyKind: 'connect-json', value: 'x', valueKind: 'json' }),
    new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { l: 5 }, timestamp: 0 }),
    new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { l: 6 }, partition: 0, value: { seq: 6 } }),
  ];
}

test('the ASCII loop writes the reference encoding, alone and through encodeSources', () => {
  const records = asciiSources();
  const reference = [...encodeBatch(records.map((r) => r.toRaw()))];
  assert.deepEqual([...encodeAscii(records)], reference);
  assert.deepEqual([...encodeAscii(records, true)], reference);
  assert.deepEqual([...encodeSources(records)], reference);
  assert.deepEqual([...encodeAscii([])], [...encodeBatch([])]);
});

test('the ASCII loop refuses a batch with headers or with text that is not ASCII anywhere', () => {
  const withHeader = asciiSources();
  withHeader.push(new SourceRecord({ topic: 't', sourcePartition: {}, sourceOffset: {}, headers: [['h', 'v']] }));
  assert.equal(encodeAscii(withHeader), null);
  for (const field of ['key', 'value', 'sourceOffset']) {
    const records = asciiSources();
    const last = records[records.length - 1];
    last[field] = field === 'sourceOffset' ? { at: 'é' } : 'x\u{1F600}';
    if (field !== 'sourceOffset') last[`${field}Kind`] = 'string';
    assert.equal(encodeAscii(records), null, field);
    // encodeSources falls back to the general loop, for this batch and the next ones.
    for (let i = 0; i < 20; i++) assert.deepEqual([...encodeSources(records, true)], [...encodeBatch(records.map((r) => r.toRaw()))]);
  }
  const lone = asciiSources();
  lone[0].key = '\uD800';
  assert.equal(encodeAscii(lone), null);
});

test('the ASCII loop grows its buffer for long texts and long bytes, and throws the errors the general loop throws', () => {
  const shared = { file: 'a' };
  const records = [];
  for (let i = 0; i < 50; i++) records.push(new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { i }, key: String(i), value: { i } }));
  records.push(new SourceRecord({ topic: 't', sourcePartition: shared, sourceOffset: { i: 50 }, value: 'x'.repeat(100_000) }));
  records.push(new SourceRecord({ topic: 't', sourcePartition: { file: 'b' }, sourceOffset: { i: 51 }, key: Uint8Array.from({ length: 70_000 }, (_, j) => j & 255) }));
  assert.deepEqual([...encodeAscii(records, true)], [...encodeBatch(records.map((r) => r.toRaw()))]);
  assert.throws(() => encodeAscii([Object.assign(asciiSources()[0], { valueKind: 'xml' })]), /unknown record kind "xml"/);
  assert.throws(() => encodeAscii([Object.assign(asciiSources()[0], { timestamp: 1.5 })]), RangeError);
});

test('a put\'s records made straight from the fields are the records made from RawRecords', () => {
  for (const bytes of [testdata('batch-v1.hex'), testdata('batch-v2.hex'), encodeSources(sources())]) {
    const direct = decodeBatchWith(bytes, SinkRecord.fromFields);
    const viaRaw = decodeBatch(bytes).map((raw) => new SinkRecord(raw));
    assert.ok(direct.length > 0 && direct.every((r) => r instanceof SinkRecord));
    assert.deepEqual(direct, viaRaw);
    assert.deepEqual(direct.map((r) => [r.key, r.value, r.valueText]), viaRaw.map((r) => [r.key, r.value, r.valueText]));
  }
  assert.throws(() => decodeBatchWith(testdata('batch-v2.hex').subarray(0, 9), SinkRecord.fromFields), BatchError);
});

test('SourceRecord defaults apply to missing fields only, as before', () => {
  const r = new SourceRecord({ topic: 't', sourcePartition: {}, sourceOffset: {} });
  assert.deepEqual([r.key, r.value, r.keyKind, r.valueKind, r.headers, r.timestamp, r.partition], [null, null, 'json', 'json', [], null, null]);
  const b = new SourceRecord({ topic: 't', sourcePartition: {}, sourceOffset: {}, key: Uint8Array.of(1), value: 'v', partition: 0, timestamp: 0 });
  assert.deepEqual([b.keyKind, b.valueKind, b.partition, b.timestamp], ['bytes', 'string', 0, 0]);
  assert.throws(() => new SourceRecord({ sourcePartition: {}, sourceOffset: {} }), /needs a topic/);
});
