// `FileAppender`: appending to a file the sandbox may write (a key with the `write-file`
// grant), through `wasi:filesystem`, which StarlingMonkey does not expose as a JS API.
//
// This file owns finding the preopened directory for a path and chunking writes to the
// 4096-byte limit of `blocking-write-and-flush`. It cannot reach a path outside the
// directories the host preopened, and it does not buffer: each `write` reaches the file.

import { preopens } from './host.js';

const CHUNK = 4096;
const utf8 = new TextEncoder();

/** Releases a WASI resource handle now rather than at garbage collection. */
function dispose(resource) {
  const fn = resource?.[Symbol.dispose] ?? resource?.[Symbol.for('dispose')];
  if (typeof fn === 'function') fn.call(resource);
}

/** Appends to one file, creating it if missing. */
export class FileAppender {
  /** @param {string} path an absolute path inside a directory the host preopened */
  constructor(path) {
    const dirs = preopens();
    let best = null;
    for (const [descriptor, dir] of dirs) {
      const prefix = dir.endsWith('/') ? dir : `${dir}/`;
      if (path.startsWith(prefix) && (!best || prefix.length > best.prefix.length)) best = { descriptor, prefix };
    }
    if (!best) {
      const open = dirs.map(([, d]) => d).join(', ') || 'none';
      throw new Error(`${path} is not inside a directory this sandbox may open (open: ${open}); set it through a write-file key`);
    }
    this.path = path;
    this.file = best.descriptor.openAt({ symlinkFollow: false }, path.slice(best.prefix.length), { create: true }, { write: true });
    this.stream = this.file.appendViaStream();
  }

  /** Appends text (as UTF-8) or bytes. @param {string | Uint8Array} data */
  write(data) {
    const bytes = typeof data === 'string' ? utf8.encode(data) : data;
    for (let at = 0; at < bytes.length; at += CHUNK) {
      this.stream.blockingWriteAndFlush(bytes.subarray(at, at + CHUNK));
    }
  }

  /** Flushes and releases the file. The appender is unusable afterwards. */
  close() {
    if (!this.stream) return;
    this.stream.blockingFlush();
    dispose(this.stream);
    dispose(this.file);
    this.stream = null;
    this.file = null;
  }
}
