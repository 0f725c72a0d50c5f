// rewind.js: the chat's Rewind buttons. aidex snapshots the workspace
// before every exchange that may change files (a checkpoint); a
// checkpoint's "at_message" is the index of the user message it goes back
// to before (-1 when the conversation no longer holds it). Each user
// message with a checkpoint gets a Rewind button, which asks what to
// restore (code, conversation or both) and posts
// /api/sessions/{id}/rewind.
import { h } from './dom.js';
import { api } from './api.js';

// seen holds the ids of the checkpoints the page knows, so the ones that
// are new after a run are that run's.
const seen = new Set();

const scopes = [
  ['both', 'Code and conversation', 'primary', 'files back to that point, the conversation cut before this message'],
  ['code', 'Code only', '', 'files back; the conversation stays'],
  ['conversation', 'Conversation only', '', 'the conversation cut; files stay'],
];

// placeRewind lists the session's checkpoints and gives each user message
// (.msg.user with data-index) that one names a Rewind button. live, when
// given, is the user message of the run that just ended (it has no index
// yet): it gets the index of the checkpoints that run made, if it made
// any. opts.busy() says whether a run is going (a rewind then waits);
// opts.done(result) is called after a rewind; opts.fail(err) reports an
// error.
export async function placeRewind(sessionId, live, opts) {
  if (!sessionId) return;
  const res = await api('/api/v1/sessions/' + encodeURIComponent(sessionId) + '/checkpoints');
  const cps = res.checkpoints || [];
  if (live) {
    const fresh = cps.filter((c) => !seen.has(c.id) && c.at_message >= 0).map((c) => c.at_message);
    if (fresh.length) live.dataset.index = String(Math.min(...fresh));
  }
  seen.clear();
  const byIndex = new Map();
  for (const c of cps) {
    seen.add(c.id);
    if (c.at_message >= 0 && !byIndex.has(c.at_message)) byIndex.set(c.at_message, c); // the oldest: before the whole exchange
  }
  for (const el of document.querySelectorAll('#messages .msg.user')) {
    const cp = byIndex.get(Number(el.dataset.index));
    el.querySelector('.rewind')?.remove();
    if (el.dataset.index === undefined || !cp) continue;
    el.append(h('div', { class: 'rewind' }, h('button', {
      type: 'button', class: 'link rewind-open', title: 'Go back to before this message (checkpoint ' + cp.id + ')',
      text: '↶ Rewind', onclick: () => askScope(el, sessionId, cp, opts),
    })));
  }
}

// askScope opens the confirmation under message el: what to restore, or
// Cancel.
function askScope(el, sessionId, cp, opts) {
  const box = el.querySelector('.rewind');
  if (box.querySelector('.rewind-ask')) return;
  const buttons = scopes.map(([scope, label, cls, help]) => h('button', {
    type: 'button', class: cls, title: help, dataset: { scope }, text: label,
  }));
  const cancel = h('button', { type: 'button', class: 'rewind-cancel', text: 'Cancel' });
  const ask = h('div', { class: 'rewind-ask', role: 'group' },
    h('div', { text: 'Rewind to before this message? Files changed since are restored, files created since are deleted.' }),
    h('div', { class: 'row' }, buttons, cancel));
  box.append(ask);
  cancel.addEventListener('click', () => ask.remove());
  for (const b of buttons) {
    b.addEventListener('click', async () => {
      if (opts.busy()) { opts.fail(new Error('wait for the answer to finish (or stop it) before rewinding')); return; }
      [...buttons, cancel].forEach((x) => { x.disabled = true; });
      try {
        const result = await api('/api/v1/sessions/' + encodeURIComponent(sessionId) + '/rewind',
          { method: 'POST', body: { checkpoint: cp.id, scope: b.dataset.scope } });
        await opts.done(result);
      } catch (err) {
        [...buttons, cancel].forEach((x) => { x.disabled = false; });
        opts.fail(err);
      }
    });
  }
}

// rewoundNote says what a rewind did, for the chat, with a button that
// puts the files back as they were before it (a rewind to its undo
// checkpoint; the conversation stays as it is). opts are placeRewind's.
export function rewoundNote(r, opts) {
  const parts = [];
  const files = (n) => n + ' file' + (n === 1 ? '' : 's');
  if (r.scope !== 'conversation') {
    if (r.restored.length) parts.push('restored ' + files(r.restored.length));
    if (r.deleted.length) parts.push('deleted ' + files(r.deleted.length));
    if (!r.restored.length && !r.deleted.length) parts.push('no file needed restoring');
    if (r.kept?.length) parts.push('left ' + files(r.kept.length) + ' alone (ignored or over the size cap)');
  }
  if (r.scope !== 'code') parts.push('conversation cut to ' + r.messages + ' messages');
  const what = r.prompt ? 'before “' + r.prompt.split('\n')[0].slice(0, 80) + '”' : 'checkpoint ' + r.checkpoint;
  const undo = r.undo && r.restored.length + r.deleted.length ? h('button', {
    type: 'button', class: 'rewind-undo', title: 'Rewind the files to checkpoint ' + r.undo + ', taken just before this rewind',
    text: 'Undo the file changes',
  }) : null;
  undo?.addEventListener('click', async () => {
    if (opts.busy()) { opts.fail(new Error('wait for the answer to finish (or stop it) before rewinding')); return; }
    undo.disabled = true;
    try {
      await opts.done(await api('/api/v1/sessions/' + encodeURIComponent(r.session_id) + '/rewind',
        { method: 'POST', body: { checkpoint: r.undo, scope: 'code' } }));
    } catch (err) {
      undo.disabled = false;
      opts.fail(err);
    }
  });
  return h('div', { class: 'msg note rewound' },
    h('span', {
      text: '── rewound to ' + what + ': ' + parts.join(', ') + ' ──',
      title: [...r.restored.map((p) => 'restored ' + p), ...r.deleted.map((p) => 'deleted ' + p),
        ...(r.kept || []).map((p) => 'kept ' + p)].join('\n') || null,
    }), ' ', undo);
}

// resetRewind forgets the checkpoints (a new chat).
export function resetRewind() {
  seen.clear();
}
