// Transforms: the `transformation` export (origins, failures, drops, err on a throw or a
// malformed batch) and the `TransformHarness` an author tests with.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ConfigDef, FatalError, SinkRecord, Transform, TransformHarness, decodeBatch, encodeBatch, exportTransform, fail } from '../src/index.js';

const text = (b) => (b == null ? null : new TextDecoder().decode(b));

class ByValue extends Transform {
  name = 'ByValue';
  version = '0.0.1';
  configDef = new ConfigDef().define('suffix', { default: '' });
  apply(record) {
    switch (record.value) {
      case 'keep':
        record.topic = 'out';
        return record.setValue(`KEEP${this.config.suffix}`);
      case 'drop':
        return null;
      case 'fail':
        return fail('told to fail');
      case 'err':
        throw new FatalError('batch-wide');
      default:
        return record;
    }
  }
}

const batchOf = (...values) => encodeBatch(values.map((v, i) => SinkRecord.of({ topic: 'in', value: v, offset: i }).toRaw()));

test('apply returns survivors with origins and failures', () => {
  const { transformation } = exportTransform(ByValue);
  assert.equal(transformation.name(), 'ByValue');
  assert.equal(transformation.version(), '0.0.1');
  assert.deepEqual(transformation.configDefinition().map((k) => k.name), ['suffix']);
  assert.equal(transformation.configure([['suffix', '!']]).tag, 'ok');
  const result = transformation.apply(batchOf('drop', 'keep', 'fail', 'other', 'drop'));
  assert.equal(result.tag, 'ok');
  assert.ok(result.val.origins instanceof Uint32Array);
  assert.deepEqual([...result.val.origins], [1, 3]);
  const records = decodeBatch(result.val.records);
  assert.deepEqual(records.map((r) => [r.topic, text(r.value), r.offset]), [['out', 'KEEP!', 1], ['in', 'other', 3]]);
  assert.equal(records[0].sourcePartition, null);
  assert.deepEqual(result.val.failures, [{ index: 2, reason: 'told to fail' }]);
  transformation.close();
});

test('a throw or a malformed batch is an err', () => {
  const { transformation } = exportTransform(ByValue);
  transformation.configure([]);
  assert.deepEqual(transformation.apply(batchOf('keep', 'err')), { tag: 'err', val: { tag: 'fatal', val: 'batch-wide' } });
  const bad = transformation.apply(new Uint8Array([9]));
  assert.equal(bad.tag, 'err');
  assert.equal(bad.val.tag, 'fatal');
});

test('validate and configure check the definition', () => {
  class Needs extends Transform {
    configDef = new ConfigDef().define('fields', { type: 'list' });
  }
  const { transformation } = exportTransform(Needs);
  assert.deepEqual(transformation.validate([]).map((p) => p.key), ['fields']);
  assert.deepEqual(transformation.validate([['fields', 'a']]), []);
  assert.equal(transformation.configure([]).val.tag, 'config');
  assert.throws(() => exportTransform(class {}), /subclass of Transform/);
});

test('the harness runs batches as the worker does', () => {
  const t = new TransformHarness(ByValue);
  t.configure({});
  const out = t.apply(['keep', 'drop', 'fail', 'x'].map((value, offset) => SinkRecord.of({ topic: 'in', value, offset })));
  assert.deepEqual(out.origins, [0, 3]);
  assert.deepEqual(out.records.map((r) => r.value), ['KEEP', 'x']);
  assert.equal(out.outcomes[1], null);
  assert.equal(out.outcomes[2].reason, 'told to fail');
  const tombstone = SinkRecord.of({ topic: 'in' });
  assert.equal(t.applyOne(tombstone).valueBytes, null);
  assert.throws(() => t.apply([SinkRecord.of({ topic: 'in', value: 'err' })]), /batch-wide/);
});
