// `Connector`: the base class of a plugin's connector half (Kafka Connect's `Connector`).
//
// A subclass sets `name`, `version` and `configDef`, and implements `start` and
// `taskConfigs`; `validate` and `stop` are optional. This file owns only the contract and
// its defaults; calling it from the WIT exports belongs to `exports.js`.

import { ConfigDef } from './config-def.js';
import { FatalError } from './errors.js';

export class Connector {
  /** The plugin's name, as users write it in `connector.class`. */
  name = 'UnnamedConnector';
  /** The plugin's version. */
  version = '0.0.0';
  /** The configuration definition; checked before `validate` and `start` see a config. */
  configDef = new ConfigDef();

  /**
   * The connector's own rules for a config that already passed `configDef`. Returns
   * problems as `{ key, message }`; nothing or `[]` means valid.
   * @param {Record<string, any>} _config typed values, defaults filled in
   * @returns {Array<{ key: string, message: string }> | void}
   */
  validate(_config) {
    return [];
  }

  /**
   * Starts the connector. Throw a `ConfigError`, `RetriableError` or `FatalError` to fail.
   * @param {Record<string, any>} _config typed values, defaults filled in
   */
  start(_config) {}

  /**
   * The configs of at most `maxTasks` tasks. Values become strings (lists joined by `,`).
   * @param {number} _maxTasks
   * @returns {Array<Record<string, unknown>>}
   */
  taskConfigs(_maxTasks) {
    throw new FatalError(`${this.name} does not implement taskConfigs`);
  }

  /** Stops the connector. */
  stop() {}
}
