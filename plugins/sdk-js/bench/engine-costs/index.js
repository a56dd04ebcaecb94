// `EngineCosts`: what single operations cost inside the JS guest (StarlingMonkey in
// componentize-js), to tell which of the SDK's per-record steps are worth removing. Node's
// figures do not carry over: V8 even without its JIT weighs calls, objects and typed arrays
// differently.
//
// Its task's first `poll` times each operation (best of 3 rounds of 20,000) with the clock
// the `clock` key grants, and fails with the figures as its message. Build and run:
//
//   node plugins/sdk-js/tools/build.mjs plugins/sdk-js/bench/engine-costs build/examples/js/zcosts.wasm
//   cd host && LANG_BENCH_ONLY=zcosts cargo bench --bench languages
//
// (then delete build/examples/js/zcosts.wasm: the e2e tests load that directory).

import { ConfigDef, Connector, SinkRecord, SourceRecord, SourceTask, decodeBatch, encodeBatch, exportSource } from 'wasm-connect-sdk';

import { encodeAscii, encodeSources } from '../../src/source-batch.js';

const CONFIG = new ConfigDef()
  .define('topic', { type: 'string', importance: 'high', doc: 'Unused.' })
  .define('clock', { type: 'boolean', default: true, importance: 'low', doc: 'Grants the clock the timings need.', grant: 'clock' });

class EngineCosts extends Connector {
  name = 'EngineCosts';
  version = '0.1.0';
  configDef = CONFIG;
  start(config) {
    this.config = config;
  }
  taskConfigs() {
    return [this.config];
  }
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
const id = (x) => x;

function run() {
  const N = 20000;
  const buf = new Uint8Array(1 << 20);
  const view = new DataView(buf.buffer);
  const small = new Uint8Array(8);
  const out = [];
  const t = (name, fn, per = N) => {
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      fn();
      best = Math.min(best, performance.now() - t0);
    }
    out.push(`${name} ${Math.round((best / per) * 1e6)}ns`);
  };
  let sink = 0;
  const P = { sequence: 'numbers' };
  const o = { seq: 1 };
  t('loop', () => { for (let i = 0; i < N; i++) sink += i; });
  t('call', () => { for (let i = 0; i < N; i++) sink += id(i); });
  t('typed store', () => { for (let i = 0; i < N; i++) buf[i & 1023] = i; });
  t('typed load', () => { for (let i = 0; i < N; i++) sink = buf[i & 1023]; });
  t('setUint32', () => { for (let i = 0; i < N; i++) view.setUint32(i & 1023, i, true); });
  t('getUint32', () => { for (let i = 0; i < N; i++) sink = view.getUint32(i & 1023, true); });
  t('subarray', () => { for (let i = 0; i < N; i++) buf.subarray(i & 1023); });
  t('subarray+encodeInto 5', () => { for (let i = 0; i < N; i++) utf8.encodeInto('12345', buf.subarray(i & 1023)); });
  t('encode 5', () => { for (let i = 0; i < N; i++) utf8.encode('12345'); });
  t('copyWithin 5', () => { for (let i = 0; i < N; i++) buf.copyWithin(i & 1023, 2000, 2005); });
  t('set 8', () => { for (let i = 0; i < N; i++) buf.set(small, i & 1023); });
  t('JSON.stringify {seq}', () => { for (let i = 0; i < N; i++) JSON.stringify({ seq: i }); });
  t('String(i)', () => { for (let i = 0; i < N; i++) String(i); });
  t('{seq}', () => { for (let i = 0; i < N; i++) sink = { seq: i }; });
  t('literal of 11', () => { for (let i = 0; i < N; i++) sink = { a: i, b: i, c: i, d: i, e: i, f: i, g: i, h: i, j: i, k: i, l: i }; });
  t('push', () => { const a = []; for (let i = 0; i < N; i++) a.push(i); });
  t('instanceof', () => { for (let i = 0; i < N; i++) sink = o instanceof Uint8Array; });
  t('isView', () => { for (let i = 0; i < N; i++) sink = ArrayBuffer.isView(o); });
  t('new SourceRecord', () => { for (let i = 0; i < N; i++) sink = new SourceRecord({ topic: 'bench', sourcePartition: P, sourceOffset: { seq: i }, key: String(i), value: { seq: i } }); });
  const recs = [];
  for (let i = 0; i < 1000; i++) recs.push(new SourceRecord({ topic: 'bench', sourcePartition: P, sourceOffset: { seq: i }, key: String(i), value: { seq: i } }));
  t('encodeSources a record', () => { for (let r = 0; r < 20; r++) encodeSources(recs, true); });
  t('encodeAscii a record', () => { for (let r = 0; r < 20; r++) encodeAscii(recs, true); });
  t('2 JSON.stringify a record', () => { for (let r = 0; r < 20; r++) for (let i = 0; i < 1000; i++) { JSON.stringify(recs[i].value); JSON.stringify(recs[i].sourceOffset); } });
  const raws = [];
  for (let i = 0; i < 1000; i++) {
    raws.push({ topic: 'bench', partition: 0, offset: i, timestamp: null, keyKind: 'bytes', key: null, valueKind: 'json', value: utf8.encode(`"${String(i).padStart(98, '0')}"`), headers: [], sourcePartition: null, sourceOffset: null });
  }
  const batch = encodeBatch(raws);
  let decoded = [];
  t('decodeBatch a record', () => { for (let r = 0; r < 20; r++) decoded = decodeBatch(batch); });
  let records = [];
  t('new SinkRecord(raw) a record', () => { for (let r = 0; r < 20; r++) records = decoded.map((raw) => new SinkRecord(raw)); });
  t('valueText + join a record', () => { for (let r = 0; r < 20; r++) sink = records.map((s) => `${s.valueText ?? 'null'}\n`).join(''); });
  t('slice 100', () => { for (let i = 0; i < N; i++) sink = batch.slice(i & 1023, (i & 1023) + 100); });
  t('decode 100', () => { for (let i = 0; i < N; i++) sink = fromUtf8.decode(batch.subarray(i & 1023, (i & 1023) + 100)); });
  return out.join(', ');
}

class EngineCostsTask extends SourceTask {
  start() {}
  poll() {
    throw new Error(`COSTS ${run()}`);
  }
}

export const { connector, sourceTask } = exportSource(EngineCosts, EngineCostsTask);
