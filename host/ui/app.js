//! app.js: the dashboard's shell. Maps the location hash to a view (`#/connectors`,
//! `#/connectors/{name}`, `#/connectors/{name}/edit`, `#/new`, `#/plugins`), mounts it in
//! `<main>`, stops the previous view's timers, marks the current nav link and, on a page
//! change, moves focus to the new page's heading; the skip link focuses `<main>` without
//! touching the hash. Views own their content; this file owns only the switching.

import { get } from './api.js';
import { fill, h } from './dom.js';
import { connectorsView } from './connectors.js';
import { connectorView } from './connector.js';
import { editorView } from './editor.js';
import { pluginsView } from './plugins.js';

const ROUTES = [
  [/^#?\/?(connectors)?$/, () => connectorsView, 'connectors'],
  [/^#\/connectors\/([^/]+)\/edit$/, (m) => (el) => editorView(el, decodeURIComponent(m[1])), 'connectors'],
  [/^#\/connectors\/([^/]+)$/, (m) => (el) => connectorView(el, decodeURIComponent(m[1])), 'connectors'],
  [/^#\/new$/, () => (el) => editorView(el, null), 'new'],
  [/^#\/plugins$/, () => pluginsView, 'plugins'],
];

let stop = null;

function route(event) {
  if (stop) stop();
  stop = null;
  const main = document.getElementById('main');
  const hash = location.hash || '#/connectors';
  for (const [re, view, nav] of ROUTES) {
    const m = hash.match(re);
    if (!m) continue;
    for (const a of document.querySelectorAll('[data-nav]')) {
      if (a.dataset.nav === nav) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    main.replaceChildren();
    stop = view(m)(main) || null;
    const heading = main.querySelector('h1');
    if (heading) {
      heading.setAttribute('tabindex', '-1');
      // On a page change only: a fresh load starts at the top, with the skip link.
      if (event) heading.focus({ preventScroll: true });
      document.title = `${heading.textContent} · wasm-connect`;
    }
    return;
  }
  fill(main, h('h1', {}, 'Not found'), h('p', {}, 'No page at ', h('code', {}, hash), '. ', h('a', { href: '#/connectors' }, 'Connectors')));
}

async function worker() {
  try {
    const root = await get('/');
    const el = document.getElementById('worker');
    el.textContent = `v${root.version}${root.kafka_cluster_id ? ` · cluster ${root.kafka_cluster_id}` : ''}`;
  } catch {
    // The header line is a nicety; the views report errors.
  }
}

window.addEventListener('hashchange', route);
// The skip link moves focus to the page's content; following its `#main` would change the
// route (the hash is the router's) and show "Not found".
document.querySelector('a.skip')?.addEventListener('click', (event) => {
  event.preventDefault();
  document.getElementById('main').focus();
});
route();
worker();
