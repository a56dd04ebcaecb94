// Unit tests of {{class}} in node (`npm test`): a fake host stands in for the worker.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { bindHost } from '../sdk/src/index.js';
import { CONFIG, PARTITION, {{class}}Task } from '../index.js';

/** Binds a fake worker whose committed offsets are `committed` (partition → offset). */
function fakeWorker(committed = new Map()) {
  const key = (p) => JSON.stringify(p);
  bindHost({
    log: () => {},
    requestTaskReconfiguration: () => {},
    raiseError: () => {},
    offsets: (partitions) => partitions.map((p) => committed.get(p)),
    preopens: () => [],
  });
  return { commit: (p, o) => committed.set(key(p), JSON.stringify(o)) };
}

test('writes count records and resumes after the committed one', () => {
  const worker = fakeWorker();
  let task = new {{class}}Task();
  task.start({ topic: 't', count: '3' });
  const first = task.poll(2);
  assert.deepEqual(first.map((r) => r.value), ['hello 0', 'hello 1']);
  worker.commit(PARTITION, first.at(-1).sourceOffset);
  task = new {{class}}Task();
  task.start({ topic: 't', count: '3' });
  assert.deepEqual(task.poll(100).map((r) => r.value), ['hello 2']);
  assert.deepEqual(task.poll(100), []);
});

test('a negative count is rejected', () => {
  const problems = CONFIG.validate({ topic: 't', count: '-1' });
  assert.deepEqual(problems.map((p) => p.key), ['count']);
});
