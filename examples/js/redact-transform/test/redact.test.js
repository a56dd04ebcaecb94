// JsRedact through the SDK's TransformHarness: the same cases as the Rust example.
// Run: node --test examples/js/redact-transform/test (the SDK is imported by path).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SinkRecord, TransformHarness } from '../../../../plugins/sdk-js/src/index.js';
import { Redact } from '../redact.js';

const harness = (config) => {
  const t = new TransformHarness(Redact);
  t.configure(config);
  return t;
};

test('redacts, routes and drops JSON values', () => {
  const t = harness({ 'redact.fields': 'ssn, card', 'route.field': 'region', 'drop.field': 'test' });
  assert.deepEqual([t.name, t.version], ['JsRedact', '0.1.0']);
  const values = [{ id: 1, ssn: '123', region: 'eu' }, { id: 2, test: true }, { id: 3, test: 'yes', region: 7, card: 4111 }, { id: 4 }];
  const records = values.map((value, offset) => SinkRecord.of({ topic: 'orders', value, offset }));
  const out = t.apply(records);
  assert.deepEqual(out.origins, [0, 2, 3]);
  assert.deepEqual(out.records.map((r) => r.topic), ['orders.eu', 'orders.7', 'orders']);
  assert.deepEqual(out.records.map((r) => r.value), [
    { id: 1, ssn: '****', region: 'eu' },
    { id: 3, test: 'yes', region: 7, card: '****' },
    { id: 4 },
  ]);
  assert.deepEqual(out.failures, []);
});

test('redacts a connect-json struct and its schema', () => {
  const t = harness({ 'redact.fields': 'pin', 'redact.replacement': 'x' });
  const envelope = {
    schema: { type: 'struct', optional: false, fields: [{ type: 'int32', optional: true, field: 'pin' }, { type: 'string', optional: false, field: 'name' }] },
    payload: { pin: 1234, name: 'a' },
  };
  const out = t.applyOne(SinkRecord.of({ topic: 't', value: envelope, valueKind: 'connect-json' }));
  assert.equal(out.valueKind, 'connect-json');
  assert.deepEqual(out.value.payload, { pin: 'x', name: 'a' });
  assert.deepEqual(out.value.schema.fields[0], { type: 'string', optional: true, field: 'pin' });
});

test('fails values that are not objects and keeps tombstones', () => {
  const t = harness({ 'redact.fields': 'a' });
  const records = [
    SinkRecord.of({ topic: 't', value: 'plain' }),
    SinkRecord.of({ topic: 't', value: [1] }),
    SinkRecord.of({ topic: 't', value: new TextEncoder().encode('null'), valueKind: 'json' }),
    SinkRecord.of({ topic: 't' }),
  ];
  const out = t.apply(records);
  assert.deepEqual(out.origins, [2, 3]);
  assert.deepEqual(out.failures, [
    { index: 0, reason: 'a value of kind string is not a JSON object' },
    { index: 1, reason: 'a value of kind json is not a JSON object but an array' },
  ]);
  assert.equal(out.records[1].valueBytes, null);
});

test('redact.fields is required', () => {
  const t = new TransformHarness(Redact);
  assert.deepEqual(t.validate({}).map((p) => p.key), ['redact.fields']);
  assert.deepEqual(t.validate({ 'redact.fields': 'a' }), []);
});
