// Unit tests of {{class}} in node (`npm test`): the file is replaced by an in-memory one.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SinkRecord, bindHost } from '../sdk/src/index.js';
import { CONFIG, {{class}}Task } from '../index.js';

const utf8 = new TextEncoder();

function record(offset, valueKind, text) {
  return new SinkRecord({ topic: 't', partition: 0, offset, timestamp: null, keyKind: 'bytes', key: null, valueKind, value: utf8.encode(text), headers: [] });
}

test('appends each value as a line', () => {
  bindHost({ log: () => {}, requestTaskReconfiguration: () => {}, raiseError: () => {}, preopens: () => [] });
  const written = [];
  {{class}}Task.open = () => ({ write: (s) => written.push(s), close: () => {} });
  const task = new {{class}}Task();
  task.start({ file: '/tmp/out.txt' });
  task.put([record(0, 'string', 'one'), record(1, 'json', '{"two": 2}'), record(2, 'json', '"three"')]);
  assert.equal(written.join(''), 'one\n{"two":2}\nthree\n');
});

test('an empty file name is rejected', () => {
  assert.deepEqual(CONFIG.validate({ file: '' }).map((p) => p.key), ['file']);
});
