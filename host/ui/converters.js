//! converters.js: a connector's key and value converters on its page. Each side shows the
//! connector's own `key.converter` / `value.converter` from its config, or "worker default"
//! when it sets none; for a Schema Registry converter, its `schema.registry.url` with any
//! user info taken out, and, from metrics.js, the subjects it uses and the requests it sent.
//! Credentials (`basic.auth.user.info`, a bearer token, user info in a URL) are never
//! shown. Reads what it is given; calls nothing.

import { h, fill } from './dom.js';

/** Confluent's Schema Registry converters, by every name that selects them. */
const REGISTRY = /(^|\.)(Avro|Protobuf|JsonSchema)(Converter)?$/;

/** `urls` (a comma-separated list) with the user info of each URL taken out. */
export function withoutUserInfo(urls) {
  return String(urls).split(',').map((u) => u.trim().replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1')).join(', ');
}

/** Whether config key `k` holds a credential of a converter or its registry. */
export function isCredential(k) {
  return /(^|\.)(user\.info|auth\.token|password|secret)$/i.test(k);
}

function sideRow(side, config, figures) {
  const key = `${side}.converter`;
  const own = config?.[key];
  const url = own ? config[`${key}.schema.registry.url`] : undefined;
  const registry = figures[side];
  const isRegistry = (own && REGISTRY.test(own)) || Boolean(registry);
  const subjects = registry ? [...registry.subjects].sort() : [];
  return h('tr', { 'data-side': side },
    h('th', { scope: 'row' }, side),
    h('td', { class: 'converter-class' }, own ? h('code', {}, own) : h('span', { class: 'muted' }, 'worker default'),
      !own && registry?.converter ? [' (', h('code', {}, registry.converter), ')'] : null),
    h('td', { class: 'registry-url' }, url ? h('code', {}, withoutUserInfo(url)) : h('span', { class: 'muted' }, isRegistry ? 'worker default' : '—')),
    h('td', { class: 'subjects' }, subjects.length
      ? h('ul', { class: 'plain' }, subjects.map((s) => h('li', {}, h('code', {}, s))))
      : h('span', { class: 'muted' }, isRegistry ? 'none yet' : '—')),
    h('td', { class: 'requests' }, isRegistry ? String(Math.round(registry?.requests || 0)) : '—'));
}

/**
 * Renders the converters of a connector into `el`: `config` its config (or `null` before
 * it loaded), `figures` what metrics.js's `registryOf` says of it.
 */
export function renderConverters(el, config, figures) {
  fill(el,
    h('h2', { id: 'converters-title' }, 'Converters'),
    config ? h('table', { class: 'config converters' },
      h('caption', { class: 'visually-hidden' }, 'Converters'),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'Side'),
        h('th', { scope: 'col' }, 'Converter'),
        h('th', { scope: 'col' }, 'Schema registry'),
        h('th', { scope: 'col' }, 'Subjects in use'),
        h('th', { scope: 'col' }, 'Registry requests'))),
      h('tbody', {}, ['key', 'value'].map((side) => sideRow(side, config, figures))))
      : h('p', {}, 'Loading…'));
}
