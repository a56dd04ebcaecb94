// `{{class}}`: a sink connector that appends each record's value to the file named by
// `file`, one line per record.
//
// Start here: change `put` to write to your system. The `file` key grants write access to
// its directory; without a grant the plugin can reach no file, host or clock.

import { ConfigDef, Connector, FileAppender, SinkTask, exportSink, log, nonEmpty } from './sdk/src/index.js';

/** The configuration of the connector and of its task. */
export const CONFIG = new ConfigDef().define('file', {
  type: 'string',
  importance: 'high',
  doc: 'The file to append record values to (an absolute path).',
  grant: 'write-file',
  validator: nonEmpty(),
});

export class {{class}}Connector extends Connector {
  name = '{{class}}';
  version = '0.1.0';
  configDef = CONFIG;

  start(config) {
    this.config = config;
  }

  taskConfigs() {
    // One file, so one writer.
    return [this.config];
  }
}

/** A record's value as one line of text: strings as they are, other data as JSON. */
export function line(record) {
  const value = record.value;
  if (value instanceof Uint8Array) return record.valueText;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export class {{class}}Task extends SinkTask {
  /** Opens the output; tests replace it. */
  static open = (path) => new FileAppender(path);

  start(raw) {
    const { file } = CONFIG.parse(raw);
    this.out = {{class}}Task.open(file);
    log('info', 'Appending', { file });
  }

  put(records) {
    if (records.length > 0) this.out.write(records.map((r) => `${line(r)}\n`).join(''));
  }

  stop() {
    this.out?.close();
  }
}

export const { connector, sinkTask } = exportSink({{class}}Connector, {{class}}Task);
