// The host calls a connector or task may make: `log`, `requestTaskReconfiguration`,
// `raiseError`, `offsets` and the sandbox's preopened directories, over whatever
// `bindHost` was given.
//
// In a component the build's generated entry binds the WIT imports
// (`wasm-connect:connector/host@0.1.2`, `offset-reader`, `wasi:filesystem/preopens`);
// in node tests a test binds fakes. This file owns the JSON and type conversions
// between the two and must not import any WIT module itself, so it runs in plain node.

import { toWitError } from './errors.js';

/**
 * @typedef {object} HostImports
 * @property {(level: string, message: string, fields: Array<[string, string]>) => void} log
 * @property {() => void} requestTaskReconfiguration
 * @property {(err: { tag: string, val: string }) => void} raiseError
 * @property {(partitions: string[]) => Array<string | undefined | null>} [offsets]  source plugins only
 * @property {() => Array<[any, string]>} [preopens]  `wasi:filesystem/preopens.get-directories`
 */

const missing = (what) => () => {
  throw new Error(`the host call ${what} is not bound: in a component the build binds it; in a test call bindHost()`);
};

/** @type {HostImports} */
let host = {
  log: missing('log'),
  requestTaskReconfiguration: missing('requestTaskReconfiguration'),
  raiseError: missing('raiseError'),
};

/**
 * Binds the host imports (the build does this in a component; tests bind fakes).
 * @param {HostImports} imports
 */
export function bindHost(imports) {
  host = imports;
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error'];

/**
 * Writes one structured line to the worker's log.
 * @param {'trace' | 'debug' | 'info' | 'warn' | 'error'} level
 * @param {string} message
 * @param {Record<string, unknown>} [fields] extra key/value pairs (values become strings)
 */
export function log(level, message, fields = {}) {
  if (!LEVELS.includes(level)) throw new TypeError(`unknown log level ${JSON.stringify(level)}`);
  host.log(level, String(message), Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

/** Asks the worker to call the connector's `taskConfigs` again. */
export function requestTaskReconfiguration() {
  host.requestTaskReconfiguration();
}

/**
 * Reports that the connector failed in the background; the worker marks it FAILED.
 * @param {unknown} err a `ConnectError`, any `Error`, or a message
 */
export function raiseError(err) {
  host.raiseError(toWitError(err));
}

/**
 * The committed source offsets of source partitions, one per partition in order: an
 * object, or null when none was committed. Source plugins only.
 * @param {object[]} partitions JSON objects, as the task put them in its records
 * @returns {Array<object | null>}
 */
export function offsets(partitions) {
  if (!host.offsets) throw new Error('offsets() is only available to source plugins');
  return host.offsets(partitions.map((p) => JSON.stringify(p))).map((o) => (o == null ? null : JSON.parse(o)));
}

/** The sandbox's preopened directories as `[descriptor, path]` pairs (`files.js`). */
export function preopens() {
  if (!host.preopens) throw new Error('this plugin was built without file system access');
  return host.preopens();
}
