// Unit tests of {{class}} in node (`npm test`): TransformHarness runs batches as the
// worker does.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SinkRecord, TransformHarness } from '../sdk/src/index.js';
import { {{class}} } from '../index.js';

test('prefixes topics and drops tombstones when asked', () => {
  const t = new TransformHarness({{class}});
  t.configure({ 'drop.tombstones': 'true' });
  const out = t.apply([SinkRecord.of({ topic: 'orders', value: 'one' }), SinkRecord.of({ topic: 'orders', offset: 1 })]);
  assert.deepEqual(out.origins, [0], 'the tombstone is dropped');
  assert.equal(out.records[0].topic, '{{name}}.orders');
  assert.equal(out.records[0].value, 'one');
});

test('a bad boolean is a config problem', () => {
  const t = new TransformHarness({{class}});
  assert.deepEqual(t.validate({ 'drop.tombstones': 'maybe' }).map((p) => p.key), ['drop.tombstones']);
});
