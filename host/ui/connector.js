//! connector.js: one connector's page. Its status (connector and every task, traces
//! collapsible, and the retry and restart details the status carries under `extensions`),
//! refreshed every two seconds; the action bar; its config (values of PASSWORD keys shown
//! as `[hidden]`, as the REST API's validate hides them); topics and offsets (every six
//! seconds); per-task charts from metrics.js; and its converters (converters.js: the
//! classes, and for Schema Registry converters their registry, subjects and requests).
//! Credentials of converters (`*.basic.auth.user.info`, tokens) are hidden in the config
//! too, and user info is taken out of registry URLs. Changes go through actions.js only.

import { call, get, message } from './api.js';
import { actionBar, answerBox, taskRestart } from './actions.js';
import { badge, clock, fill, h, seg } from './dom.js';
import { chart } from './chart.js';
import { isCredential, renderConverters, withoutUserInfo } from './converters.js';
import * as metrics from './metrics.js';

const POLL_MS = 2000;
/** Topics and offsets change slowly: every this many status polls. */
const SLOW_EVERY = 3;

export function connectorView(main, name) {
  const base = `/connectors/${seg(name)}`;
  const { box, show } = answerBox();
  const status = h('section', { id: 'status', 'aria-labelledby': 'status-title' });
  const charts = h('section', { id: 'charts', 'aria-labelledby': 'charts-title' });
  const converters = h('section', { id: 'converters', 'aria-labelledby': 'converters-title' });
  let lastConfig = null;
  const config = h('section', { id: 'config', 'aria-labelledby': 'config-title' });
  const topics = h('section', { id: 'topics', 'aria-labelledby': 'topics-title' });
  const offsets = h('section', { id: 'offsets', 'aria-labelledby': 'offsets-title' });
  const openTraces = new Set();

  const refreshStatus = async () => {
    const r = await call('GET', `${base}/status`);
    if (r.status === 404) {
      // Not there (yet, when just created; or any more): polling goes on.
      fill(status, h('h2', { id: 'status-title' }, 'Status'), h('p', { class: 'empty' }, `${name} does not exist (any more). `, h('a', { href: '#/connectors' }, 'Back to connectors'), '.'));
      return;
    }
    if (!r.ok) {
      fill(status, h('h2', { id: 'status-title' }, 'Status'), h('p', { class: 'error' }, message(r)));
      return;
    }
    renderStatus(status, r.body, name, openTraces, show, refreshAll);
    renderCharts(charts, name, r.body.tasks.map((t) => t.id));
    renderConverters(converters, lastConfig, metrics.registryOf(name));
  };
  const refreshConfig = async () => {
    const info = await call('GET', base);
    if (!info.ok) return;
    lastConfig = info.body.config;
    renderConverters(converters, lastConfig, metrics.registryOf(name));
    await renderConfig(config, info.body.config);
  };
  const refreshTopicsAndOffsets = async () => {
    const t = await call('GET', `${base}/topics`);
    fill(topics, h('h2', { id: 'topics-title' }, 'Topics'),
      t.ok ? list(t.body?.[name]?.topics || [], 'No active topics recorded.') : h('p', { class: 'muted' }, message(t)));
    const o = await call('GET', `${base}/offsets`);
    fill(offsets, h('h2', { id: 'offsets-title' }, 'Offsets'),
      o.ok ? offsetsTable(o.body?.offsets || []) : h('p', { class: 'muted' }, message(o)));
  };
  const refreshAll = () => {
    refreshStatus();
    setTimeout(refreshStatus, 500);
    refreshConfig();
    refreshTopicsAndOffsets();
  };

  fill(main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/connectors' }, 'Connectors'), ' / '),
    h('h1', {}, name),
    actionBar(name, show, refreshAll, () => {
      location.hash = '#/connectors';
    }),
    box, status, charts, converters, config, topics, offsets);
  fill(status, h('h2', { id: 'status-title' }, 'Status'), h('p', {}, 'Loading…'));
  renderConverters(converters, null, {});
  refreshAll();
  const stopMetrics = metrics.watch();
  let polls = 0;
  const timer = setInterval(() => {
    refreshStatus();
    polls += 1;
    if (polls % SLOW_EVERY === 0) refreshTopicsAndOffsets();
  }, POLL_MS);
  return () => {
    clearInterval(timer);
    stopMetrics();
  };
}

function retryText(kind, r) {
  const of = r.retries_max ? ` of ${r.retries_max}` : '';
  const at = `${clock(r.next_retry_at)} (in ${Math.max(0, Math.round((r.next_retry_at - Date.now()) / 1000))} s)`;
  return h('p', { class: 'retry' }, h('strong', {}, `${kind}: `), `attempt ${r.retry}${of} at ${at}, after a ${r.next_retry_delay_ms} ms back-off`,
    r.last_error ? h('span', {}, ' · last error: ', h('code', {}, r.last_error)) : '');
}

