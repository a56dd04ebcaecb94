// `{{class}}`: a source connector that writes `count` greetings to `topic`, numbered from
// 0, and resumes after the last committed one when it restarts.
//
// Start here: change `poll` to read your system. Each record carries a source partition
// (which stream it came from) and a source offset (how far into it); the worker commits
// the offsets once the records are in Kafka, and `start` reads them back.

import { ConfigDef, Connector, SourceRecord, SourceTask, exportSource, log, nonEmpty, offsets, range } from './sdk/src/index.js';

/** The configuration of the connector and of its task. */
export const CONFIG = new ConfigDef()
  .define('topic', { type: 'string', importance: 'high', doc: 'The topic to write to.', validator: nonEmpty() })
  .define('count', { type: 'long', default: 1000, doc: 'How many records to write in all.', validator: range(0) });

/** The one source partition this task reads. */
export const PARTITION = { source: '{{name}}' };

export class {{class}}Connector extends Connector {
  name = '{{class}}';
  version = '0.1.0';
  configDef = CONFIG;

  start(config) {
    this.config = config;
  }

  taskConfigs() {
    // One stream of numbers, so one task whatever tasks.max allows.
    return [this.config];
  }
}

export class {{class}}Task extends SourceTask {
  start(raw) {
    const config = CONFIG.parse(raw);
    this.topic = config.topic;
    this.count = config.count;
    const [committed] = offsets([PARTITION]);
    this.next = committed == null ? 0 : committed.next;
    log('info', 'Starting', { next: this.next, count: this.count });
  }

  poll(maxRecords) {
    const end = Math.min(this.count, this.next + maxRecords);
    const records = [];
    for (let n = this.next; n < end; n++) {
      records.push(new SourceRecord({ topic: this.topic, sourcePartition: PARTITION, sourceOffset: { next: n + 1 }, key: String(n), value: `hello ${n}` }));
    }
    this.next = end;
    return records;
  }
}

export const { connector, sourceTask } = exportSource({{class}}Connector, {{class}}Task);
