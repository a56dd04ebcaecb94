//! plugins.js: the plugin catalog. Every installed plugin component, every version, from
//! `GET /wasm-connect/plugins` (kind, language, version, file, digest, the capabilities it
//! may be granted), its config definition from `GET /connector-plugins/{class}/config`
//! (of that version, loaded when opened), the files of `plugin.path` that did not load and
//! why (`GET /wasm-connect/plugins/failures`), the files still loading while the worker
//! loads its plugin path (`GET /wasm-connect/plugins/loading`), and the built-in converters,
//! transformations and predicates from `GET /connector-plugins?connectorsOnly=false`.
//! "Scan plugin.path now" asks `POST /wasm-connect/plugins/rescan` and shows the catalog
//! again; nothing else here changes the worker.

import { call, get, message } from './api.js';
import { announce, fill, h, seg } from './dom.js';

export function pluginsView(main) {
  const list = h('div', { id: 'plugin-list' }, h('p', {}, 'Loading…'));
  const failures = h('section', { id: 'plugin-failures', 'aria-labelledby': 'failures-title', hidden: true });
  const builtins = h('section', { 'aria-labelledby': 'builtins-title' });
  const rescan = h('button', { type: 'button', id: 'rescan' }, 'Scan plugin.path now');
  rescan.addEventListener('click', async () => {
    rescan.disabled = true;
    const r = await call('POST', '/wasm-connect/plugins/rescan');
    rescan.disabled = false;
    if (!r.ok) {
      announce(`The scan failed: ${message(r)}`);
      fill(list, h('p', { class: 'error' }, `The scan failed: ${message(r)}`));
      return;
    }
    const n = (x) => x.length;
    announce(`Scanned: ${n(r.body.added)} added, ${n(r.body.removed)} removed, ${n(r.body.failures)} not loaded.`);
    await show();
  });
  const note = h('p', { id: 'plugins-loading', role: 'status', hidden: true });
  fill(main, h('h1', {}, 'Plugins'), h('div', { class: 'actions' }, rescan), note, failures, list, builtins);
  const show = async () => {
    const [r, broken, loading] = await Promise.all([call('GET', '/wasm-connect/plugins'),
      call('GET', '/wasm-connect/plugins/failures'), call('GET', '/wasm-connect/plugins/loading')]);
    const pending = loading.ok && loading.body.loading ? loading.body.files : null;
    note.hidden = !pending;
    if (pending) {
      fill(note, `Loading the plugin path: ${pending.length} file(s) not loaded yet`,
        pending.length ? `: ${pending.join(', ')}` : '', '. Connectors start as their plugin is ready.');
      // Shown again until the loading is done, while this page is open.
      setTimeout(() => note.isConnected && show(), 2000);
    }
    const lines = broken.ok ? broken.body.failures : [];
    failures.hidden = lines.length === 0;
    fill(failures, h('h2', { id: 'failures-title' }, 'Files that did not load'),
      h('ul', { class: 'failures' }, lines.map((l) => h('li', {}, h('code', {}, l)))));
    if (!r.ok) {
      fill(list, h('p', { class: 'error' }, `Could not list plugins: ${message(r)}`));
      return;
    }
    // Kinds, then classes; a plugin's versions stay in the worker's order (oldest first).
    const plugins = [...r.body].sort((a, b) => a.type.localeCompare(b.type) || a.class.localeCompare(b.class));
    fill(list, plugins.length ? plugins.map(card) : h('p', { class: 'empty' }, 'No plugin components are installed (plugin.path).'));
    const all = await call('GET', '/connector-plugins?connectorsOnly=false');
    const ours = new Set(plugins.map((p) => p.class));
    const rest = all.ok ? all.body.filter((p) => !ours.has(p.class)) : [];
    fill(builtins, h('h2', { id: 'builtins-title' }, 'Built into the worker'),
      rest.length ? h('table', { class: 'list' },
        h('caption', { class: 'visually-hidden' }, 'Built-in plugins'),
        h('thead', {}, h('tr', {}, ['Class', 'Type', 'Version'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, rest.map((p) => h('tr', {},
          h('td', { 'data-label': 'Class', class: 'class' }, p.class),
          h('td', { 'data-label': 'Type' }, p.type),
          h('td', { 'data-label': 'Version' }, p.version))))) : h('p', { class: 'muted' }, all.ok ? 'None.' : message(all)));
  };
  show();
  return null;
}

function card(p) {
  const defs = h('div', {});
  const details = h('details', { class: 'defs' }, h('summary', {}, 'Config definition'), defs);
  details.addEventListener('toggle', async () => {
    if (!details.open || defs.childElementCount) return;
    try {
      const version = p.type === 'source' || p.type === 'sink' ? `?version=${seg(p.version)}` : '';
      fill(defs, definition(await get(`/connector-plugins/${seg(p.class)}/config${version}`)));
    } catch (e) {
      fill(defs, h('p', { class: 'error' }, e.message));
    }
  });
  const id = `plugin-${p.class}-${p.version}`.replace(/[^A-Za-z0-9_-]/g, '_');
  return h('article', { class: 'plugin', 'data-plugin': p.class, 'data-version': p.version, 'aria-labelledby': id },
    h('h2', { id }, `${p.class} `, h('span', { class: 'muted' }, p.version)),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Kind'), h('dd', {}, p.type),
      h('dt', {}, 'Language'), h('dd', {}, p.language),
      h('dt', {}, 'Version'), h('dd', {}, p.version),
      h('dt', {}, 'File'), h('dd', {}, h('code', {}, p.file || '')),
      h('dt', {}, 'Digest'), h('dd', {}, h('code', { class: 'digest', title: p.digest }, `${p.digest.slice(0, 16)}…`)),
      h('dt', {}, 'Capabilities'), h('dd', {}, p.capabilities.length
        ? h('ul', { class: 'caps' }, p.capabilities.map((c) => h('li', {}, h('code', {}, c))))
        : 'none (pure computation)')),
    details);
}

function definition(keys) {
  if (!keys.length) return h('p', { class: 'muted' }, 'No keys.');
  return h('div', { class: 'scroll' }, h('table', { class: 'config defs-table' },
    h('caption', { class: 'visually-hidden' }, 'Config keys'),
    h('thead', {}, h('tr', {}, ['Key', 'Type', 'Required', 'Default', 'Importance', 'Documentation'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, keys.map((k) => h('tr', {},
      h('th', { scope: 'row' }, h('code', {}, k.name)),
      h('td', {}, k.type),
      h('td', {}, k.required ? 'yes' : 'no'),
      h('td', {}, k.default_value === null || k.default_value === undefined ? '' : h('code', {}, k.default_value)),
      h('td', {}, k.importance),
      h('td', {}, k.documentation || ''))))));
}
