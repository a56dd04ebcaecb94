// `{{class}}`: a single message transform that moves every record to the topic
// `<topic.prefix><topic>` and, with `drop.tombstones=true`, drops records with a null
// value.
//
// Start here: change `apply` to change records your way. It may change a record's topic,
// partition, timestamp, headers, key (`setKey`) and value (`setValue`), return null to
// drop it, or return `fail(reason)`, which the worker routes by the connector's
// `errors.*` settings.

import { ConfigDef, Transform, exportTransform } from './sdk/src/index.js';

export const CONFIG = new ConfigDef()
  .define('topic.prefix', { default: '{{name}}.', importance: 'high', doc: "The prefix every record's topic gets." })
  .define('drop.tombstones', { type: 'boolean', default: false, doc: 'Drop records whose value is null.' });

export class {{class}} extends Transform {
  name = '{{class}}';
  version = '0.1.0';
  configDef = CONFIG;

  configure(config) {
    this.prefix = config['topic.prefix'];
    this.dropTombstones = config['drop.tombstones'];
  }

  apply(record) {
    if (this.dropTombstones && record.valueBytes == null) return null;
    record.topic = this.prefix + record.topic;
    return record;
  }
}

export const { transformation } = exportTransform({{class}});
