// `JsonlTask`: appends each record's value (its text: JSON for JSON values) as one line
// to the configured file; a null value is the line `null`.

import { FileAppender, SinkTask } from 'wasm-connect-sdk';

import { CONFIG } from './connector.js';

export class JsonlTask extends SinkTask {
  start(raw) {
    this.out = new FileAppender(CONFIG.parse(raw).file);
  }

  put(records) {
    if (records.length === 0) return;
    this.out.write(records.map((r) => `${r.valueText ?? 'null'}\n`).join(''));
  }

  stop() {
    this.out?.close();
  }
}
