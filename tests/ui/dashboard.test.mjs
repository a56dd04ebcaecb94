//! dashboard.test.mjs: the dashboard (/ui) end to end in Debian's Chromium, driven by
//! Playwright. scripts/ui-tests.sh starts the two workers this file is given
//! (UI_OPEN_URL, and UI_AUTH_URL: HTTPS with a self-signed certificate, which
//! NODE_EXTRA_CA_CERTS names, behind basic authentication) and reads the screenshots it
//! leaves in UI_ARTIFACTS. Runs the pages as a user would: creates a connector from the
//! editor, sees it RUNNING, sees a chaos connector's FAILED task and its trace, restarts,
//! pauses, resumes and deletes, reads the plugin catalog, sees a version copied into
//! UI_PLUGIN_DIR (from UI_VERSIONED_PLUGIN) and a broken file there after a scan, logs in, and checks every page
//! with axe-core (WCAG 2 A and AA: labels, contrast, landmarks) and from the keyboard.
//! With UI_SCHEMA_REGISTRY_URL (a Schema Registry's URL, which scripts/ui-tests.sh passes
//! on from SCHEMA_REGISTRY_URL), a connector with an Avro value converter shows its
//! converters, its registry without credentials, and the subject it registered.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const OPEN = process.env.UI_OPEN_URL;
const AUTH = process.env.UI_AUTH_URL;
const LOGIN = { username: process.env.UI_AUTH_USER, password: process.env.UI_AUTH_PASSWORD };
const ARTIFACTS = process.env.UI_ARTIFACTS || tmpdir();
const WIDE = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
const TIMEOUT = 30_000;
const REGISTRY = process.env.UI_SCHEMA_REGISTRY_URL;
const PLUGIN_DIR = process.env.UI_PLUGIN_DIR;
const VERSIONED = process.env.UI_VERSIONED_PLUGIN;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let browser;

