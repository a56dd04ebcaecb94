//! editor.js: create and edit a connector's config as JSON. Validates as the user types
//! (`PUT /connector-plugins/{class}/config/validate`, debounced, stale answers dropped) and
//! shows every error beside its key: in the key list next to the editor and as a mark on
//! the key's line in the editor's gutter. Saves with `POST /connectors` (create) or
//! `PUT /connectors/{name}/config` (edit) and shows the REST answer.

import { call, get, message } from './api.js';
import { answerBox } from './actions.js';
import { announce, fill, h, seg } from './dom.js';

const DEBOUNCE_MS = 300;

export function editorView(main, existing) {
  const creating = existing === null;
  const { box, show } = answerBox();
  const nameInput = h('input', { id: 'connector-name', type: 'text', required: true, autocomplete: 'off', spellcheck: 'false', value: existing || '', readonly: !creating });
  const plugin = h('select', { id: 'connector-class' }, h('option', { value: '' }, 'Choose a plugin…'));
  const text = h('textarea', { id: 'config-json', spellcheck: 'false', autocapitalize: 'off', rows: 18, 'aria-describedby': 'validation-summary', wrap: 'off' });
  const gutter = h('div', { class: 'gutter', 'aria-hidden': 'true' });
  const summary = h('p', { id: 'validation-summary', role: 'status' }, '');
  const keys = h('ul', { class: 'keys', id: 'config-keys' });
  const save = h('button', { type: 'submit', class: 'primary', id: 'save' }, creating ? 'Create' : 'Save config');
  let seq = 0;
  let timer = null;

  const parse = () => {
    try {
      const v = JSON.parse(text.value);
      if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: 'The config must be a JSON object of key: value.' };
      return { config: v };
    } catch (e) {
      return { error: `Not JSON: ${e.message}` };
    }
  };
  const strings = (config) => Object.fromEntries(Object.entries(config).map(([k, v]) => [k, v === null || typeof v !== 'object' ? (v === null ? v : String(v)) : JSON.stringify(v)]));

  const validate = async () => {
    const mine = ++seq;
    const p = parse();
    if (p.error) {
      render(p.error, null, {});
      return;
    }
    const config = strings(p.config);
    const cls = config['connector.class'];
    if (plugin.value !== (cls || '')) plugin.value = [...plugin.options].some((o) => o.value === cls) ? cls : '';
    if (!cls) {
      render('Set "connector.class" (or choose a plugin) to validate.', null, config);
      return;
    }
    const body = { ...config };
    if (!('name' in body) && nameInput.value.trim()) body.name = nameInput.value.trim();
    const r = await call('PUT', `/connector-plugins/${seg(cls)}/config/validate`, body);
    if (mine !== seq) return;
    if (!r.ok) {
      render(`Cannot validate: ${message(r)}`, null, config);
      return;
    }
    render(null, r.body, config);
  };

  const render = (problem, infos, config) => {
    const errors = new Map();
    for (const c of infos?.configs || []) {
      if (c.value?.errors?.length) errors.set(c.value.name, c.value.errors);
    }
    const count = [...errors.values()].reduce((n, e) => n + e.length, 0);
    summary.className = problem || count ? 'invalid' : 'valid';
    summary.textContent = problem || (count ? `${count} error${count > 1 ? 's' : ''} in ${errors.size} key${errors.size > 1 ? 's' : ''}.` : 'Valid: no errors.');
    const lines = keyLines(text.value);
    const names = [...Object.keys(config), ...[...errors.keys()].filter((k) => !(k in config))];
    fill(keys, names.map((k) => {
      const e = errors.get(k) || [];
      return h('li', { class: e.length ? 'key invalid' : 'key', 'data-key': k },
        h('button', { type: 'button', class: 'link', 'aria-label': `Go to ${k} in the editor`, onclick: () => goTo(text, lines.get(k)), disabled: !lines.has(k) }, h('code', {}, k)),
        k in config ? null : h('span', { class: 'muted' }, ' (not set)'),
        e.map((m) => h('span', { class: 'key-error' }, m)));
    }));
    const marks = new Map();
    for (const [k, e] of errors) if (lines.has(k)) marks.set(lines.get(k), `${k}: ${e.join('; ')}`);
    fill(gutter, text.value.split('\n').map((_, i) => h('span', { class: marks.has(i) ? 'mark' : '', title: marks.get(i) || null }, marks.has(i) ? `! ${i + 1}` : String(i + 1))));
    save.disabled = Boolean(problem && problem.startsWith('Not JSON'));
  };

  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(validate, DEBOUNCE_MS);
  };
  text.addEventListener('input', schedule);
  text.addEventListener('scroll', () => {
    gutter.scrollTop = text.scrollTop;
  });
  nameInput.addEventListener('input', schedule);
  plugin.addEventListener('change', () => {
    const p = parse();
    const config = p.config || {};
    config['connector.class'] = plugin.value;
    if (!('tasks.max' in config)) config['tasks.max'] = '1';
    text.value = JSON.stringify(config, null, 2);
    validate();
  });

  const submit = async (e) => {
    e.preventDefault();
    const p = parse();
    if (p.error) {
      summary.textContent = p.error;
      text.focus();
      return;
    }
    const config = strings(p.config);
    const name = nameInput.value.trim();
    if (creating && !name) {
      announce('A connector needs a name.');
      nameInput.focus();
      return;
    }
    const r = creating
      ? await call('POST', '/connectors', { name, config })
      : await call('PUT', `/connectors/${seg(name)}/config`, config);
    show(r);
    if (r.ok) location.hash = `#/connectors/${seg(name)}`;
  };

  fill(main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/connectors' }, 'Connectors'), ' / ', existing ? h('a', { href: `#/connectors/${seg(existing)}` }, existing) : null),
    h('h1', {}, creating ? 'New connector' : `Edit ${existing}`),
    h('form', { class: 'editor', onsubmit: submit, novalidate: true },
      h('div', { class: 'fields' },
        h('label', { for: 'connector-name' }, 'Name'), nameInput,
        h('label', { for: 'connector-class' }, 'Plugin'), plugin),
      h('div', { class: 'editor-grid' },
        h('div', { class: 'json' },
          h('label', { for: 'config-json' }, 'Config (JSON)'),
          h('div', { class: 'code' }, gutter, text),
          summary),
        h('div', { class: 'key-panel' }, h('h2', {}, 'Keys and errors'), keys)),
      h('div', { class: 'row' }, save, h('a', { class: 'button', href: existing ? `#/connectors/${seg(existing)}` : '#/connectors' }, 'Cancel'))),
    box);

  // Until the current config is in, nothing can be typed or saved (a save would send `{}`).
  text.readOnly = true;
  save.disabled = true;
  summary.textContent = 'Loading…';
  (async () => {
    try {
      const plugins = await get('/connector-plugins');
      for (const p of plugins) plugin.append(h('option', { value: p.class }, `${p.class} (${p.type} ${p.version})`));
    } catch (e) {
      summary.textContent = `Could not list plugins: ${e.message}`;
    }
    if (creating) {
      text.value = JSON.stringify({ 'connector.class': '', 'tasks.max': '1' }, null, 2);
    } else {
      const r = await call('GET', `/connectors/${seg(existing)}/config`);
      if (!r.ok) {
        summary.textContent = `Could not read the config: ${message(r)}`;
        return;
      }
      text.value = JSON.stringify(r.body, null, 2);
    }
    text.readOnly = false;
    save.disabled = false;
    validate();
  })();
  return () => clearTimeout(timer);
}

/** The 0-based line of each top-level key's `"key":` in JSON text. */
function keyLines(source) {
  const out = new Map();
  source.split('\n').forEach((line, i) => {
    const m = line.match(/^\s*("(?:[^"\\]|\\.)*")\s*:/);
    if (!m) return;
    try {
      const k = JSON.parse(m[1]);
      if (!out.has(k)) out.set(k, i);
    } catch {
      // Not a key.
    }
  });
  return out;
}

/** Puts the caret on line `line` of `textarea` and focuses it. */
function goTo(textarea, line) {
  if (line === undefined) return;
  const lines = textarea.value.split('\n');
  const start = lines.slice(0, line).reduce((n, l) => n + l.length + 1, 0);
  textarea.focus();
  textarea.setSelectionRange(start, start + lines[line].length);
}
