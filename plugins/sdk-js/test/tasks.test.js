// The task exports: polled records encoded as batches, acks routed to commitRecord in
// order, sink batches decoded into SinkRecords, pre-commit offsets as BigInt, and the host
// calls with JSON in and out.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  Connector,
  FileAppender,
  SinkTask,
  SourceRecord,
  SourceTask,
  decodeBatch,
  encodeBatch,
  exportSink,
  exportSource,
  log,
  offsets,
  raiseError,
  requestTaskReconfiguration,
  RetriableError,
} from '../src/index.js';
import { bindFakeHost } from './fake-host.js';

const text = (b) => (b == null ? null : new TextDecoder().decode(b));

class Numbers extends SourceTask {
  acked = [];
  start(config) {
    this.topic = config.topic;
    this.next = 0;
  }
  poll(max) {
    const out = [];
    for (let i = 0; i < max; i++, this.next++) {
      out.push(new SourceRecord({ topic: this.topic, sourcePartition: { p: 0 }, sourceOffset: { seq: this.next }, key: `${this.next}`, value: { seq: this.next } }));
    }
    return out;
  }
  commitRecord(record, metadata) {
    this.acked.push([record.sourceOffset.seq, metadata.offset]);
  }
}

test('poll encodes SourceRecords with inferred kinds and JSON source fields', () => {
  bindFakeHost();
  const { sourceTask } = exportSource(Connector, Numbers);
  sourceTask.start([['topic', 'nums']]);
  const result = sourceTask.poll(2);
  assert.equal(result.tag, 'ok');
  const [first, second] = decodeBatch(result.val);
  assert.equal(first.topic, 'nums');
  assert.equal(first.keyKind, 'string');
  assert.equal(first.valueKind, 'json');
  assert.equal(text(second.value), '{"seq":1}');
  assert.equal(text(second.sourcePartition), '{"p":0}');
  assert.equal(text(second.sourceOffset), '{"seq":1}');
  assert.equal(first.offset, null);
  assert.equal(first.partition, null);
});

test('acks reach commitRecord once per record, in order, with the Kafka offset', () => {
  bindFakeHost();
  let task;
  class Spy extends Numbers {
    constructor() {
      super();
      task = this;
    }
  }
  const { sourceTask } = exportSource(Connector, Spy);
  sourceTask.start([['topic', 't']]);
  sourceTask.poll(3);
  sourceTask.poll(2);
  const ack = (sequence, offset) => ({ sequence: BigInt(sequence), partition: 0, offset: BigInt(offset) });
  assert.equal(sourceTask.commitRecords([ack(0, 100), ack(1, 101)]).tag, 'ok');
  // Sequence 2 was never acknowledged (a filtered record); 3 and 4 were.
  assert.equal(sourceTask.commitRecords([ack(3, 102), ack(4, 103)]).tag, 'ok');
  assert.deepEqual(task.acked, [[0, 100], [1, 101], [3, 102], [4, 103]]);
});

test('record kinds: explicit kinds, bytes, null values and headers', () => {
  const raw = new SourceRecord({
    topic: 't',
    sourcePartition: {},
    sourceOffset: {},
    key: new Uint8Array([1, 2]),
    value: { schema: { type: 'string' }, payload: 'x' },
    valueKind: 'connect-json',
    headers: [['a', 'b'], ['n', null]],
    timestamp: 5,
    partition: 1,
  }).toRaw();
  assert.equal(raw.keyKind, 'bytes');
  assert.deepEqual([...raw.key], [1, 2]);
  assert.equal(text(raw.value), '{"schema":{"type":"string"},"payload":"x"}');
  assert.deepEqual(raw.headers.map(([k, v]) => [k, text(v)]), [['a', 'b'], ['n', null]]);
  const tombstone = new SourceRecord({ topic: 't', sourcePartition: {}, sourceOffset: {}, value: null }).toRaw();
  assert.equal(tombstone.value, null);
  assert.throws(() => new SourceRecord({ topic: 't', sourcePartition: {} }), /needs a sourceOffset/);
  assert.throws(() => new SourceRecord({ topic: 't', sourcePartition: {}, sourceOffset: {}, value: 5, valueKind: 'string' }).toRaw(), /must be a string/);
});