async function healthy(base, headers = {}) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`${base}/health`, { headers });
      if (r.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${base} did not become healthy`);
}

function basic() {
  return { Authorization: `Basic ${Buffer.from(`${LOGIN.username}:${LOGIN.password}`).toString('base64')}` };
}

async function newPage(options = {}) {
  const context = await browser.newContext({ viewport: WIDE, ...options });
  context.setDefaultTimeout(TIMEOUT);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && !/status of 40[14]|status of 409|status of 500/.test(m.text()) && problems.push(m.text()));
  return { context, page, problems };
}

/** `test(name, body)` that leaves a screenshot of every open page when `body` fails. */
function scenario(name, body) {
  test(name, async () => {
    const pages = [];
    try {
      await body((p) => pages.push(p));
    } catch (e) {
      let i = 0;
      for (const p of pages) {
        i += 1;
        await p.screenshot({ path: join(ARTIFACTS, `failed-${name.split(' ')[0]}-${i}.png`), fullPage: true }).catch(() => {});
      }
      throw e;
    }
  });
}

async function shot(page, name) {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Waits until `locator`'s text matches `re` (polling pages refresh on their own). */
async function eventually(locator, re) {
  await locator.filter({ hasText: re }).first().waitFor({ timeout: TIMEOUT });
}

before(async () => {
  assert.ok(OPEN && AUTH, 'UI_OPEN_URL and UI_AUTH_URL are set (run scripts/ui-tests.sh)');
  await healthy(OPEN);
  await healthy(AUTH, basic());
  // Playwright runs Chromium headless with a fresh profile directory of its own.
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
});

scenario('create from the editor, see it run, pause, resume, and delete it', async (track) => {
  const { context, page, problems } = await newPage();
  track(page);
  await page.goto(`${OPEN}/ui`);
  await page.getByRole('heading', { name: 'Connectors', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'New connector' }).first().click();
  await page.getByRole('heading', { name: 'New connector' }).waitFor();
  await page.getByLabel('Name').fill('ui-datagen');
  const plugins = await page.locator('#connector-class option').allTextContents();
  const datagen = plugins.find((p) => /datagen/i.test(p));
  assert.ok(datagen, `the plugin list offers datagen: ${plugins}`);
  await page.getByLabel('Plugin').selectOption({ label: datagen });

  // Validate as the user types: the required topic is missing, then a bad value.
  const keys = page.locator('#config-keys');
  await eventually(keys.locator('li.invalid'), /topic/);
  const editor = page.getByLabel('Config (JSON)');
  const config = JSON.parse(await editor.inputValue());
  await editor.fill(JSON.stringify({ ...config, topic: 'ui-datagen-topic', rate: '-5' }, null, 2));
  await eventually(keys.locator('li.invalid[data-key="rate"] .key-error'), /-1|greater than 0/);
  await eventually(page.locator('.gutter .mark'), /!/);
  await shot(page, 'editor-errors');
  await editor.fill(JSON.stringify({ ...config, topic: 'ui-datagen-topic', rate: '200' }, null, 2));
  await eventually(page.locator('#validation-summary'), /Valid: no errors/);
  assert.equal(await keys.locator('li.invalid').count(), 0);
  await shot(page, 'editor');
  await page.getByRole('button', { name: 'Create' }).click();

  // The connector's page: RUNNING, its config, its task's figures.
  await page.getByRole('heading', { name: 'ui-datagen', level: 1 }).waitFor();
  await eventually(page.locator('#connector-state'), /RUNNING/);
  await eventually(page.locator('li.task[data-task="0"]'), /RUNNING/);
  await eventually(page.locator('#config'), /ui-datagen-topic/);
  await eventually(page.locator('#topics'), /ui-datagen-topic/);
  await eventually(page.locator('.task-charts[data-task="0"] figure').filter({ hasText: 'Records out' }), /[1-9][0-9]*(\.[0-9])?\/s/);
  await shot(page, 'connector');

  await page.getByRole('button', { name: 'Pause' }).click();
  await eventually(page.locator('#answer'), /PUT \/connectors\/ui-datagen\/pause → 202/);
  await eventually(page.locator('#connector-state'), /PAUSED/);
  await page.getByRole('button', { name: 'Resume' }).click();
  await eventually(page.locator('#answer'), /resume → 202/);
  await eventually(page.locator('#connector-state'), /RUNNING/);

  // Edit: the editor loads the current config and saves a change.
  await page.getByRole('link', { name: 'Edit config' }).click();
  await page.getByRole('heading', { name: 'Edit ui-datagen' }).waitFor();
  // The editor is read-only until the current config has loaded.
  await page.waitForFunction(() => {
    const t = document.getElementById('config-json');
    return t && !t.readOnly && t.value.length > 0;
  }, null, { timeout: TIMEOUT });
  const current = JSON.parse(await page.getByLabel('Config (JSON)').inputValue());
  assert.equal(current.topic, 'ui-datagen-topic');
  await page.getByLabel('Config (JSON)').fill(JSON.stringify({ ...current, rate: '100' }, null, 2));
  await eventually(page.locator('#validation-summary'), /Valid/);
  await page.getByRole('button', { name: 'Save config' }).click();
  await page.getByRole('heading', { name: 'ui-datagen', level: 1 }).waitFor();
  await eventually(page.locator('#config'), /100/);

  // Delete asks first; Cancel keeps it.
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await eventually(dialog, /Delete ui-datagen\?/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal((await page.request.get(`${OPEN}/connectors/ui-datagen`)).status(), 200);
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('heading', { name: 'Connectors', level: 1 }).waitFor();
  assert.equal((await page.request.get(`${OPEN}/connectors/ui-datagen`)).status(), 404);
  assert.deepEqual(problems, []);
  await context.close();
});

scenario('a failed chaos task shows its trace, hides the secret, and restarts', async (track) => {
  const { context, page, problems } = await newPage();
  track(page);
  for (const [name, config] of [
    ['ui-chaos', {
      'connector.class': 'ChaosSource', 'tasks.max': '2', 'chaos.fail.tasks': '1', 'chaos.secret': 'do-not-show-me',
      // An automatic restart far enough away to be read on the page.
      'restart.policy': 'on-failure', 'restart.backoff.initial.ms': '600000', 'restart.backoff.max.ms': '600000', 'restart.retries.max': '3',
    }],
    ['ui-running', { 'connector.class': 'ChaosSource', 'tasks.max': '1' }],
    ['ui-broken', { 'connector.class': 'ChaosSink', topics: 'chaos', 'chaos.mode': 'trap', 'chaos.when': 'connector-start' }],
  ]) {
    const r = await page.request.post(`${OPEN}/connectors`, { data: { name, config } });
    assert.equal(r.status(), 201, await r.text());
  }

  await page.goto(`${OPEN}/ui#/connectors`);
  const row = page.locator('tr[data-connector="ui-chaos"]');
  await eventually(row, /1 failed/);
  await eventually(page.locator('tr[data-connector="ui-running"]'), /RUNNING/);
  await eventually(page.locator('tr[data-connector="ui-broken"]'), /FAILED/);
  await shot(page, 'connectors');
  await page.setViewportSize(PHONE);
  await shot(page, 'connectors-phone');
  await page.setViewportSize(WIDE);

  // The FAILED filter keeps connectors that failed and those with a failed task.
  await page.getByLabel('State').selectOption('FAILED');
  await eventually(page.locator('#list-summary'), /2 shown/);
  assert.equal(await page.locator('tr[data-connector="ui-running"]').count(), 0);
  await page.getByLabel('State').selectOption('');

  // A connector that failed as it started: its trace is on its page.
  await page.getByRole('link', { name: 'ui-broken' }).click();
  await eventually(page.locator('#connector-state'), /FAILED/);
  await page.locator('#status details.trace summary').first().click();
  await eventually(page.locator('#status details.trace pre'), /unreachable|trap|wasm/i);
  await page.goBack();

  // Keyboard: the link to the connector is reachable and opens its page.
  await row.getByRole('link', { name: 'ui-chaos' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'ui-chaos', level: 1 }).waitFor();
  const failed = page.locator('li.task[data-task="1"]');
  await eventually(failed, /FAILED/);
  await eventually(page.locator('li.task[data-task="0"]'), /RUNNING/);
  const trace = failed.locator('details.trace');
  assert.equal(await trace.getAttribute('open'), null, 'the trace starts collapsed');
  await trace.locator('summary').click();
  await eventually(trace.locator('pre'), /task 1 told to fail/);
  await eventually(page.locator('#config'), /chaos\.secret/);
  assert.match(await page.locator('#config').innerText(), /\[hidden\]/);
  assert.doesNotMatch(await page.locator('main').innerText(), /do-not-show-me/);
  await eventually(failed.locator('.retry'), /Automatic restart: attempt 1 of 3 at/);
  await shot(page, 'connector-failed');
  await page.setViewportSize(PHONE);
  await shot(page, 'connector-phone');
  await page.setViewportSize(WIDE);

  await page.getByLabel('include tasks').check();
  await page.getByLabel('only failed').check();
  await page.getByRole('button', { name: 'Restart', exact: true }).click();
  await eventually(page.locator('#answer'), /restart\?includeTasks=true&onlyFailed=true → 202/);
  await eventually(page.locator('#answer pre'), /"state": "RESTARTING"/);
  await failed.getByRole('button', { name: 'Restart task 1' }).click();
  // The task fails again as it starts: as Kafka Connect does, the restart is answered 204
  // and the task shows FAILED again.
  await eventually(page.locator('#answer'), /tasks\/1\/restart → 204/);
  await eventually(failed, /FAILED/);
  await eventually(page.locator('.task-charts[data-task="1"] figure').filter({ hasText: 'Failures' }), /[1-9]/);

  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Stop' }).click();
  await eventually(page.locator('#answer'), /stop → 204/);
  await eventually(page.locator('#connector-state'), /STOPPED/);
  assert.deepEqual(problems, []);
  await context.close();
});

