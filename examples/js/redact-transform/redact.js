// `JsRedact`: a single message transform, the JavaScript twin of the Rust `Redact` and the
// Python `PyRedact` (same keys, behaviour and failure reasons).
//
// The SDK is imported by its path in this checkout (the other examples use the build's
// `wasm-connect-sdk` alias) so that node can run the unit tests in `test/` as they are.
//
// For records whose value is a JSON object (kind `json`, or the struct payload of a
// `connect-json` value): `redact.fields` are replaced by `redact.replacement`,
// `route.field` (present and not null) moves the record to `<topic>.<value as text>`, and
// `drop.field` equal to JSON `true` drops it. Routing and dropping read the value as it
// arrived. A null value passes unchanged; any other value that is not a JSON object fails
// that record with a reason naming its kind.

import { ConfigDef, Transform, fail } from '../../../plugins/sdk-js/src/index.js';

export const CONFIG = new ConfigDef()
  .define('redact.fields', { type: 'list', importance: 'high', doc: 'Fields of the value to replace by redact.replacement.' })
  .define('redact.replacement', { default: '****', doc: 'The string a redacted field gets.' })
  .define('route.field', { required: false, doc: 'A field of the value: when present, the record goes to <topic>.<its value>.' })
  .define('drop.field', { required: false, doc: 'A field of the value: when it is true, the record is dropped.' });

const typeName = (v) => (Array.isArray(v) ? 'an array' : { boolean: 'a boolean', number: 'a number', string: 'a string' }[typeof v] ?? 'an object');
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `{ fields, envelope }` of the record's value, null for a null value, or a `fail`. */
function readObject(record) {
  if (record.valueBytes == null) return null;
  const kind = record.valueKind;
  if (kind !== 'json' && kind !== 'connect-json') return fail(`a value of kind ${kind} is not a JSON object`);
  let value;
  try {
    value = JSON.parse(record.valueText);
  } catch (e) {
    return fail(`a value of kind ${kind} is not valid JSON: ${e.message}`);
  }
  let envelope = null;
  if (kind === 'connect-json') {
    if (!isObject(value)) return fail(`a value of kind ${kind} is not a schema envelope`);
    envelope = value;
    value = value.payload ?? null;
  }
  if (value === null) return null;
  if (!isObject(value)) return fail(`a value of kind ${kind} is not a JSON object but ${typeName(value)}`);
  return { fields: value, envelope };
}

/** In a connect-json envelope, the schema of `field` becomes a string schema. */
function stringSchema(envelope, field) {
  const fields = envelope.schema?.fields;
  if (!Array.isArray(fields)) return;
  fields.forEach((f, i) => {
    if (isObject(f) && f.field === field) fields[i] = { type: 'string', optional: f.optional ?? false, field };
  });
}

export class Redact extends Transform {
  name = 'JsRedact';
  version = '0.1.0';
  configDef = CONFIG;

  configure(config) {
    this.fields = config['redact.fields'];
    this.replacement = config['redact.replacement'];
    this.routeField = config['route.field']?.trim() || null;
    this.dropField = config['drop.field']?.trim() || null;
  }

  apply(record) {
    const read = readObject(record);
    if (read === null || !('fields' in read)) return read ?? record;
    const { fields, envelope } = read;
    if (this.dropField !== null && fields[this.dropField] === true) return null;
    const route = this.routeField !== null ? fields[this.routeField] : undefined;
    if (route != null) record.topic = `${record.topic}.${typeof route === 'string' ? route : JSON.stringify(route)}`;
    let redacted = false;
    for (const field of this.fields) {
      if (Object.hasOwn(fields, field)) {
        fields[field] = this.replacement;
        if (envelope) stringSchema(envelope, field);
        redacted = true;
      }
    }
    if (redacted) {
      const body = envelope ? { schema: envelope.schema ?? null, payload: fields } : fields;
      record.setValue(body, record.valueKind);
    }
    return record;
  }
}