test('put decodes SinkRecords, returns failures, and pre-commit converts offsets', () => {
  bindFakeHost();
  let seen;
  class Collect extends SinkTask {
    put(records) {
      seen = records;
      return [{ index: 1, reason: 'no thanks' }];
    }
    preCommit(offsets) {
      return offsets.filter((o) => o.partition === 0);
    }
  }
  const { sinkTask } = exportSink(Connector, Collect);
  sinkTask.start([]);
  assert.equal(sinkTask.open([{ topic: 't', partition: 0 }]).tag, 'ok');
  const utf8 = (s) => new TextEncoder().encode(s);
  const batch = encodeBatch([
    { topic: 't', partition: 0, offset: 7, timestamp: 9, keyKind: 'string', key: utf8('k'), valueKind: 'json', value: utf8('{"n":1}'), headers: [['h', utf8('v')]], sourcePartition: null, sourceOffset: null },
    { topic: 't', partition: 0, offset: 8, timestamp: null, keyKind: 'bytes', key: null, valueKind: 'string', value: utf8('plain'), headers: [], sourcePartition: null, sourceOffset: null },
  ]);
  assert.deepEqual(sinkTask.put(batch), { tag: 'ok', val: [{ index: 1, reason: 'no thanks' }] });
  assert.deepEqual([seen[0].key, seen[0].value, seen[0].offset, seen[0].timestamp], ['k', { n: 1 }, 7, 9]);
  assert.deepEqual([seen[1].key, seen[1].value, seen[1].valueText, seen[1].timestamp], [null, 'plain', 'plain', null]);
  const committed = sinkTask.preCommit([
    { topic: 't', partition: 0, offset: 9n },
    { topic: 't', partition: 1, offset: 3n },
  ]);
  assert.deepEqual(committed, { tag: 'ok', val: [{ topic: 't', partition: 0, offset: 9n }] });
});

test('host calls convert JSON and fields', () => {
  const host = bindFakeHost({ '{"p":0}': '{"seq":41}' });
  assert.deepEqual(offsets([{ p: 0 }, { p: 1 }]), [{ seq: 41 }, null]);
  assert.deepEqual(host.asked, ['{"p":0}', '{"p":1}']);
  log('warn', 'Slow', { ms: 12, who: 'me' });
  assert.deepEqual(host.logs, [['warn', 'Slow', [['ms', '12'], ['who', 'me']]]]);
  assert.throws(() => log('loud', 'x'), /unknown log level "loud"/);
  requestTaskReconfiguration();
  assert.equal(host.reconfigurations, 1);
  raiseError(new RetriableError('lost connection'));
  raiseError(new Error('gone'));
  assert.deepEqual(host.errors, [{ tag: 'retriable', val: 'lost connection' }, { tag: 'fatal', val: 'gone' }]);
});

test('FileAppender names the open directories when a path is outside them', () => {
  bindFakeHost();
  assert.throws(() => new FileAppender('/etc/passwd'), /not inside a directory this sandbox may open \(open: none\)/);
});

test('FileAppender opens the file under the longest preopen and writes in 4096-byte chunks', () => {
  const host = bindFakeHost();
  const writes = [];
  const opened = [];
  const dir = (name) => ({
    openAt: (pathFlags, path, openFlags, flags) => {
      opened.push([name, path, pathFlags, openFlags, flags]);
      return { appendViaStream: () => ({ blockingWriteAndFlush: (b) => writes.push(b.length), blockingFlush: () => writes.push('flush') }) };
    },
  });
  host.preopens = () => [[dir('tmp'), '/tmp'], [dir('out'), '/tmp/out/']];
  const out = new FileAppender('/tmp/out/data/x.jsonl');
  assert.deepEqual(opened, [['out', 'data/x.jsonl', { symlinkFollow: false }, { create: true }, { write: true }]]);
  out.write('x'.repeat(9000));
  out.close();
  out.close();
  assert.deepEqual(writes, [4096, 4096, 808, 'flush']);
});