const REGISTRY_CASE = 'a connector with a registry converter shows its converters and subjects';
if (!REGISTRY) test(REGISTRY_CASE, { skip: 'no UI_SCHEMA_REGISTRY_URL (SCHEMA_REGISTRY_URL for scripts/ui-tests.sh)' }, () => {});
else scenario(REGISTRY_CASE, async (track) => {
  const { context, page, problems } = await newPage();
  track(page);
  // Credentials in the URL, as basic.auth.credentials.source=URL (the default) reads them:
  // the page shows the URL without them.
  const withLogin = REGISTRY.replace('://', '://ui-user:url-secret@');
  const config = {
    'connector.class': 'Datagen', 'tasks.max': '1', topic: 'ui-registry-topic', rate: '20',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'io.confluent.connect.avro.AvroConverter',
    'value.converter.schema.registry.url': withLogin,
    // Read only with basic.auth.credentials.source=USER_INFO, but a secret all the same.
    'value.converter.basic.auth.user.info': 'ui-user:info-secret',
  };
  const r = await page.request.post(`${OPEN}/connectors`, { data: { name: 'ui-registry', config } });
  assert.equal(r.status(), 201, await r.text());

  await page.goto(`${OPEN}/ui#/connectors/ui-registry`);
  await eventually(page.locator('li.task[data-task="0"]'), /RUNNING/);
  const key = page.locator('#converters tr[data-side="key"]');
  const value = page.locator('#converters tr[data-side="value"]');
  await eventually(key, /StringConverter/);
  assert.match(await key.innerText(), /—/, 'a StringConverter has no registry');
  await eventually(value, /io\.confluent\.connect\.avro\.AvroConverter/);
  assert.equal(await value.locator('.registry-url').innerText(), REGISTRY);
  // Datagen writes strings: the Avro converter registers a string schema under the topic's
  // value subject (TopicNameStrategy) with at least one request.
  await eventually(value.locator('.subjects'), /^ui-registry-topic-value$/);
  await eventually(value.locator('.requests'), /^[1-9][0-9]*$/);
  await eventually(page.locator('#config'), /basic\.auth\.user\.info/);
  assert.doesNotMatch(await page.locator('main').innerText(), /url-secret|info-secret/);
  assert.match(await page.locator('#config tr').filter({ hasText: 'basic.auth.user.info' }).innerText(), /\[hidden\]/);
  await shot(page, 'connector-registry');
  const gone = await page.request.delete(`${OPEN}/connectors/ui-registry`);
  assert.equal(gone.status(), 204);
  assert.deepEqual(problems, []);
  await context.close();
});

