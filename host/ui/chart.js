//! chart.js: one small inline-SVG line chart (a sparkline with its latest value and the
//! time span), for the per-task figures. No chart library; no state.

import { h, svg } from './dom.js';

const W = 240;
const H = 60;

/**
 * A figure titled `label` for `points` (`[at, y]`, oldest first) over at most `windowMs`,
 * with `format(y)` for the latest value. The numbers are text too, for screen readers.
 */
export function chart(label, points, windowMs, format = (y) => y.toFixed(1)) {
  const now = Date.now();
  const shown = points.filter(([at]) => at >= now - windowMs);
  // The axis spans what the buffer holds (at least 30 s, at most the window).
  const span = Math.min(windowMs, Math.max(30_000, shown.length ? now - shown[0][0] : 0));
  const from = now - span;
  const max = Math.max(1, ...shown.map(([, y]) => y));
  const x = (at) => ((at - from) / span) * W;
  const y = (v) => H - 4 - (v / max) * (H - 8);
  const latest = shown.length ? shown[shown.length - 1][1] : null;
  const path = shown.map(([at, v], i) => `${i ? 'L' : 'M'}${x(at).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const text = latest === null ? 'no data yet' : format(latest);
  const ago = span >= 120_000 ? `${Math.round(span / 60_000)} min ago` : `${Math.round(span / 1000)} s ago`;
  return h('figure', { class: 'chart' },
    h('figcaption', {}, h('span', {}, label), h('strong', {}, text)),
    svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${label}: ${text}, peak ${format(max)} since ${ago}`, preserveAspectRatio: 'none' },
      svg('line', { x1: 0, x2: W, y1: H - 4, y2: H - 4, class: 'axis' }),
      path ? svg('path', { d: path, class: 'line' }) : null,
      latest === null ? null : svg('line', { x1: x(shown[shown.length - 1][0]).toFixed(1), x2: x(shown[shown.length - 1][0]).toFixed(1), y1: y(latest).toFixed(1), y2: y(latest).toFixed(1), class: 'dot' })),
    h('div', { class: 'chart-scale', 'aria-hidden': 'true' }, h('span', {}, ago), h('span', {}, `max ${format(max)}`)));
}
