//! actions.js: the buttons that change a connector (restart with `includeTasks` and
//! `onlyFailed`, task restart, pause, resume, stop, delete), the confirmation dialog for
//! the destructive ones, and the box that shows the REST answer of the last action.

import { call } from './api.js';
import { announce, h, seg } from './dom.js';

/** Asks `question` in a modal dialog; resolves to whether the user confirmed. */
export function confirmAction(question, verb) {
  return new Promise((resolve) => {
    const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-text' },
      h('form', { method: 'dialog' },
        h('p', { id: 'confirm-text' }, question),
        h('div', { class: 'row' },
          h('button', { value: 'cancel', type: 'submit', autofocus: true }, 'Cancel'),
          h('button', { value: 'ok', type: 'submit', class: 'danger' }, verb))));
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** The box showing the last REST answer; `show(r)` fills it. */
export function answerBox() {
  const box = h('section', { class: 'answer', id: 'answer', 'aria-labelledby': 'answer-title', hidden: true });
  const show = (r) => {
    box.hidden = false;
    box.className = `answer ${r.ok ? 'ok' : 'error'}`;
    const body = r.body === null || r.body === '' ? '(no body)' : JSON.stringify(r.body, null, 2);
    box.replaceChildren(
      h('h2', { id: 'answer-title' }, 'REST answer'),
      h('p', {}, h('code', {}, `${r.method} ${r.path}`), ' → ', h('strong', { class: 'status' }, `${r.status} ${r.statusText}`)),
      h('pre', {}, body));
    announce(`${r.method} ${r.path}: ${r.status} ${r.statusText}`);
  };
  return { box, show };
}

/**
 * The action bar of connector `name`. `after(r)` runs after each answer (to refresh);
 * `deleted()` after a successful delete.
 */
export function actionBar(name, show, after, deleted) {
  const base = `/connectors/${seg(name)}`;
  const includeTasks = h('input', { type: 'checkbox', id: 'restart-include-tasks' });
  const onlyFailed = h('input', { type: 'checkbox', id: 'restart-only-failed' });
  const run = async (method, path, confirmText, verb) => {
    if (confirmText && !(await confirmAction(confirmText, verb))) return;
    const r = await call(method, path);
    show(r);
    if (r.ok && method === 'DELETE') deleted();
    else after(r);
  };
  const button = (label, attrs, handler) => h('button', { type: 'button', ...attrs, onclick: handler }, label);
  return h('div', { class: 'actions', role: 'group', 'aria-label': 'Connector actions' },
    h('fieldset', { class: 'restart' },
      h('legend', {}, 'Restart'),
      h('label', {}, includeTasks, ' include tasks'),
      h('label', {}, onlyFailed, ' only failed'),
      button('Restart', { id: 'action-restart' }, () => run('POST',
        `${base}/restart?includeTasks=${includeTasks.checked}&onlyFailed=${onlyFailed.checked}`))),
    button('Pause', { id: 'action-pause' }, () => run('PUT', `${base}/pause`)),
    button('Resume', { id: 'action-resume' }, () => run('PUT', `${base}/resume`)),
    button('Stop', { id: 'action-stop' }, () => run('PUT', `${base}/stop`,
      `Stop ${name}? Its tasks are shut down until it is resumed.`, 'Stop')),
    h('a', { class: 'button', href: `#/connectors/${seg(name)}/edit`, id: 'action-edit' }, 'Edit config'),
    button('Delete', { id: 'action-delete', class: 'danger' }, () => run('DELETE', base,
      `Delete ${name}? Its config is removed; this cannot be undone.`, 'Delete')));
}

/** The restart button of one task. */
export function taskRestart(name, id, show, after) {
  return h('button', {
    type: 'button',
    class: 'small',
    'aria-label': `Restart task ${id}`,
    onclick: async () => {
      const r = await call('POST', `/connectors/${seg(name)}/tasks/${id}/restart`);
      show(r);
      after(r);
    },
  }, 'Restart task');
}
