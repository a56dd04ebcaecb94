//! dom.js: how the dashboard builds its elements. `h(tag, attrs, ...children)` makes an
//! element from plain values (text is always text: nothing is parsed as HTML), `clear`
//! empties a container, and `svg` makes SVG elements for the charts. No view state here.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
    else if (k === 'value' && 'value' in el) el.value = v;
    else if (k === 'checked' || k === 'selected' || k === 'open') el[k] = Boolean(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** An HTML element: `h('a', {href: '#/x'}, 'text', child, [more])`. */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element, as `h`. */
export function svg(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Empties `el` and appends `children`. */
export function fill(el, ...children) {
  el.replaceChildren();
  return build(el, {}, children);
}

/** A state name as a badge (`RUNNING`, `FAILED`, …), coloured by CSS and never by colour alone. */
export function badge(state) {
  const s = String(state || 'UNKNOWN');
  return h('span', { class: `badge state-${s.toLowerCase()}` }, s);
}

/** Says `text` to screen readers through the page's polite live region. */
export function announce(text) {
  const region = document.getElementById('announce');
  if (region) region.textContent = text;
}

/** `ms` since the epoch as local time, e.g. `14:03:22`. */
export function clock(ms) {
  return new Date(ms).toLocaleTimeString([], { hour12: false });
}

/** `encodeURIComponent` for a path segment (connector names may hold anything). */
export const seg = encodeURIComponent;
