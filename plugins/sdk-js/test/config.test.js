// ConfigDef: WIT config keys, parsing, required keys, validators, and validation run by
// the connector export before the connector's own rules.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ConfigDef, ConfigError, Connector, connectorExports, nonEmpty, oneOf, range } from '../src/index.js';

const DEF = new ConfigDef()
  .define('topic', { type: 'string', importance: 'high', doc: 'Where to write.', validator: nonEmpty() })
  .define('count', { type: 'long', default: 10, validator: range(0, 100) })
  .define('mode', { default: 'fast', validator: oneOf('fast', 'slow') })
  .define('tags', { type: 'list', default: ['a', 'b'] })
  .define('secret', { type: 'password', required: false })
  .define('out', { grant: 'write-file', required: false, validator: (v) => (v.startsWith('/') ? undefined : 'must be absolute') })
  .define('on', { type: 'boolean', default: false });

test('reports WIT config keys with defaults as typed text', () => {
  const keys = DEF.toWit();
  assert.deepEqual(keys[0], {
    name: 'topic',
    type: 'string',
    defaultValue: undefined,
    importance: 'high',
    documentation: 'Where to write.',
    required: true,
    sensitive: false,
    grant: undefined,
  });
  assert.equal(keys[1].defaultValue, '10');
  assert.equal(keys[1].required, false);
  assert.equal(keys[3].defaultValue, 'a,b');
  assert.equal(keys[4].sensitive, true);
  assert.equal(keys[5].grant, 'write-file');
  assert.throws(() => new ConfigDef().define('x', { type: 'float' }), /unknown type "float"/);
  assert.throws(() => new ConfigDef().define('x').define('x'), /defined twice/);
});

test('parses typed values and fills defaults', () => {
  const v = DEF.parse({ topic: 't', count: ' 42 ', tags: 'x, y,,z', on: 'TRUE', extra: 'kept' });
  assert.deepEqual(v, { topic: 't', count: 42, mode: 'fast', tags: ['x', 'y', 'z'], secret: null, out: null, on: true, extra: 'kept' });
});

test('names the key of every problem', () => {
  const problems = DEF.validate({ count: '101', mode: 'medium', on: 'yes', out: 'rel/path', secret: 'hunter2' });
  assert.deepEqual(
    problems.map((p) => p.key),
    ['topic', 'count', 'mode', 'out', 'on'],
  );
  assert.match(problems[0].message, /Missing required configuration "topic"/);
  assert.match(problems[1].message, /Invalid value "101" for configuration count: must be between 0 and 100/);
  assert.match(problems[2].message, /must be one of fast, slow/);
  assert.match(problems[3].message, /must be absolute/);
  assert.match(problems[4].message, /expected true or false, got "yes"/);
  assert.match(DEF.validate({ topic: 't', count: 'ten' })[0].message, /expected an integer, got "ten"/);
  assert.match(DEF.validate({ topic: '  ' })[0].message, /must not be empty/);
});

test('sensitive values never appear in problems', () => {
  const def = new ConfigDef().define('pw', { type: 'password', validator: () => 'too short' });
  const [p] = def.validate({ pw: 'hunter2' });
  assert.equal(p.key, 'pw');
  assert.doesNotMatch(p.message, /hunter2/);
  assert.match(p.message, /\[hidden\]/);
});

test('parse throws a ConfigError naming the key', () => {
  assert.throws(() => DEF.parse({ topic: 't', count: '-1' }), (e) => e instanceof ConfigError && /count/.test(e.message));
});

class Checked extends Connector {
  name = 'Checked';
  configDef = DEF;
  calls = 0;
  validate(config) {
    this.calls++;
    return config.mode === 'slow' && config.count > 5 ? [{ key: 'count', message: 'slow mode takes at most 5' }] : [];
  }
}

test('the connector export runs ConfigDef.validate before the connector rules', () => {
  const exports = connectorExports(Checked);
  assert.deepEqual(
    exports.validate([['count', '500']]).map((p) => p.key),
    ['topic', 'count'],
  );
  assert.deepEqual(exports.validate([['topic', 't'], ['mode', 'slow']]), [{ key: 'count', message: 'slow mode takes at most 5' }]);
  assert.deepEqual(exports.validate([['topic', 't']]), []);
  assert.deepEqual(exports.configDefinition().map((k) => k.name), ['topic', 'count', 'mode', 'tags', 'secret', 'out', 'on']);
});

test('a validate that throws becomes a problem, not a trap', () => {
  class Broken extends Connector {
    validate() {
      throw new TypeError('oops');
    }
  }
  const [p] = connectorExports(Broken).validate([]);
  assert.equal(p.key, 'connector.class');
  assert.match(p.message, /TypeError: oops/);
});
