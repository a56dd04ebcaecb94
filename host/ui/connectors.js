//! connectors.js: the connectors page. Lists every connector with its state, type, class,
//! tasks and worker from `GET /connectors?expand=status&expand=info`, polled every two
//! seconds while the page is shown; filters by state and by name. Reads only.

import { call, message } from './api.js';
import { badge, clock, fill, h, seg } from './dom.js';

const STATES = ['RUNNING', 'FAILED', 'PAUSED', 'STOPPED', 'RESTARTING', 'UNASSIGNED'];
const POLL_MS = 2000;

export function connectorsView(main) {
  const state = h('select', { id: 'filter-state' },
    h('option', { value: '' }, 'All states'),
    STATES.map((s) => h('option', { value: s }, s)));
  const name = h('input', { id: 'filter-name', type: 'search', placeholder: 'part of a name', autocomplete: 'off' });
  const summary = h('p', { class: 'muted', id: 'list-summary', 'aria-live': 'polite' }, 'Loading…');
  const body = h('div', { id: 'connector-list' });
  let last = null;

  const render = () => {
    if (!last) return;
    const wanted = state.value;
    const text = name.value.trim().toLowerCase();
    const rows = Object.entries(last)
      .sort(([a], [b]) => a.localeCompare(b))
      .filter(([n, c]) => (!wanted || stateOf(c) === wanted || tasksOf(c).some((t) => t.state === wanted))
        && (!text || n.toLowerCase().includes(text)));
    const counts = {};
    for (const c of Object.values(last)) counts[stateOf(c)] = (counts[stateOf(c)] || 0) + 1;
    const parts = Object.entries(counts).sort().map(([s, n]) => `${n} ${s.toLowerCase()}`);
    summary.textContent = `${Object.keys(last).length} connectors${parts.length ? ` (${parts.join(', ')})` : ''}, `
      + `${rows.length} shown · updated ${clock(Date.now())}`;
    fill(body, rows.length ? table(rows) : h('p', { class: 'empty' }, Object.keys(last).length
      ? 'No connector matches the filter.'
      : h('span', {}, 'No connectors yet. ', h('a', { href: '#/new' }, 'Create one'), '.')));
  };

  const poll = async () => {
    const r = await call('GET', '/connectors?expand=status&expand=info');
    if (r.ok) {
      last = r.body;
      render();
    } else {
      summary.textContent = `Could not list connectors: ${message(r)}`;
    }
  };

  state.addEventListener('change', render);
  name.addEventListener('input', render);
  fill(main,
    h('div', { class: 'title' }, h('h1', {}, 'Connectors'), h('a', { class: 'button primary', href: '#/new' }, 'New connector')),
    h('form', { class: 'filters', role: 'search', onsubmit: (e) => e.preventDefault() },
      h('label', { for: 'filter-state' }, 'State'), state,
      h('label', { for: 'filter-name' }, 'Name'), name),
    summary, body);
  poll();
  const timer = setInterval(poll, POLL_MS);
  return () => clearInterval(timer);
}

function stateOf(c) {
  return c.status?.connector?.state || 'UNKNOWN';
}

function tasksOf(c) {
  return c.status?.tasks || [];
}

function table(rows) {
  return h('table', { class: 'list' },
    h('caption', { class: 'visually-hidden' }, 'Connectors'),
    h('thead', {}, h('tr', {}, ['Name', 'State', 'Type', 'Class', 'Tasks', 'Worker'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map(([n, c]) => {
      const tasks = tasksOf(c);
      const running = tasks.filter((t) => t.state === 'RUNNING').length;
      const failed = tasks.filter((t) => t.state === 'FAILED').length;
      return h('tr', { 'data-connector': n },
        h('th', { scope: 'row', 'data-label': 'Name' }, h('a', { href: `#/connectors/${seg(n)}` }, n)),
        h('td', { 'data-label': 'State' }, badge(stateOf(c))),
        h('td', { 'data-label': 'Type' }, c.info?.type || c.status?.type || ''),
        h('td', { 'data-label': 'Class', class: 'class' }, c.info?.config?.['connector.class'] || ''),
        h('td', { 'data-label': 'Tasks' }, `${running}/${tasks.length} running`, failed ? h('span', { class: 'warn' }, ` · ${failed} failed`) : ''),
        h('td', { 'data-label': 'Worker' }, c.status?.connector?.worker_id || ''));
    })));
}