scenario('the plugin catalog shows kinds, languages, capabilities and definitions', async (track) => {
  const { context, page, problems } = await newPage();
  track(page);
  await page.goto(`${OPEN}/ui#/plugins`);
  const chaos = page.locator('article[data-plugin="ChaosSource"]');
  await eventually(chaos, /rust/);
  const text = await chaos.innerText();
  assert.match(text, /source/);
  assert.match(text, /connect \(chaos\.address\)/);
  await chaos.getByText('Config definition').click();
  await eventually(chaos.locator('table'), /chaos\.secret/);
  assert.match(await chaos.locator('table').innerText(), /PASSWORD/);
  await eventually(page.locator('main'), /Built into the worker/);
  await shot(page, 'plugins');
  assert.deepEqual(problems, []);
  await context.close();
});

scenario('a version copied into plugin.path and a broken file show after a scan', async (track) => {
  const { context, page, problems } = await newPage();
  track(page);
  await page.goto(`${OPEN}/ui#/plugins`);
  await eventually(page.locator('main'), /Built into the worker/);
  assert.equal(await page.locator('#plugin-failures').isVisible(), false, 'no failure section before a failure');
  copyFileSync(VERSIONED, join(PLUGIN_DIR, 'chaos-source-2.0.0.wasm'));
  writeFileSync(join(PLUGIN_DIR, 'broken.wasm'), 'not a component');
  await page.getByRole('button', { name: 'Scan plugin.path now' }).click();
  const added = page.locator('article[data-plugin="ChaosSource"][data-version="2.0.0"]');
  await eventually(added, /2\.0\.0/);
  assert.equal(await page.locator('article[data-plugin="ChaosSource"]').count(), 2, 'both versions are listed');
  await eventually(page.locator('#plugin-failures'), /broken\.wasm/);
  await added.getByText('Config definition').click();
  await eventually(added.locator('table'), /chaos\.secret/);
  await shot(page, 'plugins-rescan');
  assert.deepEqual(problems, []);
  await context.close();
});

