// Validators for `ConfigDef` keys: `range`, `oneOf`, `nonEmpty`, and any function.
//
// A validator is `(value, name) => string | undefined`: a message for a bad (already
// parsed) value, nothing for a good one. This file must not parse values; `config-def.js`
// does that before any validator runs.

/**
 * @typedef {(value: any, name: string) => string | undefined | void} Validator
 */

/**
 * Numbers from `min` to `max` inclusive; either bound may be omitted (null).
 * @param {number | null} [min] @param {number | null} [max] @returns {Validator}
 */
export function range(min = null, max = null) {
  return (value) => {
    if (value == null) return undefined;
    if (min != null && value < min) return max == null ? `must be at least ${min}` : `must be between ${min} and ${max}`;
    if (max != null && value > max) return min == null ? `must be at most ${max}` : `must be between ${min} and ${max}`;
    return undefined;
  };
}

/**
 * One of the given values (compared as strings, case-sensitive).
 * @param {...unknown} allowed @returns {Validator}
 */
export function oneOf(...allowed) {
  const names = allowed.map(String);
  return (value) => {
    if (value == null || names.includes(String(value))) return undefined;
    return `must be one of ${names.join(', ')}`;
  };
}

/** A non-empty string or list (after trimming a string). @returns {Validator} */
export function nonEmpty() {
  return (value) => {
    if (value == null) return undefined;
    const empty = Array.isArray(value) ? value.length === 0 : String(value).trim() === '';
    return empty ? 'must not be empty' : undefined;
  };
}
