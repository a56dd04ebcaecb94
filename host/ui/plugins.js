//! plugins.js: the plugin catalog. Every installed plugin component from
//! `GET /wasm-connect/plugins` (kind, language, version, file, digest, the capabilities it
//! may be granted), its config definition from `GET /connector-plugins/{class}/config`
//! (loaded when opened), and the built-in converters, transformations and predicates from
//! `GET /connector-plugins?connectorsOnly=false`. Reads only.

import { call, get, message } from './api.js';
import { fill, h, seg } from './dom.js';

export function pluginsView(main) {
  const list = h('div', { id: 'plugin-list' }, h('p', {}, 'Loading…'));
  const builtins = h('section', { 'aria-labelledby': 'builtins-title' });
  fill(main, h('h1', {}, 'Plugins'), list, builtins);
  (async () => {
    const r = await call('GET', '/wasm-connect/plugins');
    if (!r.ok) {
      fill(list, h('p', { class: 'error' }, `Could not list plugins: ${message(r)}`));
      return;
    }
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
  })();
  return null;
}

function card(p) {
  const defs = h('div', {});
  const details = h('details', { class: 'defs' }, h('summary', {}, 'Config definition'), defs);
  details.addEventListener('toggle', async () => {
    if (!details.open || defs.childElementCount) return;
    try {
      fill(defs, definition(await get(`/connector-plugins/${seg(p.class)}/config`)));
    } catch (e) {
      fill(defs, h('p', { class: 'error' }, e.message));
    }
  });
  return h('article', { class: 'plugin', 'data-plugin': p.class, 'aria-labelledby': `plugin-${p.class}` },
    h('h2', { id: `plugin-${p.class}` }, p.class),
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