scenario('over HTTPS behind basic authentication the page uses the same login', async (track) => {
  // Chromium does not know the test's certificate authority; Node does.
  const tls = { ignoreHTTPSErrors: true };
  const refused = await newPage(tls);
  const response = await refused.context.request.get(`${AUTH}/ui`);
  assert.equal(response.status(), 401);
  assert.match(response.headers()['www-authenticate'], /^Basic/);
  await refused.context.close();

  const { context, page, problems } = await newPage({ ...tls, httpCredentials: LOGIN });
  track(page);
  const r = await page.request.post(`${AUTH}/connectors`, { data: { name: 'ui-behind-auth', config: { 'connector.class': 'ChaosSource', 'tasks.max': '1' } } });
  assert.equal(r.status(), 201, await r.text());
  await page.goto(`${AUTH}/ui`);
  await eventually(page.locator('tr[data-connector="ui-behind-auth"]'), /RUNNING/);
  await page.getByRole('link', { name: 'ui-behind-auth' }).click();
  await page.getByRole('button', { name: 'Pause' }).click();
  await eventually(page.locator('#answer'), /pause → 202/);
  await eventually(page.locator('#connector-state'), /PAUSED/);
  assert.ok(page.url().startsWith('https://'), page.url());
  await shot(page, 'auth-connector');
  assert.deepEqual(problems, []);
  await context.close();
});

/** axe-core's WCAG 2 A and AA violations on the page as it is, one line each. */
async function violations(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

scenario('every page passes axe-core and works from the keyboard', async (track) => {
  // axe is injected as a script: the page's content security policy would refuse it.
  const { context, page, problems } = await newPage({ bypassCSP: true });
  track(page);
  const config = { 'connector.class': 'ChaosSource', 'tasks.max': '1', 'chaos.fail.tasks': '0' };
  const r = await page.request.post(`${OPEN}/connectors`, { data: { name: 'ui-a11y', config } });
  assert.equal(r.status(), 201, await r.text());

  await page.goto(`${OPEN}/ui`);
  await eventually(page.locator('tr[data-connector="ui-a11y"]'), /ui-a11y/);
  // The keyboard: the skip link first, then the brand and the navigation.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'main');
  // The skip link leaves the route alone: still the connectors page, focus still in it.
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => location.hash), '');
  assert.equal(await page.locator('main h1').textContent(), 'Connectors');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'main');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.match(await page.evaluate(() => document.activeElement.textContent), /New connector|State|All states/);

  const pages = [
    ['#/connectors', () => eventually(page.locator('tr[data-connector="ui-a11y"]'), /FAILED|RUNNING/)],
    ['#/connectors/ui-a11y', async () => {
      await eventually(page.locator('li.task[data-task="0"]'), /FAILED/);
      await page.locator('details.trace summary').first().focus();
      await page.keyboard.press('Enter');
      await eventually(page.locator('details.trace pre'), /told to fail/);
    }],
    ['#/connectors/ui-a11y/edit', () => eventually(page.locator('#validation-summary'), /Valid|error/)],
    ['#/new', () => eventually(page.locator('#validation-summary'), /connector.class/)],
    ['#/plugins', () => eventually(page.locator('main'), /Built into the worker/)],
  ];
  const found = [];
  for (const viewport of [WIDE, PHONE]) {
    await page.setViewportSize(viewport);
    for (const [hash, ready] of pages) {
      await page.goto(`${OPEN}/ui${hash}`);
      await ready();
      for (const v of await violations(page)) found.push(`${viewport.width}px ${hash}: ${v}`);
    }
  }
  assert.deepEqual(found, []);
  const gone = await page.request.delete(`${OPEN}/connectors/ui-a11y`);
  assert.equal(gone.status(), 204);
  assert.deepEqual(problems, []);
  await context.close();
});
