// `SequenceSource`: the connector half of the sequence example, its configuration
// definition and its one task config. It moves no data; `task.js` does.

import { ConfigDef, Connector, nonEmpty, range } from 'wasm-connect-sdk';

/** The configuration of the connector and of its task. */
export const CONFIG = new ConfigDef()
  .define('topic', { type: 'string', importance: 'high', doc: 'The topic to write the numbers to.', validator: nonEmpty() })
  .define('count', { type: 'long', default: 1000, importance: 'high', doc: 'How many records to emit in all (sequence numbers 0 to count-1).', validator: range(0) })
  .define('batch.size', { type: 'int', default: 100, importance: 'medium', doc: 'The most records one poll returns.', validator: range(1, 10000) })
  .define('fail.at', {
    type: 'long',
    required: false,
    importance: 'low',
    doc: 'For tests: the task throws an exception instead of emitting this sequence number.',
    validator: range(0),
  });

export class SequenceSource extends Connector {
  name = 'JsSequenceSource';
  version = '0.1.0';
  configDef = CONFIG;

  validate(config) {
    if (config['fail.at'] != null && config['fail.at'] >= config.count) {
      return [{ key: 'fail.at', message: `fail.at ${config['fail.at']} is never reached with count ${config.count}` }];
    }
    return [];
  }

  start(config) {
    this.config = config;
  }

  taskConfigs() {
    // One sequence is one stream: a single task, whatever tasks.max says.
    return [this.config];
  }
}
