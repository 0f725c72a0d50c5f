// multi.js: several models in one conversation. The Models panel's
// "Active" column and mode selector (GET/POST /api/v1/multi), the model
// header of answer bubbles, and the keep buttons of a parallel turn's
// answers (the "choose" event, POST /api/v1/choices/{id}).
import { h, fill, $ } from './dom.js';
import { api } from './api.js';

// multi is the page's view of the current session's setting: mode,
// active models ([{id, effort, thinking_budget}]) and the session's own
// model ("PROVIDER/MODEL").
export const multi = { mode: 'single', models: [], current: '' };

// active reports whether several models answer turns (a mode other
// than single with active models).
export function multiActive() {
  return multi.mode !== 'single' && multi.models.length > 0;
}

// multiLabel is the status pill's text while several models answer
// ("parallel: a1, a2, c1"), '' otherwise.
export function multiLabel() {
  if (!multiActive()) return '';
  return multi.mode + ': ' + multi.models.map((m) => m.id.slice(m.id.lastIndexOf('/') + 1)).join(', ');
}

function apply(res) {
  multi.mode = res.mode;
  multi.models = res.models || [];
  multi.current = res.current || '';
  renderMultiBar();
  document.dispatchEvent(new CustomEvent('multi-changed'));
}

// loadMulti reads the session's setting.
export async function loadMulti(sessionId) {
  apply(await api('/api/v1/multi' + (sessionId ? '?session_id=' + encodeURIComponent(sessionId) : '')));
}

// setMulti changes the session's models and/or mode.
export async function setMulti(sessionId, body) {
  apply(await api('/api/v1/multi', { method: 'POST', body: { session_id: sessionId || undefined, ...body } }));
}

// isActiveModel reports whether PROVIDER/MODEL id is an active model.
export function isActiveModel(id) {
  return multi.models.some((m) => m.id === id);
}

// toggleModel adds the model to or removes it from the active models;
// the first one added puts the session's own model first.
export async function toggleModel(sessionId, id, on) {
  let list = multi.models.map((m) => specOf(m));
  if (on && !list.length && multi.current && multi.current !== id) list.push(multi.current);
  list = on ? [...list.filter((s) => s.split(' ')[0] !== id), id] : list.filter((s) => s.split(' ')[0] !== id);
  await setMulti(sessionId, { models: list, mode: list.length ? undefined : 'single' });
}

function specOf(m) {
  return m.id + (m.effort ? ' effort=' + m.effort : '') + (m.thinking_budget ? ' budget=' + m.thinking_budget : '');
}

// renderMultiBar draws the Models panel's bar: the mode selector and the
// active models with their remove buttons.
function renderMultiBar() {
  const bar = $('#multi-bar');
  if (!bar) return;
  const sid = () => bar.dataset.sessionId || '';
  const sel = h('select', { id: 'multi-mode', title: 'Conversation mode' },
    ['single', 'round-robin', 'sequential', 'parallel'].map((m) => h('option', { value: m, text: m, selected: m === multi.mode })));
  sel.addEventListener('change', () => setMulti(sid(), { mode: sel.value }).catch((e) => reportError(e)));
  fill(bar, h('label', { text: 'Conversation: ' }), sel,
    multi.models.length
      ? multi.models.map((m, i) => h('span', { class: 'chip active-model', dataset: { id: m.id } }, (i + 1) + '. ' + specOf(m) + ' ',
        h('button', { type: 'button', class: 'icon', title: 'Remove from the active models', text: '×',
          onclick: () => toggleModel(sid(), m.id, false).catch((e) => reportError(e)) })))
      : h('span', { class: 'muted small', text: 'No active models: tick "Active" on models to answer with several.' }));
}

let reportError = (e) => console.error(e); // eslint-disable-line no-console

// initMulti sets the error reporter of the Models panel's bar.
export function initMulti(onError) {
  reportError = onError;
}

// modelHeader is the header of an answer bubble written by model.
export function modelHeader(model) {
  return h('div', { class: 'msg-model small', text: model });
}

// showChoose adds keep buttons to a parallel turn's answers (the bubbles
// of bubbleFor(model)) and a "Keep all" button; a click keeps and marks
// them.
export function showChoose(ev, bubbleFor, onError) {
  const buttons = [];
  const bubbles = ev.answers.map((a) => bubbleFor(a.model)); // the turn goes on (and forgets them) once kept
  const keep = async (body, kept) => {
    buttons.forEach((b) => { b.disabled = true; });
    try {
      await api('/api/v1/choices/' + encodeURIComponent(ev.id), { method: 'POST', body });
      bubbles.forEach((b, i) => b?.el.classList.add(kept.includes(i) ? 'kept' : 'not-kept'));
      buttons.forEach((b) => b.remove());
    } catch (e) {
      buttons.forEach((b) => { b.disabled = false; });
      onError(e);
    }
  };
  ev.answers.forEach((a, i) => {
    const b = bubbles[i];
    if (!b) return;
    const label = 'Keep this answer' + (a.tool_calls?.length ? ' (runs ' + a.tool_calls.join(', ') + ')' : '');
    const btn = h('button', { type: 'button', class: 'keep', text: label, onclick: () => keep({ keep: [i] }, [i]) });
    buttons.push(btn);
    b.el.append(btn);
  });
  const all = h('button', { type: 'button', class: 'keep keep-all', text: 'Keep all answers',
    onclick: () => keep({ all: true }, ev.answers.map((_, i) => i)) });
  buttons.push(all);
  $('#messages').append(all);
}
