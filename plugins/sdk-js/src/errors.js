// Typed connector errors and their mapping onto the WIT `error` variant
// (`retriable(string) | config(string) | fatal(string)` in `wit/types.wit`).
//
// This file owns which JavaScript exception becomes which variant case. It does not
// decide what the host does with a case (retry, fail, back off): the WIT docs say that.

/** Base class of the three errors a connector or task may throw on purpose. */
export class ConnectError extends Error {
  /** @param {string} message @param {'retriable' | 'config' | 'fatal'} kind */
  constructor(message, kind) {
    super(message);
    this.name = new.target.name;
    /** The WIT variant case this error becomes. */
    this.kind = kind;
  }
}

/** A transient condition: the host keeps the instance and calls again after a back-off. */
export class RetriableError extends ConnectError {
  /** @param {string} message */
  constructor(message) {
    super(message, 'retriable');
  }
}

/** The configuration cannot work: the host marks the instance FAILED until it changes. */
export class ConfigError extends ConnectError {
  /** @param {string} message */
  constructor(message) {
    super(message, 'config');
  }
}

/** Anything else: the host marks the instance FAILED with this message as its trace. */
export class FatalError extends ConnectError {
  /** @param {string} message */
  constructor(message) {
    super(message, 'fatal');
  }
}

/**
 * The WIT `error` value for any thrown value: a `ConnectError` keeps its kind, anything
 * else (a `TypeError`, a thrown string) is `fatal` with its message.
 * @param {unknown} e
 * @returns {{ tag: 'retriable' | 'config' | 'fatal', val: string }}
 */
export function toWitError(e) {
  if (e instanceof ConnectError) return { tag: e.kind, val: e.message };
  if (e instanceof Error) {
    return { tag: 'fatal', val: e.name && e.name !== 'Error' ? `${e.name}: ${e.message}` : e.message };
  }
  return { tag: 'fatal', val: String(e) };
}
