#!/usr/bin/env node
// Builds a JavaScript connector (or transform) module into a wasm-connect component:
//
//   node plugins/sdk-js/tools/build.mjs <example dir | entry .js> <out.wasm> [--wit <dir>]
//
// 1. esbuild bundles the module and the SDK (imported as `wasm-connect-sdk`) into one
//    ES module; its exports (`sourceTask`, `sinkTask` or `transformation`) pick the world.
// 2. A generated entry binds the WIT host imports into the SDK (`bindHost`) and re-exports
//    the module's `connector` and task.
// 3. componentize-js (its JS API: the `jco componentize` CLI cannot stat paths here)
//    builds the component against the repo's `wit/` plus a world that adds
//    `wasi:filesystem`, so `FileAppender` can reach the directories the host preopens (a
//    transform is built against the `transform` world itself: it gets no file system).
//
// This script owns the build only; it never runs the component.

import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { componentize } from '@bytecodealliance/componentize-js';
import * as esbuild from 'esbuild';

const SDK = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The WASI release StarlingMonkey in componentize-js 0.23.0 imports; the filesystem
// world below must name the same one. jco (a dependency of componentize-js) ships its WIT.
const WASI = '0.2.12';
// Found in the nearest node_modules above the SDK (its own, or a project's that holds a copy).
const WASI_WIT = nearest(SDK, join('node_modules/@bytecodealliance/jco/lib/wit/builtin', WASI));

/** `relative` under `dir` or the closest of its parents that has it (else under `dir`). */
function nearest(dir, relative) {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, relative))) return join(d, relative);
    if (dirname(d) === d) return join(dir, relative);
  }
}

function usage(message) {
  console.error(`error: ${message}\nusage: node plugins/sdk-js/tools/build.mjs <example dir | entry .js> <out.wasm> [--wit <dir>]`);
  process.exit(2);
}

async function entryOf(path) {
  const s = await stat(path).catch(() => usage(`${path} does not exist`));
  if (!s.isDirectory()) return path;
  const pkg = await readFile(join(path, 'package.json'), 'utf8').then(JSON.parse, () => ({}));
  return join(path, pkg.main ?? 'index.js');
}

const bundleOptions = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  external: ['wasm-connect:*', 'wasi:*'],
  alias: { 'wasm-connect-sdk': join(SDK, 'src/index.js') },
  logLevel: 'error',
};

/** The world a module's exports implement: `source`, `sink` or `transform`. */
async function worldOf(entry, work) {
  const probe = await esbuild.build({ ...bundleOptions, entryPoints: [entry], outfile: join(work, 'probe.js'), write: false, metafile: true });
  const exports = Object.values(probe.metafile.outputs)[0].exports;
  const source = exports.includes('sourceTask');
  const sink = exports.includes('sinkTask');
  const transform = exports.includes('transformation');
  if (transform && !source && !sink && !exports.includes('connector')) return 'transform';
  if (transform || !exports.includes('connector') || source === sink) {
    usage(
      `${entry} must export \`connector\` and one of \`sourceTask\`, \`sinkTask\`, or only \`transformation\` (it exports: ${exports.join(', ') || 'nothing'})`,
    );
  }
  return source ? 'source' : 'sink';
}

