// `ConfigDef`: a connector's configuration definition (Kafka Connect's `ConfigDef`), built
// with `define`, reported to the host as WIT `config-key`s, and used to parse and validate
// string configs into typed values.
//
// This file owns types, defaults, required keys and running validators. It does not know
// the connector's own cross-key rules (its `validate`), nor grant semantics (the host's).

import { ConfigError } from './errors.js';

/** @typedef {import('./validators.js').Validator} Validator */
/** @typedef {'boolean' | 'int' | 'long' | 'double' | 'string' | 'list' | 'password'} ConfigType */
/** @typedef {'read-file' | 'write-file' | 'connect' | 'clock'} Grant */

/**
 * @typedef {object} ConfigKeyOptions
 * @property {ConfigType} [type]          default `string`
 * @property {unknown} [default]          a typed value or the string a user would type
 * @property {'high' | 'medium' | 'low'} [importance]  default `medium`
 * @property {string} [doc]
 * @property {boolean} [required]         default: true when there is no default
 * @property {boolean} [sensitive]        default: true for `password`
 * @property {Grant} [grant]              the sandbox capability this key's value grants
 * @property {Validator | Validator[]} [validator]
 */

const TYPES = ['boolean', 'int', 'long', 'double', 'string', 'list', 'password'];
const IMPORTANCE = ['high', 'medium', 'low'];
const GRANTS = ['read-file', 'write-file', 'connect', 'clock'];

/** A typed value as the string a user would type. */
function format(value) {
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** Parses `text` as `type`; returns `{ value }` or `{ problem }`. */
function parseValue(type, text) {
  const s = text.trim();
  switch (type) {
    case 'boolean':
      if (/^(true|false)$/i.test(s)) return { value: s.toLowerCase() === 'true' };
      return { problem: `expected true or false, got ${JSON.stringify(text)}` };
    case 'int':
    case 'long': {
      const n = Number(s);
      const bits = type === 'int' ? 2 ** 31 : 2 ** 53;
      if (/^[+-]?\d+$/.test(s) && n >= -bits && n < bits) return { value: n };
      return { problem: `expected ${type === 'int' ? 'a 32-bit' : 'an'} integer, got ${JSON.stringify(text)}` };
    }
    case 'double': {
      const n = Number(s);
      if (s !== '' && Number.isFinite(n)) return { value: n };
      return { problem: `expected a number, got ${JSON.stringify(text)}` };
    }
    case 'list':
      return { value: s === '' ? [] : s.split(',').map((x) => x.trim()).filter((x) => x !== '') };
    default:
      return { value: text };
  }
}

/** One key of a `ConfigDef`. */
export class ConfigKey {
  /** @param {string} name @param {ConfigKeyOptions} options */
  constructor(name, options = {}) {
    const type = options.type ?? 'string';
    const importance = options.importance ?? 'medium';
    if (!TYPES.includes(type)) throw new TypeError(`config key ${name}: unknown type ${JSON.stringify(type)}`);
    if (!IMPORTANCE.includes(importance)) throw new TypeError(`config key ${name}: unknown importance ${JSON.stringify(importance)}`);
    if (options.grant != null && !GRANTS.includes(options.grant)) {
      throw new TypeError(`config key ${name}: unknown grant ${JSON.stringify(options.grant)}`);
    }
    this.name = name;
    this.type = type;
    /** The default as a user would type it, or null. */
    this.defaultValue = options.default === undefined || options.default === null ? null : format(options.default);
    this.importance = importance;
    this.doc = options.doc ?? '';
    this.required = options.required ?? this.defaultValue == null;
    this.sensitive = options.sensitive ?? type === 'password';
    this.grant = options.grant ?? null;
    /** @type {Validator[]} */
    this.validators = [options.validator ?? []].flat();
  }

  /** The WIT `config-key` record. */
  toWit() {
    return {
      name: this.name,
      type: this.type,
      defaultValue: this.defaultValue ?? undefined,
      importance: this.importance,
      documentation: this.doc,
      required: this.required,
      sensitive: this.sensitive,
      grant: this.grant ?? undefined,
    };
  }
}

/** A connector's configuration definition. */
export class ConfigDef {
  constructor() {
    /** @type {Map<string, ConfigKey>} */
    this.keys = new Map();
  }

  /**
   * Adds a key; returns `this` for chaining.
   * @param {string} name @param {ConfigKeyOptions} [options] @returns {this}
   */
  define(name, options = {}) {
    if (this.keys.has(name)) throw new TypeError(`config key ${name} is defined twice`);
    this.keys.set(name, new ConfigKey(name, options));
    return this;
  }

  /** The WIT `config-key` list. */
  toWit() {
    return [...this.keys.values()].map((k) => k.toWit());
  }

  /**
   * Parses a string config into typed values (defaults filled in) and lists every
   * problem: a bad type, a missing required key, a validator's message. Keys the
   * definition does not know stay strings.
   * @param {Record<string, string>} config
   * @returns {{ values: Record<string, any>, problems: Array<{ key: string, message: string }> }}
   */
  check(config) {
    /** @type {Record<string, any>} */
    const values = { ...config };
    const problems = [];
    for (const key of this.keys.values()) {
      const text = Object.hasOwn(config, key.name) ? config[key.name] : key.defaultValue;
      if (text == null) {
        values[key.name] = null;
        if (key.required) problems.push({ key: key.name, message: `Missing required configuration "${key.name}" which has no default value.` });
        continue;
      }
      const parsed = parseValue(key.type, text);
      if ('problem' in parsed) {
        problems.push({ key: key.name, message: `Invalid value for configuration ${key.name}: ${parsed.problem}` });
        continue;
      }
      values[key.name] = parsed.value;
      for (const validator of key.validators) {
        let message;
        try {
          message = validator(parsed.value, key.name);
        } catch (e) {
          message = e instanceof Error ? e.message : String(e);
        }
        if (message) {
          const shown = key.sensitive ? '[hidden]' : JSON.stringify(text);
          problems.push({ key: key.name, message: `Invalid value ${shown} for configuration ${key.name}: ${message}` });
        }
      }
    }
    return { values, problems };
  }

  /**
   * The problems of a string config (empty when valid).
   * @param {Record<string, string>} config
   */
  validate(config) {
    return this.check(config).problems;
  }

  /**
   * Typed values of a string config; throws a `ConfigError` naming every problem.
   * @param {Record<string, string>} config @returns {Record<string, any>}
   */
  parse(config) {
    const { values, problems } = this.check(config);
    if (problems.length > 0) throw new ConfigError(problems.map((p) => p.message).join(' '));
    return values;
  }
}
