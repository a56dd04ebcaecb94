// A fake of the host imports for node tests: records every call, answers `offsets` from
// a map and `preopens` with nothing.

import { bindHost } from '../src/host.js';

/**
 * Binds a fresh fake host and returns it.
 * @param {Record<string, string>} [committed] partition JSON text → offset JSON text
 */
export function bindFakeHost(committed = {}) {
  const fake = {
    logs: [],
    reconfigurations: 0,
    errors: [],
    asked: [],
    log: (level, message, fields) => fake.logs.push([level, message, fields]),
    requestTaskReconfiguration: () => fake.reconfigurations++,
    raiseError: (err) => fake.errors.push(err),
    offsets: (partitions) => {
      fake.asked.push(...partitions);
      return partitions.map((p) => committed[p]);
    },
    preopens: () => [],
  };
  bindHost(fake);
  return fake;
}
