// Error mapping: typed errors keep their WIT case, anything else is fatal with its message;
// every fallible export returns `err` instead of throwing (a throw would trap the guest).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  ConfigError,
  Connector,
  FatalError,
  RetriableError,
  SinkTask,
  SourceTask,
  connectorExports,
  exportSink,
  exportSource,
  toWitError,
} from '../src/index.js';
import { bindFakeHost } from './fake-host.js';

test('typed errors map to their WIT case', () => {
  assert.deepEqual(toWitError(new RetriableError('later')), { tag: 'retriable', val: 'later' });
  assert.deepEqual(toWitError(new ConfigError('bad key')), { tag: 'config', val: 'bad key' });
  assert.deepEqual(toWitError(new FatalError('broken')), { tag: 'fatal', val: 'broken' });
});

test('any other exception is fatal with its message', () => {
  assert.deepEqual(toWitError(new Error('plain')), { tag: 'fatal', val: 'plain' });
  assert.deepEqual(toWitError(new TypeError('x is undefined')), { tag: 'fatal', val: 'TypeError: x is undefined' });
  assert.deepEqual(toWitError('a string'), { tag: 'fatal', val: 'a string' });
  assert.deepEqual(toWitError(undefined), { tag: 'fatal', val: 'undefined' });
});

test('fallible exports return err results', () => {
  bindFakeHost();
  class Failing extends Connector {
    start() {
      throw new ConfigError('no such mode');
    }
    taskConfigs() {
      throw new RetriableError('not yet');
    }
  }
  const c = connectorExports(Failing);
  assert.deepEqual(c.start([]), { tag: 'err', val: { tag: 'config', val: 'no such mode' } });
  assert.deepEqual(c.taskConfigs(1), { tag: 'err', val: { tag: 'retriable', val: 'not yet' } });

  class Exploding extends SourceTask {
    poll() {
      throw new Error('boom');
    }
  }
  const { sourceTask } = exportSource(Connector, Exploding);
  assert.deepEqual(sourceTask.poll(10), { tag: 'err', val: { tag: 'fatal', val: 'the source task was called before start' } });
  assert.deepEqual(sourceTask.start([]), { tag: 'ok', val: undefined });
  assert.deepEqual(sourceTask.poll(10), { tag: 'err', val: { tag: 'fatal', val: 'boom' } });

  class BadPut extends SinkTask {
    put() {
      throw new RetriableError('database busy');
    }
  }
  const { sinkTask } = exportSink(Connector, BadPut);
  sinkTask.start([]);
  assert.deepEqual(sinkTask.put(Uint8Array.of(2, 0, 0, 0, 0)), { tag: 'err', val: { tag: 'retriable', val: 'database busy' } });
  assert.deepEqual(sinkTask.put(Uint8Array.of(7)), {
    tag: 'err',
    val: { tag: 'fatal', val: 'BatchError: record batch version 7 is not supported (want 1 to 2)' },
  });
});

test('stop never throws; what it threw is logged', () => {
  const host = bindFakeHost();
  class BadStop extends Connector {
    stop() {
      throw new Error('cannot stop');
    }
  }
  const c = connectorExports(BadStop);
  assert.doesNotThrow(() => c.stop());
  assert.deepEqual(host.logs, [['error', 'stop threw: cannot stop', []]]);
});
