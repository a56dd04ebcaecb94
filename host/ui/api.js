//! api.js: the dashboard's only door to the worker: same-origin calls of the Kafka
//! Connect REST API (the browser adds the basic-auth login it was given for the page).
//! Every call resolves to `{ok, status, statusText, body, method, path}`, errors included,
//! so views can show the REST answer as it came.

/** Calls `method path` with an optional JSON body. Never throws for HTTP errors. */
export async function call(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    return { ok: false, status: 0, statusText: 'network error', body: { message: String(e) }, method, path };
  }
  const text = await response.text();
  let parsed = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Plain text (e.g. /metrics): kept as it is.
  }
  return { ok: response.ok, status: response.status, statusText: response.statusText, body: parsed, method, path };
}

/** GETs `path` and returns its body, or throws an Error with the API's message. */
export async function get(path) {
  const r = await call('GET', path);
  if (!r.ok) throw new Error(message(r));
  return r.body;
}

/** The API's error message of an answer, or its status. */
export function message(r) {
  if (r.body && typeof r.body === 'object' && r.body.message) return `${r.status}: ${r.body.message}`;
  return `${r.status} ${r.statusText}`;
}