function extras(e) {
  if (!e) return [];
  return [
    e.reconfiguration ? retryText('Task reconfiguration retry', e.reconfiguration) : null,
    e.restart ? retryText('Automatic restart', e.restart) : null,
  ];
}

function trace(key, text, openTraces) {
  if (!text) return null;
  const d = h('details', { class: 'trace', open: openTraces.has(key) },
    h('summary', {}, 'Trace'),
    h('pre', { tabindex: '0' }, text));
  d.addEventListener('toggle', () => (d.open ? openTraces.add(key) : openTraces.delete(key)));
  return d;
}

function renderStatus(el, s, name, openTraces, show, after) {
  const c = s.connector;
  const ext = s.extensions || {};
  fill(el,
    h('h2', { id: 'status-title' }, 'Status'),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Connector'), h('dd', { id: 'connector-state' }, badge(c.state)),
      h('dt', {}, 'Type'), h('dd', {}, s.type),
      h('dt', {}, 'Worker'), h('dd', {}, c.worker_id),
      c.version ? [h('dt', {}, 'Version'), h('dd', {}, c.version)] : null),
    extras(ext.connector),
    trace('connector', c.trace, openTraces),
    h('h3', {}, `Tasks (${s.tasks.length})`),
    s.tasks.length ? h('ul', { class: 'tasks' }, s.tasks.map((t) => h('li', { class: 'task', 'data-task': t.id },
      h('div', { class: 'task-head' },
        h('span', { class: 'task-id' }, `Task ${t.id}`), badge(t.state),
        h('span', { class: 'muted' }, t.worker_id),
        taskRestart(name, t.id, show, after)),
      extras(ext.tasks?.[String(t.id)]),
      trace(`task-${t.id}`, t.trace, openTraces)))) : h('p', { class: 'muted' }, 'No tasks.'));
}

function renderCharts(el, name, taskIds) {
  const why = metrics.problem();
  const ids = [...new Set([...taskIds, ...metrics.tasksOf(name)])].sort((a, b) => a - b);
  const rate = (y) => `${y.toFixed(y < 10 ? 1 : 0)}/s`;
  const count = (y) => String(Math.round(y));
  fill(el,
    h('h2', { id: 'charts-title' }, 'Figures (while this page is open)'),
    why ? h('p', { class: 'muted' }, why) : null,
    ids.map((id) => {
      const s = metrics.series(name, id);
      return h('div', { class: 'task-charts', 'data-task': id },
        h('h3', {}, `Task ${id}`),
        h('div', { class: 'charts' },
          chart('Records in', s.in, metrics.WINDOW_MS, rate),
          chart('Records out', s.out, metrics.WINDOW_MS, rate),
          chart('Failures', s.failures, metrics.WINDOW_MS, count),
          chart('Restarts', s.restarts, metrics.WINDOW_MS, count)));
    }));
}

async function renderConfig(el, config) {
  let secret = new Set();
  const cls = config['connector.class'];
  if (cls) {
    try {
      const defs = await get(`/connector-plugins/${seg(cls)}/config`);
      secret = new Set(defs.filter((d) => d.type === 'PASSWORD').map((d) => d.name));
    } catch {
      // Unknown plugin: nothing known to be secret beyond the usual names.
    }
  }
  const hidden = (k) => secret.has(k) || isCredential(k);
  const shown = (k) => (/(^|\.)schema\.registry\.url$/.test(k) ? withoutUserInfo(config[k]) : config[k]);
  fill(el,
    h('h2', { id: 'config-title' }, 'Config'),
    h('table', { class: 'config' },
      h('caption', { class: 'visually-hidden' }, 'Config'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Key'), h('th', { scope: 'col' }, 'Value'))),
      h('tbody', {}, Object.keys(config).sort().map((k) => h('tr', {},
        h('th', { scope: 'row' }, h('code', {}, k)),
        h('td', {}, hidden(k) ? h('span', { class: 'hidden-value' }, '[hidden]') : h('code', {}, shown(k))))))));
}

function list(items, empty) {
  return items.length ? h('ul', { class: 'plain' }, items.map((t) => h('li', {}, h('code', {}, t)))) : h('p', { class: 'muted' }, empty);
}

function offsetsTable(offsets) {
  if (!offsets.length) return h('p', { class: 'muted' }, 'No offsets committed.');
  return h('table', { class: 'config' },
    h('caption', { class: 'visually-hidden' }, 'Offsets'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Partition'), h('th', { scope: 'col' }, 'Offset'))),
    h('tbody', {}, offsets.map((o) => h('tr', {},
      h('td', {}, h('code', {}, JSON.stringify(o.partition))),
      h('td', {}, h('code', {}, JSON.stringify(o.offset)))))));
}
