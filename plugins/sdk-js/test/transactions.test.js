// The transaction context: null unless the worker honours it, and each request goes to
// the `transaction-context` import as the contract names it (record indices checked).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Connector, SourceRecord, SourceTask, exportSource, transactionContext } from '../src/index.js';
import { bindFakeHost } from './fake-host.js';

/** Binds a fake host whose `transaction-context` answers `active` and records requests. */
function bindTransactional(active) {
  const fake = bindFakeHost();
  fake.requests = [];
  fake.transactionContext = {
    isActive: () => active,
    commitTransaction: () => fake.requests.push(['commit']),
    commitTransactionAfter: (i) => fake.requests.push(['commit', i]),
    abortTransaction: () => fake.requests.push(['abort']),
    abortTransactionAfter: (i) => fake.requests.push(['abort', i]),
  };
  return fake;
}

test('there is no transaction context unless the worker honours it', () => {
  bindFakeHost();
  assert.equal(transactionContext(), null, 'no transaction-context import bound');
  bindTransactional(false);
  assert.equal(transactionContext(), null, 'bound, but not active');
});

test('requests reach the import, per batch or after a record', () => {
  const fake = bindTransactional(true);
  const tx = transactionContext();
  assert.ok(tx);
  tx.commitTransaction();
  tx.abortTransaction();
  tx.commitTransactionAfter(0);
  tx.abortTransactionAfter(7);
  assert.deepEqual(fake.requests, [['commit'], ['abort'], ['commit', 0], ['abort', 7]]);
  assert.throws(() => tx.commitTransactionAfter(-1), RangeError);
  assert.throws(() => tx.abortTransactionAfter(1.5), RangeError);
  tx.abortTransactionAfter(2 ** 40);
  assert.deepEqual(fake.requests.at(-1), ['abort', 0xffffffff], 'past any batch: the worker refuses it');
});

test('a task asks during poll, for the batch it returns', () => {
  const fake = bindTransactional(true);
  class Halves extends SourceTask {
    poll() {
      const records = [0, 1, 2, 3].map((n) => new SourceRecord({ topic: 't', sourcePartition: { p: 0 }, sourceOffset: { n }, value: `${n}` }));
      const tx = transactionContext();
      tx?.abortTransactionAfter(1);
      tx?.commitTransaction();
      return records;
    }
  }
  const { sourceTask } = exportSource(Connector, Halves);
  sourceTask.start([]);
  assert.equal(sourceTask.poll(4).tag, 'ok');
  assert.deepEqual(fake.requests, [['abort', 1], ['commit']]);
});
