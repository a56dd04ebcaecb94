// `SequenceTask`: emits `{"seq": n}` JSON records numbered from 0 to count-1, keeps
// `{"seq": n}` (the last emitted number) as its source offset, and after a restart
// resumes after the committed offset.

import { SourceRecord, SourceTask, log, offsets } from 'wasm-connect-sdk';

import { CONFIG } from './connector.js';

/** The one source partition of this connector. */
const PARTITION = { sequence: 'numbers' };

export class SequenceTask extends SourceTask {
  start(raw) {
    this.config = CONFIG.parse(raw);
    const [committed] = offsets([PARTITION]);
    this.next = committed == null ? 0 : committed.seq + 1;
    log('info', 'Sequence task started', { next: this.next, count: this.config.count });
  }

  poll(maxRecords) {
    const { topic, count } = this.config;
    const failAt = this.config['fail.at'];
    const n = Math.min(maxRecords, this.config['batch.size'], count - this.next);
    const records = [];
    for (let i = 0; i < n; i++) {
      const seq = this.next;
      if (seq === failAt) throw new Error(`sequence-source was told to fail at ${seq} (fail.at)`);
      records.push(new SourceRecord({ topic, sourcePartition: PARTITION, sourceOffset: { seq }, key: String(seq), value: { seq } }));
      this.next = seq + 1;
    }
    return records;
  }
}
