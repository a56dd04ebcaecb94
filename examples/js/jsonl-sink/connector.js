// `JsonlSink`: the connector half of the JSON-lines example and its configuration. It
// hands each task the file key (the task config must carry the grant key itself).

import { ConfigDef, Connector, nonEmpty } from 'wasm-connect-sdk';

/** The configuration of the connector and of its task. */
export const CONFIG = new ConfigDef().define('file', {
  type: 'string',
  importance: 'high',
  doc: 'The file to append one line per record to (its directory is opened read-write).',
  grant: 'write-file',
  validator: [nonEmpty(), (path) => (path.startsWith('/') ? undefined : 'must be an absolute path')],
});

export class JsonlSink extends Connector {
  name = 'JsJsonlSink';
  version = '0.1.0';
  configDef = CONFIG;

  start(config) {
    this.config = config;
  }

  taskConfigs() {
    // One file takes one writer: a single task.
    return [{ file: this.config.file }];
  }
}