/** The generated entry: host imports bound into the SDK, the module's exports passed on. */
function generatedEntry(entry, kind) {
  const lines = [
    `import { log, requestTaskReconfiguration, raiseError } from 'wasm-connect:connector/host@0.1.2';`,
    `import { bindHost } from ${JSON.stringify(join(SDK, 'src/host.js'))};`,
  ];
  if (kind === 'transform') {
    lines.push(`bindHost({ log, requestTaskReconfiguration, raiseError });`);
    lines.push(`export { transformation } from ${JSON.stringify(resolve(entry))};`);
    return lines.join('\n') + '\n';
  }
  lines.push(`import { getDirectories } from 'wasi:filesystem/preopens@${WASI}';`);
  if (kind === 'source') {
    lines.push(`import { offsets } from 'wasm-connect:connector/offset-reader@0.1.2';`);
    lines.push(
      `import { isActive, commitTransaction, commitTransactionAfter, abortTransaction, abortTransactionAfter } from 'wasm-connect:connector/transaction-context@0.1.2';`,
    );
    lines.push(`const transactionContext = { isActive, commitTransaction, commitTransactionAfter, abortTransaction, abortTransactionAfter };`);
    lines.push(`bindHost({ log, requestTaskReconfiguration, raiseError, offsets, transactionContext, preopens: getDirectories });`);
    lines.push(`export { connector, sourceTask } from ${JSON.stringify(resolve(entry))};`);
    // 0.1.2's exactly-once export: the module's own (from exportSource), else the defaults.
    lines.push(`import * as plugin from ${JSON.stringify(resolve(entry))};`);
    lines.push(`import { exactlyOnceExports } from ${JSON.stringify(join(SDK, 'src/exports.js'))};`);
    lines.push(`export const exactlyOnce = plugin.exactlyOnce ?? exactlyOnceExports();`);
  } else {
    lines.push(`bindHost({ log, requestTaskReconfiguration, raiseError, preopens: getDirectories });`);
    lines.push(`export { connector, sinkTask } from ${JSON.stringify(resolve(entry))};`);
  }
  return lines.join('\n') + '\n';
}

/** A WIT folder: the contract, the WASI packages it needs, and the file-system worlds. */
async function witFolder(wit, work) {
  const out = join(work, 'wit');
  await mkdir(join(out, 'deps'), { recursive: true });
  for (const f of await readdir(wit)) if (f.endsWith('.wit')) await cp(join(wit, f), join(out, f));
  for (const pkg of ['io', 'clocks', 'filesystem']) {
    await cp(join(WASI_WIT, `wasi-${pkg}`), join(out, 'deps', pkg), { recursive: true }).catch(() => {
      throw new Error(`WASI ${WASI} WIT not found under ${WASI_WIT}: run \`npm ci\` (in plugins/sdk-js, or \`npm install\` in a project)`);
    });
  }
  const world = (kind) => `
world ${kind}-connector-js {
    include ${kind}-connector;
    import wasi:filesystem/types@${WASI};
    import wasi:filesystem/preopens@${WASI};
}
`;
  const pkg = (await readFile(join(wit, 'connector.wit'), 'utf8')).match(/^package\s+([^;]+);/m)[1];
  await writeFile(join(out, 'js-worlds.wit'), `package ${pkg};\n${world('source')}${world('sink')}`);
  return out;
}

async function main() {
  const args = process.argv.slice(2);
  let wit = resolve(SDK, '../../wit');
  const witAt = args.indexOf('--wit');
  if (witAt >= 0) [wit] = args.splice(witAt, 2).slice(1);
  if (args.length !== 2) usage('expected a module and an output path');
  const [input, output] = args;
  const started = Date.now();
  const entry = await entryOf(input);
  const work = await mkdtemp(join(tmpdir(), 'wasm-connect-js-'));
  try {
    const kind = await worldOf(entry, work);
    const bundle = join(work, `${basename(output, '.wasm')}.js`);
    await esbuild.build({
      ...bundleOptions,
      stdin: { contents: generatedEntry(entry, kind), resolveDir: dirname(resolve(entry)), sourcefile: 'entry.js' },
      outfile: bundle,
    });
    const { component } = await componentize({
      sourcePath: bundle,
      witPath: await witFolder(wit, work),
      worldName: kind === 'transform' ? 'transform' : `${kind}-connector-js`,
      disableFeatures: ['http', 'fetch-event'],
    });
    await mkdir(dirname(resolve(output)), { recursive: true });
    await writeFile(output, component);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`${output}: ${kind} plugin, ${component.length} bytes, built in ${secs} s`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
