// app.js: aidex's web UI. Five panels (Chat, Files, Models, Ralph,
// Settings) over the HTTP API; chat answers stream as Server-Sent Events
// named after the engine's events.
import { h, fill, $, safeURL, fmtTokens, fmtAge } from './dom.js';
import { APIError, api, readBytes, redeemLoginCode, streamChat, streamSSE } from './api.js';
import { renderMarkdown, renderDiff } from './md.js';
import { LONG_TURN_MS, askNotifyOnce, notify, notifyState, setNotify } from './notify.js';
import { placeRewind, resetRewind, rewoundNote } from './rewind.js';
import { showInteraction, closeInteraction, closeAllInteractions } from './interact.js';
import { multi, multiActive, multiLabel, loadMulti, initMulti, isActiveModel, toggleModel, modelHeader, showChoose } from './multi.js';

const state = {
  status: null,
  sessionId: '',
  running: false,
  abort: null,
  bubble: null, // the assistant message being streamed: {el, body, text}
  reasoning: null,
  cards: new Map(), // tool call id -> card element
  subOwner: new Map(), // a subagent's tool call id -> the task call id whose card shows it
  attachments: [],
  file: null, // the open file: {path, original (bytes), text, crlf}
  models: null,
  turnStart: 0, // Date.now() when the running turn was sent
  waiting: null, // the "waiting for the model" line: {el, start, text, timer}
  byModel: null, // a parallel turn's answer bubbles by model (null: not in one)
};

// ---- errors -------------------------------------------------------------

// showError puts a message in the page's error area (never only in the
// console); it stays until dismissed or replaced by newer ones.
function showError(err) {
  const msg = err instanceof Error ? err.message : String(err);
  const box = $('#errors');
  const item = h('div', { class: 'error-item' }, h('span', { text: msg }),
    h('button', { class: 'icon', type: 'button', title: 'Dismiss', text: '×', onclick: () => item.remove() }));
  box.append(item);
  while (box.children.length > 4) box.firstChild.remove();
  console.error(msg);
}

// guarded runs an async action and shows its failure in the page.
function guarded(fn) {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      if (err.name !== 'AbortError') showError(err);
    }
  };
}

// ---- theme and panels ------------------------------------------------------

function applyTheme(choice) {
  const dark = choice === 'dark' || (choice === 'system' && !matchMedia('(prefers-color-scheme: light)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  $('#theme-select').value = choice;
}

// renderNotifySetting shows the notification choice in Settings.
function renderNotifySetting() {
  const st = notifyState();
  const box = $('#notify-toggle');
  box.checked = st === 'on';
  box.disabled = st === 'unsupported' || st === 'blocked';
  $('#notify-state').textContent = {
    unsupported: 'this browser has no desktop notifications',
    blocked: 'blocked for this site in the browser\'s settings',
    unset: 'asked when you send your first message',
  }[st] || '';
}

function initNotify() {
  renderNotifySetting();
  $('#notify-toggle').addEventListener('change', guarded(async (e) => {
    await setNotify(e.target.checked);
    renderNotifySetting();
  }));
}

function initTheme() {
  let choice = 'system';
  try { choice = localStorage.getItem('aidex-theme') || 'system'; } catch { /* private mode */ }
  applyTheme(choice);
  const save = (c) => { try { localStorage.setItem('aidex-theme', c); } catch { /* ignore */ } applyTheme(c); };
  $('#theme-select').addEventListener('change', (e) => save(e.target.value));
  $('#theme-toggle').addEventListener('click', () => save(document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark'));
}

const loaders = {};

function showPanel(name) {
  for (const b of document.querySelectorAll('.tabs button')) b.classList.toggle('active', b.dataset.panel === name);
  for (const p of document.querySelectorAll('.panel')) p.classList.toggle('active', p.id === 'panel-' + name);
  if (location.hash !== '#' + name) history.replaceState(null, '', '#' + name);
  loaders[name]?.();
}

// ---- status -----------------------------------------------------------------

async function loadStatus() {
  const st = await api('/api/v1/status');
  state.status = st;
  $('#status-model').textContent = multiLabel() || st.provider + '/' + st.model;
  $('#status-mode').textContent = st.permission_mode + (st.shell_tools ? ' · shell on' : '');
  const ws = $('#ws-name');
  if (ws) ws.textContent = st.workspace;
  if (st.session_id && !state.sessionId) state.sessionId = st.session_id;
  if (st.notice) showNotice(st.notice);
  const shell = $('#shell-tools-state');
  if (shell) shell.textContent = shellToolsText(st);
  return st;
}

// shellToolsText says whether the model may run shell commands here and
// how to change it (only by hand, in the config file).
function shellToolsText(st) {
  const file = st.config_file || 'your config file';
  if (st.shell_tools) {
    return 'On (web_allow_shell_tools = true in ' + file + '): the model can run commands (run_command, run_python, background processes), as the permission mode allows, in the sandbox. Remove the line by hand to turn them off.';
  }
  return 'Off: in the web UI the model cannot run commands (run_command, run_python, background processes), because a browser-reachable server is its own trust boundary. ' +
    'To turn them on, add web_allow_shell_tools = true to ' + file + ' by hand and start aidex web again.';
}

function showNotice(text) {
  if (document.querySelector('.notice-item')) return;
  $('#messages').prepend(h('div', { class: 'notice-item', text }));
}

// ---- chat: rendering ----------------------------------------------------------

function hideEmpty() {
  $('#chat-empty')?.remove();
}

function scrollDown() {
  const m = $('#messages');
  if (m.scrollHeight - m.scrollTop - m.clientHeight < 200) m.scrollTop = m.scrollHeight;
}

function addUser(text, files = []) {
  hideEmpty();
  const el = h('div', { class: 'msg user' },
    files.length ? h('div', { class: 'files' }, files.map((f) => h('span', { class: 'chip', text: f }))) : null,
    h('div', { class: 'body', text }));
  $('#messages').append(el);
  $('#messages').scrollTop = $('#messages').scrollHeight;
  return el;
}

// newBubble starts an answer bubble; with model (several models answer)
// its header names the model.
function newBubble(model) {
  hideEmpty();
  const body = h('div', { class: 'body md' });
  const el = h('div', { class: 'msg assistant', dataset: model ? { model } : {} }, model ? modelHeader(model) : null, body);
  $('#messages').append(el);
  state.bubble = { el, body, text: '', queued: false, model };
  if (model && state.byModel) state.byModel.set(model, state.bubble);
  return state.bubble;
}

// bubbleFor returns the bubble the text of model goes to: its own in a
// parallel turn, a new one when another model wrote the last.
function bubbleFor(model) {
  if (!model || !multiActive()) return state.bubble || newBubble();
  if (state.byModel) return state.byModel.get(model) || newBubble(model);
  if (state.bubble && state.bubble.model === model) return state.bubble;
  return newBubble(model);
}

function appendText(delta, model) {
  const b = bubbleFor(model);
  b.text += delta;
  if (!b.queued) {
    b.queued = true;
    requestAnimationFrame(() => {
      b.queued = false;
      fill(b.body, renderMarkdown(b.text));
      scrollDown();
    });
  }
}

function appendReasoning(delta) {
  if (!state.reasoning) {
    const pre = h('div', { class: 'reasoning-text' });
    const el = h('details', { class: 'reasoning' }, h('summary', { text: 'thinking…' }), pre);
    $('#messages').append(el);
    state.reasoning = { el, pre, text: '' };
  }
  state.reasoning.text += delta;
  state.reasoning.pre.textContent = state.reasoning.text;
}

function argSummary(args) {
  let a = args;
  if (typeof a === 'string') { try { a = JSON.parse(a); } catch { return ''; } }
  if (!a || typeof a !== 'object') return '';
  for (const k of ['command', 'path', 'pattern', 'source', 'url', 'query', 'id']) {
    if (typeof a[k] === 'string' && a[k]) return a[k].split('\n')[0].slice(0, 100);
  }
  return '';
}

function toolCard(call) {
  hideEmpty();
  state.bubble = null;
  state.byModel = null; // the kept answer's calls run: the parallel part of the turn is over
  state.reasoning = null;
  const card = h('div', { class: 'tool-card pending', dataset: { callId: call.id } },
    h('div', { class: 'tool-head' },
      h('span', { class: 'tool-icon', text: '⚙' }),
      h('span', { class: 'tool-name', text: call.name }),
      h('span', { class: 'tool-arg', text: argSummary(call.arguments) }),
      h('span', { class: 'tool-status', text: 'running…' })),
    h('details', { class: 'tool-args' }, h('summary', { text: 'arguments' }),
      h('pre', { text: JSON.stringify(call.arguments, null, 2) })),
    h('div', { class: 'tool-extra' }));
  state.cards.set(call.id, card);
  $('#messages').append(card);
  scrollDown();
  return card;
}

function cardFor(id, name) {
  return state.cards.get(id) || toolCard({ id, name: name || 'tool', arguments: {} });
}

// ---- chat: waiting for the model's first byte ----------------------------------

// fmtWait shows seconds as the terminal front ends do (format.Elapsed):
// "45 s", "3 min 5 s", "1 h 3 min".
function fmtWait(s) {
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
  return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
}

// showWaiting shows "waiting for ollama/qwen3:8b — reading ~2,100 tokens,
// 45 s" (the waiting event: a model request was sent and its first byte
// has not come yet; a slow local model can read its prompt for minutes),
// counting the seconds from now until clearWaiting.
function showWaiting(w) {
  clearWaiting();
  hideEmpty();
  const who = w.provider && w.model ? w.provider + '/' + w.model : w.model || w.provider || 'the model';
  const head = 'waiting for ' + who + (w.input_tokens ? ' — reading ~' + Number(w.input_tokens).toLocaleString('en-US') + ' tokens, ' : ', ');
  const text = h('span', { class: 'waiting-text' });
  const el = h('div', { class: 'waiting-line', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), text);
  const start = Date.now();
  const tick = () => { text.textContent = head + fmtWait(Math.max(0, Math.floor((Date.now() - start) / 1000))); };
  tick();
  $('#messages').append(el);
  state.waiting = { el, timer: setInterval(tick, 1000) };
  scrollDown();
}

function clearWaiting() {
  if (!state.waiting) return;
  clearInterval(state.waiting.timer);
  state.waiting.el.remove();
  state.waiting = null;
}

const decisionLabels = { once: 'allowed once', session: 'allowed for this session', always: 'always allowed in this project', deny: 'denied' };

function approvalBox(ap, sessionId, into) {
  // A page that came back to a waiting run gets its approval twice (the
  // list of waiting ones, the replayed event): one card.
  if (document.querySelector('.approval[data-approval-id="' + CSS.escape(ap.id) + '"]')) return;
  const card = into || cardFor(ap.call_id, ap.tool);
  card.classList.add('asking');
  card.querySelector('.tool-status').textContent = 'needs approval';
  // "Session" and "always" save the suggested rule; with none (no rule
  // may allow such calls) they would only allow this call: not offered.
  const choices = ap.suggested_rule ? [
    ['once', 'Allow once', 'primary'],
    ['session', 'Allow for session', ''],
    ['always', 'Always allow', ''],
    ['deny', 'Deny', 'danger'],
  ] : [['once', 'Allow once', 'primary'], ['deny', 'Deny', 'danger']];
  const buttons = choices.map(([d, label, cls]) => h('button', { type: 'button', class: cls, dataset: { decision: d }, text: label }));
  const box = h('div', { class: 'approval', dataset: { approvalId: ap.id } },
    h('div', { class: 'approval-q' }, h('strong', { text: 'Allow ' + ap.tool + '?' }),
      ap.subagent ? h('span', { class: 'subagent-label', text: ' for subagent ' + ap.subagent }) : null,
      ap.why && ap.rule !== 'sandbox' ? h('div', { class: 'muted small', text: ap.why }) : ap.rule ? h('span', { class: 'muted', text: ' asked by ' + ap.rule }) : null),
    ap.command ? h('pre', { class: 'command', text: ap.command }) : null,
    // An offer to rerun a command the sandbox stopped says why and what
    // the rerun may do; a review of a project's content says where the
    // item comes from and whether it is new or changed.
    (ap.rule === 'sandbox' || ap.rule === 'trust review') && ap.reason ? h('div', { class: 'sandbox-reason small', text: ap.reason }) : null,
    ap.diff ? renderDiff(ap.diff) : null,
    ap.suggested_rule ? h('div', { class: 'muted small', text: '"Session" and "always" allow ' + ap.suggested_rule }) : null,
    h('div', { class: 'row' }, buttons));
  for (const b of buttons) {
    b.addEventListener('click', guarded(async () => {
      buttons.forEach((x) => { x.disabled = true; });
      try {
        await api('/api/v1/approvals/' + encodeURIComponent(ap.id), { method: 'POST', body: { decision: b.dataset.decision, session_id: sessionId } });
      } catch (err) {
        buttons.forEach((x) => { x.disabled = false; });
        throw err;
      }
    }));
  }
  card.querySelector('.tool-extra').append(box);
  scrollDown();
  notify('aidex needs your approval', 'Allow ' + ap.tool + '?' + (ap.command || argSummary(ap.arguments) ? ' ' + (ap.command || argSummary(ap.arguments)).split('\n')[0].slice(0, 120) : ''));
}

function approvalDecided(ap, into) {
  const card = into || cardFor(ap.call_id, ap.tool);
  card.classList.remove('asking');
  const box = card.querySelector('.approval[data-approval-id="' + CSS.escape(ap.id) + '"]') || card.querySelector('.approval');
  const label = decisionLabels[ap.decision] || ap.decision;
  if (box) fill(box, h('div', { class: 'decided ' + (ap.decision === 'deny' ? 'bad' : 'good'), text: '✔ ' + label + (ap.reason ? ': ' + ap.reason : '') }));
  card.querySelector('.tool-status').textContent = ap.decision === 'deny' ? 'denied' : 'approved';
}

function toolResult(res) {
  const card = cardFor(res.id, res.name);
  card.classList.remove('pending', 'asking');
  card.classList.add(res.ok ? 'ok' : 'failed');
  const status = card.querySelector('.tool-status');
  status.textContent = res.ok ? '✓ done' + (res.duration_ms ? ' · ' + res.duration_ms + ' ms' : '') : '✗ ' + (res.category || 'failed');
  const extra = card.querySelector('.tool-extra');
  let meta = res.metadata;
  if (typeof meta === 'string') { try { meta = JSON.parse(meta); } catch { meta = null; } }
  if (meta && meta.diff) extra.append(renderDiff(meta.diff));
  const text = res.ok ? res.output : res.error || res.output;
  if (text) {
    const shown = text.length > 20000 ? text.slice(0, 20000) + '\n… (' + (text.length - 20000) + ' more characters)' : text;
    extra.append(h('details', { class: 'tool-output', open: !res.ok }, h('summary', { text: res.ok ? 'output' : 'error' }), h('pre', { text: shown })));
  }
  // The model wanted a command, and shell tools are off here: say how to
  // turn them on (app.WebShellOff's refusal).
  if (!res.ok && /off in the web UI/.test(res.error || '') && !extra.querySelector('.shell-off')) {
    extra.append(h('p', { class: 'shell-off', text: shellToolsText(state.status || {}) }));
  }
  scrollDown();
}

function renderUsage(u) {
  if (!u) return;
  const s = u.session || {};
  const parts = [
    'in ' + fmtTokens(s.input_tokens) + ' · out ' + fmtTokens(s.output_tokens) + ' tokens',
    '$' + (u.cost_usd || 0).toFixed(4),
  ];
  if (u.context_percent) parts.push('context ' + u.context_percent.toFixed(0) + '% of ' + fmtTokens(u.context_window));
  $('#usage').textContent = parts.join(' · ');
}

function renderTodos(todos) {
  const box = $('#todos');
  if (!todos || !todos.length) { box.hidden = true; return; }
  box.hidden = false;
  const mark = { completed: '☑', in_progress: '◐', pending: '☐' };
  fill(box, h('div', { class: 'todos-head', text: 'Plan' }),
    h('ul', null, todos.map((t) => h('li', { class: 'todo ' + t.status }, h('span', { class: 'mark', text: mark[t.status] || '☐' }), h('span', { text: t.content })))));
}

function chatError(e) {
  hideEmpty();
  const cancelled = e.kind === 'cancelled';
  $('#messages').append(h('div', { class: 'msg error' + (cancelled ? ' muted' : ''), text: cancelled ? 'Stopped.' : 'Error: ' + e.message }));
  if (!cancelled && e.fatal) showError(e.message);
  scrollDown();
}

// endsWaiting lists the events that end the wait for the model's first
// byte.
const endsWaiting = new Set(['text', 'reasoning', 'tool_call', 'usage', 'error', 'done']);

// turnEnded notifies the end of a turn that ran longer than LONG_TURN_MS
// (the user may have gone to another tab).
function turnEnded(d) {
  if (!state.turnStart || Date.now() - state.turnStart <= LONG_TURN_MS) return;
  const reason = d.stop_reason || 'done';
  const answer = state.bubble?.text.trim().split('\n')[0].slice(0, 160) || '';
  notify(reason === 'done' ? 'aidex finished' : 'aidex stopped: ' + reason.replace('_', ' '), answer || 'The turn ended.');
}

// ---- chat: subagents -----------------------------------------------------------

// subagentEvent shows an event of a subagent's run (it carries
// parent_tool_call_id) in the card of the task call that started it (a
// grandchild's in its parent's card): its tool calls nested and labelled,
// its approvals; its text is not the answer (the task's result is).
function subagentEvent(ev) {
  const top = state.subOwner.get(ev.parent_tool_call_id) || ev.parent_tool_call_id;
  const card = state.cards.get(top);
  if (!card) return;
  let list = card.querySelector('.sub-calls');
  if (!list) {
    list = h('div', { class: 'sub-calls' }, h('div', { class: 'subagent-label small', text: 'subagent ' + (ev.subagent || '') }));
    card.querySelector('.tool-extra').append(list);
  }
  switch (ev.type) {
    case 'tool_call':
      state.subOwner.set(ev.tool_call.id, top);
      list.append(h('div', { class: 'sub-call pending', dataset: { subCallId: ev.tool_call.id } },
        h('span', { class: 'tool-name', text: '⚙ ' + ev.tool_call.name }),
        h('span', { class: 'tool-arg', text: ' ' + argSummary(ev.tool_call.arguments) })));
      break;
    case 'tool_result': {
      const r = ev.tool_result;
      const line = [...list.querySelectorAll('.sub-call')].find((x) => x.dataset.subCallId === r.id);
      if (!line) break;
      line.classList.remove('pending');
      line.classList.add(r.ok ? 'ok' : 'failed');
      line.append(h('span', { class: 'muted', text: r.ok ? ' ✓' : ' ✗ ' + (r.error || '').split('\n')[0].slice(0, 200) }));
      break;
    }
    case 'approval':
      // The approval is answered in the parent's session (the run's).
      if (ev.approval.decision) approvalDecided(ev.approval, card);
      else approvalBox(ev.approval, state.sessionId, card);
      break;
    default: break;
  }
}

// commandResult shows the output of a built-in slash command (run by the
// server, never sent to the model) and reloads what it changed.
function commandResult(ev) {
  if (ev.cleared) {
    state.sessionId = ev.session_id;
    resetRewind();
    renderHistory({ messages: [], todos: [], usage: {}, cost_usd: 0 });
    $('#usage').textContent = '';
  }
  hideEmpty();
  $('#messages').append(h('div', { class: 'msg command-output', dataset: { command: ev.command } }, h('pre', { text: ev.output || '' })));
  if (ev.status) loadStatus().catch(showError);
  scrollDown();
}

function onEvent(name, ev) {
  if (ev && ev.parent_tool_call_id) {
    subagentEvent(ev);
    return;
  }
  if (endsWaiting.has(name)) clearWaiting();
  switch (name) {
    case 'session':
      state.sessionId = ev.session_id;
      if (ev.session) $('#status-model').textContent = multiLabel() || ev.session.provider + '/' + ev.session.model;
      state.byModel = multiActive() && multi.mode === 'parallel' ? new Map() : null;
      break;
    case 'text': appendText(ev.text || '', ev.model); break;
    case 'choose':
      showChoose(ev, (m) => state.byModel?.get(m), showError);
      notify('aidex: keep which answer?', ev.answers.map((a) => a.model).join(', '));
      break;
    case 'reasoning': appendReasoning(ev.text || ''); break;
    case 'tool_call': toolCard(ev.tool_call); break;
    case 'approval':
      if (ev.approval.decision) approvalDecided(ev.approval);
      else approvalBox(ev.approval, ev.session_id);
      break;
    case 'interaction':
      if (ev.interaction.answer) closeInteraction(ev.interaction.id);
      else {
        showInteraction(ev, showError);
        notify('aidex has a question', ev.interaction.questions[0].question.slice(0, 160));
      }
      break;
    case 'tool_result': toolResult(ev.tool_result); break;
    case 'usage': renderUsage(ev.usage); break;
    case 'todos': renderTodos(ev.todos); break;
    case 'error': chatError(ev.error); break;
    case 'budget':
      hideEmpty();
      $('#messages').append(h('div', { class: 'msg note', text: 'Budget: ' + (ev.budget?.message || '') }));
      scrollDown();
      break;
    case 'waiting': showWaiting(ev.waiting || {}); break;
    case 'command': commandResult(ev); break;
    case 'notice':
      // A custom command's note, a fallback model taking over, a phase of
      // an architect turn: the text after it goes into a new bubble.
      hideEmpty();
      state.bubble = null;
      state.reasoning = null;
      $('#messages').append(h('div', { class: 'msg note' + (ev.notice ? ' notice-' + ev.notice.kind : ''), dataset: { phase: ev.phase || '' }, text: ev.text || '' }));
      scrollDown();
      break;
    case 'done': {
      const d = ev.done || {};
      closeAllInteractions();
      state.byModel = null;
      document.querySelectorAll('#messages button.keep').forEach((b) => b.remove());
      turnEnded(d);
      if (d.stop_reason && !['done', 'cancelled', 'error'].includes(d.stop_reason)) {
        $('#messages').append(h('div', { class: 'msg note', text: 'Run ended: ' + d.stop_reason.replace('_', ' ') + (d.denials ? ' · ' + d.denials + ' denied' : '') }));
      }
      break;
    }
    default: break;
  }
}

function setRunning(on) {
  state.running = on;
  if (!on) clearWaiting();
  $('#send').hidden = on;
  $('#stop').hidden = !on;
  $('#chat-input').disabled = false;
  document.body.classList.toggle('running', on);
}

async function send() {
  const input = $('#chat-input');
  const text = input.value;
  if (state.running || (!text.trim() && !state.attachments.length)) return;
  askNotifyOnce().then(renderNotifySetting).catch(showError);
  const files = state.attachments;
  state.attachments = [];
  renderAttachments();
  input.value = '';
  const userEl = addUser(text, files.map((f) => f.name));
  state.bubble = null;
  state.reasoning = null;
  state.turnStart = Date.now();
  setRunning(true);
  const ctrl = new AbortController();
  state.abort = ctrl;
  try {
    await streamChat({ message: text, session_id: state.sessionId || undefined, attachments: files.length ? files.map((f) => ({ name: f.name, upload: f.upload })) : undefined }, onEvent, ctrl.signal);
  } catch (err) {
    if (err.name !== 'AbortError') {
      chatError({ message: err.message, fatal: false });
      showError(err);
    }
  } finally {
    setRunning(false);
    state.abort = null;
    loadSessions().catch(showError);
    placeRewind(state.sessionId, userEl, rewindOpts).catch(showError);
  }
}

// ---- chat: rewind -----------------------------------------------------------

const rewindOpts = { busy: () => state.running, done: rewound, fail: showError };

// rewound shows the conversation as a rewind left it, says what it did
// and, when the conversation was cut, offers the prompt again in the
// input (as the terminal's /rewind does).
async function rewound(r) {
  const view = await api('/api/v1/sessions/' + encodeURIComponent(r.session_id));
  renderHistory(view);
  hideEmpty();
  $('#messages').append(rewoundNote(r, rewindOpts));
  $('#messages').scrollTop = $('#messages').scrollHeight;
  const input = $('#chat-input');
  if (r.scope !== 'code' && r.prompt && !input.value.trim()) {
    input.value = r.prompt;
    input.focus();
  }
  await loadSessions();
}

async function stop() {
  try {
    await api('/api/v1/chat/stop', { method: 'POST', body: { session_id: state.sessionId } });
  } catch (err) {
    state.abort?.abort();
    throw err;
  }
  // The server ends the stream itself; make sure a stuck connection ends too.
  setTimeout(() => state.abort?.abort(), 5000);
}

// ---- chat: attachments -----------------------------------------------------------

// Files are uploaded (POST /api/upload) as soon as they are picked or
// dropped: the server loads them (PDF, DOCX, XLSX, CSV, PPTX, notebooks,
// HTML, text, images) and keeps them in the session's attachment folder;
// the message names them by upload ID.
const MAX_UPLOAD = 7 << 20;

function renderAttachments() {
  fill($('#attachments'), state.attachments.map((a, i) => h('span', { class: 'chip attachment-chip', title: a.kind + (a.notes?.length ? ': ' + a.notes.join('; ') : ''), dataset: { kind: a.kind } },
    a.thumb ? h('img', { class: 'thumb', src: a.thumb, alt: '' }) : null, a.name,
    a.notes?.length ? h('span', { class: 'chip-note', title: a.notes.join('\n'), text: '⚠' }) : null,
    h('button', { type: 'button', class: 'icon', title: 'Remove', text: '×', onclick: () => { state.attachments.splice(i, 1); renderAttachments(); } }))));
}

function base64Of(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

async function addFiles(list) {
  for (const f of list) {
    if (f.size > MAX_UPLOAD) { showError(f.name + ' is larger than 7 MiB: attach a smaller file'); continue; }
    if (state.attachments.length >= 8) { showError('at most 8 attachments per message'); break; }
    try {
      const up = await api('/api/v1/upload', { method: 'POST', body: { name: f.name, data: await base64Of(f), session_id: state.sessionId || undefined } });
      const thumb = up.kind === 'image' ? URL.createObjectURL(f) : null;
      state.attachments.push({ name: up.name, upload: up.id, kind: up.kind, notes: up.notes, thumb });
    } catch (err) {
      showError(err);
    }
    renderAttachments();
  }
}

// ---- chat: sessions and history ------------------------------------------------------

function renderHistory(view) {
  const box = $('#messages');
  clearWaiting();
  fill(box);
  state.cards.clear();
  state.subOwner.clear();
  state.bubble = null;
  state.reasoning = null;
  if (!view.messages.length) {
    box.append(h('div', { class: 'empty-hint', id: 'chat-empty' }, h('h2', { text: 'What should we work on?' }),
      h('p', { text: 'Ask about the code in ' + (state.status?.workspace || 'this workspace') + '.' })));
  }
  const labelled = new Set(view.messages.filter((m) => m.role === 'assistant' && m.model).map((m) => m.model)).size > 1;
  for (const [i, m] of view.messages.entries()) {
    if (m.role === 'user') {
      const text = m.parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n\n');
      if (text && !text.startsWith('[aidex, ')) addUser(text).dataset.index = String(i);
    } else if (m.role === 'assistant') {
      state.bubble = null;
      if (labelled && m.model) newBubble(m.model);
      for (const p of m.parts) {
        if (p.type === 'text' && p.text) appendTextNow(p.text);
        else if (p.type === 'tool_call') toolCard(p.tool_call);
      }
    } else if (m.role === 'tool') {
      for (const p of m.parts) {
        if (p.type === 'tool_result') {
          const r = p.tool_result;
          toolResult({ id: r.call_id, name: r.name, ok: !r.is_error, output: r.is_error ? '' : r.content, error: r.is_error ? r.content : '' });
        }
      }
    }
  }
  renderTodos(view.todos);
  renderUsage({ session: view.usage, cost_usd: view.cost_usd });
  box.scrollTop = box.scrollHeight;
  if (view.id) placeRewind(view.id, null, rewindOpts).catch(showError);
}

function appendTextNow(text) {
  const b = state.bubble || newBubble();
  b.text += text;
  fill(b.body, renderMarkdown(b.text));
}

async function loadSessions() {
  const res = await api('/api/v1/sessions');
  const cur = state.sessionId || res.current;
  if (!res.sessions.length) {
    fill($('#session-list'), h('li', { class: 'muted small', text: 'No sessions yet in this workspace.' }));
    return;
  }
  fill($('#session-list'), res.sessions.map((s) => h('li', {
    class: s.id === cur ? 'active' : '', dataset: { id: s.id }, title: s.id,
    onclick: guarded(() => resume(s.id)),
  }, h('div', { class: 'title', text: s.title || '(untitled)' }),
  h('div', { class: 'meta muted', text: new Date(s.updated_at).toLocaleString() + ' · ' + s.messages + ' msgs' }))));
}

async function resume(id) {
  if (state.running) throw new Error('wait for the current answer to finish (or stop it) before switching sessions');
  const view = await api('/api/v1/sessions/' + encodeURIComponent(id) + '/resume', { method: 'POST' });
  state.sessionId = view.id;
  renderHistory(view);
  await loadMulti(view.id).catch(showError);
  await loadSessions();
}

async function newChat() {
  if (state.running) throw new Error('stop the current answer before starting a new chat');
  const res = await api('/api/v1/history/clear', { method: 'POST' });
  state.sessionId = res.session_id;
  resetRewind();
  renderHistory({ messages: [], todos: [], usage: {}, cost_usd: 0 });
  $('#usage').textContent = '';
  await loadMulti(state.sessionId).catch(showError);
  await loadSessions();
}

async function loadChat() {
  // A used or expired link is reported; a cookie from before may still work.
  try { await redeemLoginCode(); } catch (e) { showError(e); }
  await loadStatus();
  const view = await api('/api/v1/history');
  if (view.id) state.sessionId = view.id;
  await loadMulti(state.sessionId).catch(showError);
  if (view.messages.length) renderHistory(view);
  else if (view.id) await placeRewind(view.id, null, rewindOpts);
  await loadSessions();
  if (view.running) rejoin(view.id, view.event_seq || 0).catch(showError);
}

// rejoin shows a run of the session that went on while the page was away
// (a reload): the approvals and questions waiting for an answer, and the
// run's events after seq (the last one the history view included), until
// it ends. The server keeps the run while a page follows it.
async function rejoin(sessionId, seq) {
  setRunning(true);
  hideEmpty();
  state.turnStart = Date.now();
  state.bubble = null;
  state.reasoning = null;
  const ctrl = new AbortController();
  state.abort = ctrl;
  const follow = streamSSE('/api/v1/sessions/' + encodeURIComponent(sessionId) + '/events?after=' + seq, { signal: ctrl.signal }, (name, ev) => {
    onEvent(name, ev);
    if (name === 'done') ctrl.abort();
  });
  try {
    const [aps, ias] = await Promise.all([api('/api/v1/approvals'), api('/api/v1/interactions')]);
    for (const p of aps.approvals) if (p.session_id === sessionId) approvalBox(p.approval, sessionId);
    for (const ev of ias.interactions) if (ev.session_id === sessionId) showInteraction(ev, showError);
    await follow;
  } catch (err) {
    if (err.name !== 'AbortError') throw err;
  } finally {
    setRunning(false);
    state.abort = null;
    loadSessions().catch(showError);
  }
}

// ---- files --------------------------------------------------------------------

function treeItem(e) {
  const li = h('li', { class: e.dir ? 'dir' : 'file', dataset: { path: e.path } });
  const label = h('span', { class: 'label', text: (e.dir ? '▸ ' : '') + e.name + (e.symlink ? ' ↪' : '') });
  li.append(label);
  label.addEventListener('click', guarded(async () => {
    if (!e.dir) return openFile(e.path);
    if (li.classList.toggle('open')) {
      label.textContent = '▾ ' + e.name;
      const sub = h('ul');
      li.append(sub);
      await loadTree(e.path, sub);
    } else {
      label.textContent = '▸ ' + e.name;
      li.querySelector('ul')?.remove();
    }
  }));
  return li;
}

async function loadTree(path = '', ul = $('#tree')) {
  const res = await api('/api/v1/fs/list?path=' + encodeURIComponent(path));
  fill(ul, res.entries.length ? res.entries.map(treeItem) : h('li', { class: 'muted', text: '(empty)' }));
}

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// openFile loads a file's raw bytes. A textarea turns CRLF into LF, so a
// CRLF file is edited as LF and saved with CRLF again; files with mixed
// line endings or bytes that are not UTF-8 open read-only so saving can
// never change bytes the user did not edit.
async function openFile(path) {
  if (state.file?.dirty && !confirm('Discard the unsaved changes to ' + state.file.path + '?')) return;
  const bytes = await readBytes(path);
  const ed = $('#editor');
  let text;
  let readOnly = '';
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = new TextDecoder('utf-8').decode(bytes);
    readOnly = 'not UTF-8 text: read-only';
  }
  const crlf = text.includes('\r\n');
  if (!readOnly && text.includes('\r') && (!crlf || /\r(?!\n)|(?<!\r)\n/.test(text))) readOnly = 'mixed line endings: read-only';
  state.file = { path, original: bytes, crlf, dirty: false, readOnly: !!readOnly };
  ed.value = crlf ? text.replace(/\r\n/g, '\n') : text;
  state.file.loaded = ed.value;
  ed.disabled = false;
  ed.readOnly = !!readOnly;
  $('#editor-path').textContent = path;
  $('#editor-state').textContent = readOnly || (crlf ? 'CRLF' : '') + ' ' + bytes.length + ' bytes';
  $('#save-file').disabled = !!readOnly;
  for (const li of document.querySelectorAll('#tree li.file')) li.classList.toggle('active', li.dataset.path === path);
}

async function saveFile() {
  const f = state.file;
  if (!f || f.readOnly) return;
  const ed = $('#editor');
  let content = ed.value;
  if (f.crlf) content = content.replace(/\n/g, '\r\n');
  const body = { path: f.path };
  if (ed.value === f.loaded) {
    // Unchanged: send the original bytes back exactly.
    let bin = '';
    for (let i = 0; i < f.original.length; i += 0x8000) bin += String.fromCharCode(...f.original.subarray(i, i + 0x8000));
    body.content_base64 = btoa(bin);
  } else {
    body.content = content;
  }
  const res = await api('/api/v1/fs/write', { method: 'POST', body });
  f.original = body.content !== undefined ? new TextEncoder().encode(content) : f.original;
  f.loaded = ed.value;
  f.dirty = false;
  $('#editor-state').textContent = 'saved · ' + res.bytes + ' bytes';
}

// ---- models -------------------------------------------------------------------------

async function loadModelProviders() {
  const sel = $('#model-provider');
  if (sel.options.length) return;
  const res = await api('/api/v1/providers');
  for (const g of res.groups) {
    const og = h('optgroup', { label: g.group });
    for (const p of g.providers) og.append(h('option', { value: p.name, text: p.display_name || p.name }));
    sel.append(og);
  }
  sel.value = res.current;
}

async function loadModels(refresh = false) {
  await loadModelProviders();
  $('#multi-bar').dataset.sessionId = state.sessionId || '';
  await loadMulti(state.sessionId);
  const provider = $('#model-provider').value;
  $('#model-source').textContent = 'loading…';
  const res = await api('/api/v1/models?provider=' + encodeURIComponent(provider) + (refresh ? '&refresh=1' : ''));
  state.models = res;
  const age = res.age_seconds !== undefined && res.fetched_at ? ' · fetched ' + fmtAge(res.age_seconds) + ' ago' : '';
  $('#model-source').textContent = res.models.length + ' models · ' + res.source + age;
  const note = $('#model-note');
  note.hidden = !res.note;
  note.textContent = res.note || '';
  renderModels();
}

function renderModels() {
  const res = state.models;
  if (!res) return;
  const q = $('#model-search').value.trim().toLowerCase();
  const freeOnly = $('#model-free').checked;
  const cur = state.status && state.status.provider === res.provider ? state.status.model : res.current;
  const rows = res.models.filter((m) => (!q || (m.id + ' ' + (m.name || '')).toLowerCase().includes(q)) && (!freeOnly || m.price_label === 'FREE'));
  fill($('#model-list'), rows.length ? rows.map((m) => h('tr', { class: 'model-row' + (m.id === cur ? ' current' : ''), dataset: { id: m.id } },
    h('td', null, h('div', { class: 'mono', text: m.id }), m.name && m.name !== m.id ? h('div', { class: 'muted small', text: m.name }) : null,
      m.tools === false ? h('span', { class: 'badge warn', text: 'no tools' }) : null),
    h('td', null, m.price_label ? h('span', { class: 'badge' + (m.price_label === 'FREE' ? ' free' : ''), text: m.price_label }) : h('span', { class: 'muted', text: '—' })),
    h('td', null, m.context_label ? h('span', { class: 'badge', text: m.context_label }) : h('span', { class: 'muted', text: '—' })),
    h('td', null, h('input', { type: 'checkbox', class: 'active-toggle', title: 'Answer with this model too (several active models)',
      checked: isActiveModel(res.provider + '/' + m.id),
      onchange: (e) => toggleModel(state.sessionId, res.provider + '/' + m.id, e.target.checked).catch(showError) })),
    h('td', null, m.id === cur ? h('span', { class: 'muted', text: 'in use' })
      : h('button', { type: 'button', class: 'use', text: 'Use', onclick: guarded(() => switchModel(res.provider, m.id)) }))))
    : h('tr', null, h('td', { colspan: 5, class: 'muted', text: 'No models match.' })));
}

async function switchModel(provider, id) {
  const res = await api('/api/v1/models/switch', { method: 'POST', body: { model: id, provider } });
  $('#status-model').textContent = res.provider + '/' + res.model;
  await loadStatus();
  renderModels();
}

// ---- Ralph ------------------------------------------------------------------------------

const ralph = {
  view: null, // the last GET /api/ralph
  selected: '', // the task shown in the detail pane ('' = none)
  follow: true, // select each task as the run starts it
  streaming: false, // this page follows the server's run
  abort: null,
  live: new Map(), // task id -> live output box {el, bubble}
  poll: 0,
  loads: 0, // GET /api/ralph requests started: only the newest answer counts
};

const statusMark = { pending: '○', in_progress: '◐', done: '✓', failed: '✗', skipped: '↷' };

function taskById(id) {
  return ralph.view?.tasks.find((t) => t.id === id);
}

// updateTask replaces a task of the list with a snapshot from an event.
function updateTask(t) {
  if (!ralph.view || !t) return;
  const i = ralph.view.tasks.findIndex((x) => x.id === t.id);
  if (i >= 0) ralph.view.tasks[i] = t;
  else ralph.view.tasks.push(t);
  renderRalph();
}

// loadRalph fetches the task list and run state. An answer overtaken by a
// newer request is dropped: it may describe a run that has ended since (a
// "Stop now" reload that the end of the run's stream overtook), and
// following that run would find none.
async function loadRalph() {
  const n = ++ralph.loads;
  const v = await api('/api/v1/ralph');
  if (n !== ralph.loads) return;
  ralph.view = v;
  renderRalph();
  if (v.running && v.live && !ralph.streaming) followRalph('/api/v1/ralph/events', { method: 'GET' });
  clearTimeout(ralph.poll);
  if (v.running && !ralph.streaming && document.querySelector('#panel-ralph.active')) {
    ralph.poll = setTimeout(guarded(loadRalph), 3000); // another process runs the loop
  }
}

function renderRalph() {
  const v = ralph.view;
  if (!v) return;
  const c = v.counts || {};
  $('#ralph-counts').textContent = v.tasks.length ? ['pending', 'in_progress', 'done', 'failed']
    .filter((s) => c[s]).map((s) => c[s] + ' ' + s.replace('_', ' ')).join(' · ') : '';
  const running = v.running || ralph.streaming;
  $('#ralph-run').disabled = running;
  $('#ralph-max').disabled = running;
  $('#ralph-stop').disabled = !running;
  $('#ralph-pause').disabled = !running;
  $('#ralph-pause').textContent = v.paused ? 'Resume' : 'Pause';
  $('#ralph-stop').textContent = v.stop_requested ? '■ Stop now' : '■ Stop';
  $('#ralph-stop').title = v.stop_requested ? 'Interrupt the current task now (it goes back to pending)' : 'Stop after the current task';
  $('#ralph-clear').disabled = running || !v.tasks.length;
  let line = '';
  if (running) line = v.paused ? '⏸ paused — resume to go on' : v.stop_requested ? 'stopping after the current task…' : '● running' + (v.current ? ' ' + v.current : '');
  else if (ralph.finished) line = ralph.finished;
  fill($('#ralph-state'), line ? h('span', { class: running ? 'live-dot' : 'muted', text: line }) : null);
  renderWorkers(running && v.workers && v.workers.length > 1 ? v.workers : []);
  fill($('#ralph-notices'), (v.notices || []).map((n) => h('div', { class: 'note small', text: n })));
  fill($('#ralph-list'), v.tasks.length ? v.tasks.map((t) => h('li', {
    class: 'task ' + t.status + (t.id === ralph.selected ? ' active' : '') + (t.id === v.current && running ? ' current' : ''),
    dataset: { id: t.id, status: t.status }, title: t.id + ' · ' + t.status,
    onclick: () => { ralph.follow = false; selectTask(t.id); },
  },
  h('span', { class: 'mark ' + t.status, text: statusMark[t.status] || '?' }),
  h('div', { class: 'task-main' },
    h('div', { class: 'title', text: t.title }),
    h('div', { class: 'meta' }, h('span', { class: 'mono', text: t.id }), h('span', { class: 'prio ' + t.priority, text: t.priority }),
      h('span', { class: 'status-text', text: t.status.replace('_', ' ') }))))) : h('li', { class: 'muted small empty', text: 'No tasks yet. Add one with “+ New task”, or let the model propose some: aidex plan "GOAL".' }));
  if (ralph.selected && !taskById(ralph.selected)) ralph.selected = '';
  if (!v.tasks.length && !ralph.selected && !ralph.formOffered) {
    ralph.formOffered = true; // an empty list opens the form once
    showAddForm();
  } else if ($('#ralph-add').hidden) {
    renderTaskDetail();
  }
}

// renderWorkers shows one row per worker of a run with several (aidex
// ralph run --workers N): id, host, its task or idle, its last heartbeat.
function renderWorkers(workers) {
  fill($('#ralph-workers'), workers.map((w) => {
    const ago = Math.max(0, Math.round((Date.now() - Date.parse(w.last_heartbeat)) / 1000));
    const task = (w.tasks && w.tasks.length ? w.tasks.join(', ') : 'idle') + (w.paused ? ' (paused)' : '');
    return h('div', { class: 'worker-row', dataset: { id: w.id }, title: 'last heartbeat ' + ago + 's ago' },
      h('span', { class: 'mono', text: w.id }), h('span', { class: 'muted', text: ' @' + (w.host || '?') + ' · ' }),
      h('span', { class: 'worker-task', text: task }));
  }));
}

function selectTask(id) {
  ralph.selected = id;
  $('#ralph-add').hidden = true;
  for (const li of document.querySelectorAll('#ralph-list li.task')) li.classList.toggle('active', li.dataset.id === id);
  renderTaskDetail();
}

function showAddForm() {
  ralph.selected = '';
  for (const li of document.querySelectorAll('#ralph-list li.task')) li.classList.remove('active');
  fill($('#ralph-detail'));
  $('#ralph-add').hidden = false;
  $('#ralph-title').focus();
}

function section(title, ...body) {
  return h('section', { class: 'task-section' }, h('h3', { text: title }), ...body);
}

function renderTaskDetail() {
  const box = $('#ralph-detail');
  const t = taskById(ralph.selected);
  if (!t) {
    fill(box, h('p', { class: 'muted', text: ralph.view?.tasks.length ? 'Select a task to see its details.' : '' }));
    return;
  }
  const v = ralph.view;
  const busy = (v.running || ralph.streaming) && t.status === 'in_progress';
  const live = ralph.live.get(t.id);
  const when = t.updated_at ? new Date(t.updated_at).toLocaleString() : '';
  fill(box,
    h('div', { class: 'task-head' },
      h('h2', { text: t.title }),
      h('div', { class: 'row' },
        h('span', { class: 'mono muted', text: t.id }),
        h('span', { class: 'badge st-' + t.status, text: t.status.replace('_', ' ') }),
        h('span', { class: 'badge prio ' + t.priority, text: t.priority }),
        h('span', { class: 'badge', text: t.task_type }),
        h('span', { class: 'muted small', text: [t.attempts ? t.attempts + (t.attempts === 1 ? ' attempt' : ' attempts') : '', when ? 'updated ' + when : ''].filter(Boolean).join(' · ') }))),
    h('div', { class: 'row task-actions' },
      t.status !== 'pending' && !busy ? h('button', { type: 'button', text: '↺ Reset to pending', onclick: guarded(() => resetTask(t.id)) }) : null,
      t.status === 'pending' && !v.running && !ralph.streaming ? h('button', { type: 'button', text: '▶ Run this task', onclick: guarded(() => runRalph([t.id])) }) : null,
      t.session_id ? h('button', { type: 'button', class: 'open-transcript', text: 'Open transcript', onclick: guarded(() => openTranscript(t.session_id)) }) : null,
      t.session_id && !busy ? h('button', { type: 'button', text: 'Continue in Chat', onclick: guarded(async () => { await resume(t.session_id); showPanel('chat'); }) }) : null),
    t.description ? section('Description', h('div', { class: 'prose', text: t.description })) : null,
    t.acceptance_criteria?.length ? section('Acceptance criteria', h('ul', { class: 'criteria' }, t.acceptance_criteria.map((c) => h('li', { text: c })))) : null,
    t.depends_on?.length ? section('Depends on', h('div', null, t.depends_on.map((d) => {
      const dep = taskById(d);
      return h('button', { type: 'button', class: 'chip link', text: d + (dep ? ' · ' + dep.status.replace('_', ' ') : ''), onclick: () => selectTask(d) });
    }))) : null,
    t.result ? section('Result', h('div', { class: 'md result ' + t.status }, renderMarkdown(t.result))) : null,
    live ? section(busy ? 'Live' : 'Last run in this page', live.el) : null,
    h('div', { id: 'ralph-transcript' }));
}

async function resetTask(id) {
  const res = await api('/api/v1/ralph/reset', { method: 'POST', body: { id } });
  updateTask(res.task);
}

// ---- Ralph: live output of the run ----

function liveBox(id) {
  let l = ralph.live.get(id);
  if (!l) {
    l = { el: h('div', { class: 'live-log' }), bubble: null, cards: new Map() };
    ralph.live.set(id, l);
    while (ralph.live.size > 20) ralph.live.delete(ralph.live.keys().next().value);
  }
  return l;
}

function liveLine(l, cls, text) {
  l.bubble = null;
  l.el.append(h('div', { class: 'live-line ' + cls, text }));
  scrollLive(l);
}

function scrollLive(l) {
  const box = l.el;
  if (box.scrollHeight - box.scrollTop - box.clientHeight < 200) box.scrollTop = box.scrollHeight;
}

function liveText(l, delta) {
  if (!l.bubble) {
    const body = h('div', { class: 'md' });
    l.el.append(body);
    l.bubble = { body, text: '', queued: false };
  }
  const b = l.bubble;
  b.text += delta;
  if (!b.queued) {
    b.queued = true;
    requestAnimationFrame(() => { b.queued = false; fill(b.body, renderMarkdown(b.text)); scrollLive(l); });
  }
}

function liveTool(l, call) {
  l.bubble = null;
  const status = h('span', { class: 'tool-status', text: 'running…' });
  const el = h('div', { class: 'live-line tool' }, h('span', { class: 'tool-icon', text: '⚙ ' }), h('span', { class: 'tool-name', text: call.name }),
    h('span', { class: 'tool-arg', text: ' ' + argSummary(call.arguments) }), status);
  l.cards.set(call.id, { el, status });
  l.el.append(el);
  scrollLive(l);
}

function liveResult(l, res) {
  const c = l.cards.get(res.id);
  if (!c) return;
  c.el.classList.add(res.ok ? 'ok' : 'failed');
  c.status.textContent = res.ok ? ' ✓' : ' ✗ ' + (res.error || res.category || 'failed').split('\n')[0].slice(0, 160);
}

function onRalphEvent(name, ev) {
  const a = ev.event || {};
  if (a.parent_tool_call_id && name === 'text') return; // a subagent's text: its answer is the task's result
  const l = ev.task_id ? liveBox(ev.task_id) : null;
  switch (name) {
    case 'task_start':
      ralph.view.current = ev.task_id;
      ralph.view.running = true;
      liveLine(l, 'start', '▶ started ' + ev.task_id + (ev.task.attempts > 1 ? ' (attempt ' + ev.task.attempts + ')' : ''));
      if (ralph.follow || !ralph.selected) ralph.selected = ev.task_id;
      updateTask(ev.task);
      break;
    case 'text': liveText(l, a.text || ''); break;
    case 'tool_call': liveTool(l, a.tool_call); break;
    case 'tool_result': liveResult(l, a.tool_result); break;
    case 'approval':
      if (a.approval?.decision === 'deny') liveLine(l, 'bad', '⛔ ' + a.approval.tool + ' denied by the permission policy' + (a.approval.reason ? ': ' + a.approval.reason : ''));
      break;
    case 'error':
      if (l && a.error?.kind === 'cancelled') liveLine(l, 'muted', 'Stopped.');
      else if (l) liveLine(l, 'bad', 'Error: ' + (a.error?.message || 'unknown'));
      else showError(a.error?.message || 'the Ralph run failed');
      break;
    case 'budget': if (l) liveLine(l, a.budget?.exhausted ? 'bad' : 'muted', '$ budget: ' + (a.budget?.message || '')); break;
    case 'verify_start': liveLine(l, 'muted', '⧗ verifying: ' + ev.verify.command); break;
    case 'verify': {
      const r = ev.verify.result || {};
      liveLine(l, r.ok ? 'good' : 'bad', r.ok ? '✓ verification passed' : '✗ verification failed (' + (r.error || 'exit code ' + r.exit_code) + ')');
      break;
    }
    case 'task_done': {
      const o = ev.outcome || {};
      liveLine(l, o.status === 'done' ? 'good' : o.status === 'failed' ? 'bad' : 'muted', '■ ' + ev.task_id + ' ' + o.status + ' (' + (o.reason || '').replace('_', ' ') + ')');
      ralph.view.current = '';
      updateTask(ev.task);
      break;
    }
    case 'paused': ralph.view.paused = true; renderRalph(); break;
    case 'resumed': ralph.view.paused = false; renderRalph(); break;
    case 'finished': {
      const s = ev.summary || {};
      const why = { completed: 'Run complete', blocked: 'Run ended (the rest wait on dependencies)', max_iterations: 'Run ended at the task limit', stopped: 'Run stopped', interrupted: 'Run interrupted' };
      ralph.finished = (why[s.reason] || 'Run ended') + ': ' + (s.ran || 0) + ' run, ' + (s.done || 0) + ' done' +
        (s.failed?.length ? ', ' + s.failed.length + ' failed' : '') + (s.waiting?.length ? ', ' + s.waiting.length + ' waiting on dependencies' : '');
      break;
    }
    default: break;
  }
  if (l && ev.task_id === ralph.selected && !l.el.isConnected && $('#ralph-add').hidden) renderTaskDetail();
}

// followRalph streams the server's run (POST /api/ralph/run starts one;
// GET /api/ralph/events follows one already going) until it ends.
// A 404 from GET /api/ralph/events means the run ended between the
// GET /api/ralph that saw it and this request: not an error, the page
// just shows the list as it is now.
async function followRalph(path, opts) {
  if (ralph.streaming) return;
  ralph.streaming = true;
  const finished = ralph.finished;
  ralph.finished = '';
  const ctrl = new AbortController();
  ralph.abort = ctrl;
  renderRalph();
  try {
    await streamSSE(path, { ...opts, signal: ctrl.signal }, (name, ev) => {
      try { onRalphEvent(name, ev); } catch (err) { showError(err); }
    });
  } catch (err) {
    if (err instanceof APIError && err.status === 404 && opts.method === 'GET') ralph.finished = finished;
    else if (err.name !== 'AbortError') showError(err);
  } finally {
    ralph.streaming = false;
    ralph.abort = null;
    await guarded(loadRalph)();
  }
}

function runRalph(taskIds) {
  const body = {};
  const max = $('#ralph-max').value.trim();
  if (max) body.max_iterations = Number(max);
  if (taskIds) body.task_ids = taskIds;
  ralph.follow = true;
  followRalph('/api/v1/ralph/run', { method: 'POST', body });
}

async function stopRalph() {
  const now = !!ralph.view?.stop_requested;
  await api('/api/v1/ralph/stop', { method: 'POST', body: { now } });
  await loadRalph();
}

async function pauseRalph() {
  await api('/api/v1/ralph/' + (ralph.view?.paused ? 'resume' : 'pause'), { method: 'POST' });
  await loadRalph();
}

async function clearRalph() {
  if (!confirm('Remove every task from the list?')) return;
  await api('/api/v1/ralph/clear', { method: 'POST' });
  ralph.selected = '';
  ralph.live.clear();
  await loadRalph();
}

async function addTask(e) {
  e.preventDefault();
  const title = $('#ralph-title').value.trim();
  if (!title) throw new Error('give the task a title');
  const lines = (s) => s.split('\n').map((x) => x.trim()).filter(Boolean);
  const body = {
    title,
    description: $('#ralph-description').value.trim(),
    acceptance_criteria: lines($('#ralph-criteria').value),
    priority: $('#ralph-priority').value,
    task_type: $('#ralph-type').value,
    depends_on: $('#ralph-deps').value.split(/[\s,]+/).filter(Boolean),
  };
  const res = await api('/api/v1/ralph/add', { method: 'POST', body });
  $('#ralph-add').reset();
  $('#ralph-add').hidden = true;
  await loadRalph();
  selectTask(res.task.id);
}

// openTranscript shows a task's session (GET /api/sessions/{id}) below
// its detail.
async function openTranscript(id) {
  const view = await api('/api/v1/sessions/' + encodeURIComponent(id));
  const box = $('#ralph-transcript');
  if (!box) return;
  const items = [];
  for (const m of view.messages) {
    for (const p of m.parts || []) {
      if (p.type === 'text' && p.text && m.role === 'user') {
        // The first user message is the task prompt: long, so folded.
        items.push(p.text.length > 400 ? h('details', { class: 'prompt' }, h('summary', { text: 'Prompt (' + p.text.split('\n')[0].replace(/^#+\s*/, '').slice(0, 80) + ')' }), h('div', { class: 'msg user', text: p.text }))
          : h('div', { class: 'msg user', text: p.text }));
      } else if (p.type === 'text' && p.text) {
        items.push(h('div', { class: 'msg assistant' }, h('div', { class: 'body md' }, renderMarkdown(p.text))));
      } else if (p.type === 'tool_call') {
        items.push(h('div', { class: 'live-line tool' }, h('span', { class: 'tool-name', text: '⚙ ' + p.tool_call.name }), h('span', { class: 'tool-arg', text: ' ' + argSummary(p.tool_call.arguments) })));
      } else if (p.type === 'tool_result') {
        const r = p.tool_result;
        const text = r.content || '';
        items.push(h('details', { class: 'tool-output' + (r.is_error ? ' failed' : '') }, h('summary', { text: (r.is_error ? '✗ ' : '✓ ') + (r.name || 'result') }),
          h('pre', { text: text.length > 8000 ? text.slice(0, 8000) + '\n…' : text })));
      }
    }
  }
  fill(box, h('section', { class: 'task-section' }, h('h3', null, 'Transcript ', h('span', { class: 'mono session-id', text: view.id })),
    h('div', { class: 'transcript' }, items.length ? items : h('p', { class: 'muted', text: 'No messages.' }))));
  box.scrollIntoView({ behavior: 'smooth', block: 'start' });
}

// ---- settings ---------------------------------------------------------------------------

async function loadSettings() {
  const [prov, cfg, img] = await Promise.all([api('/api/v1/providers'), api('/api/v1/config'), api('/api/v1/image-providers')]);
  fill($('#provider-groups'), prov.groups.map((g) => h('div', { class: 'group' },
    h('h3', { text: g.group[0].toUpperCase() + g.group.slice(1) }),
    h('div', { class: 'cards' }, g.providers.map(providerCard)))));
  $('#config-file').textContent = 'Global config file: ' + cfg.file;
  fill($('#config-list'), cfg.entries.map((e) => h('tr', null, h('td', { class: 'mono', text: e.Key }), h('td', { class: 'mono', text: e.Value }), h('td', { class: 'muted small', text: e.Source }))));
  // A preset names a service; image_provider is its wire format
  // (together speaks the OpenAI images format at its own base URL).
  const sel = $('#image-provider');
  const cur = img.configured;
  state.imagePresets = img.providers;
  fill(sel, h('option', { value: '', text: 'default (pollinations)' }), img.providers.map((p) => h('option', { value: p.name, text: p.name + (p.notes ? ' — ' + p.notes : '') })));
  const match = img.providers.find((p) => p.provider === cur.provider && cur.base_url && p.base_url === cur.base_url.replace(/\/+$/, ''))
    || img.providers.find((p) => p.name === cur.provider);
  sel.value = match ? match.name : '';
  $('#image-model').value = cur.model || '';
  $('#image-base-url').value = cur.base_url || '';
  $('#image-account').value = cur.cloudflare_account_id || '';
  imagePlaceholders();
  $('#image-key').placeholder = img.configured.api_key_set ? 'set (' + img.configured.api_key + ') — leave empty to keep' : 'not set';
}

// loadMCP shows each MCP server's status, tools and prompts (read-only).
async function loadMCP() {
  const res = await api('/api/v1/mcp');
  const box = $('#mcp-servers');
  if (!res.servers.length) {
    fill(box, h('p', { class: 'muted', text: 'No MCP servers configured.' }));
    return;
  }
  fill(box, res.servers.map((s) => h('div', { class: 'mcp-server', dataset: { name: s.name } },
    h('div', { class: 'row' }, h('strong', { text: s.name }),
      h('span', { class: 'badge' + (s.status === 'ready' ? ' free' : ''), text: s.status }),
      h('span', { class: 'muted small', text: s.transport + ' · ' + s.tools.length + ' tools · ~' + s.definition_tokens + ' tokens' })),
    s.error ? h('div', { class: 'small error', text: s.error }) : null,
    s.tools.length ? h('ul', { class: 'small' }, s.tools.map((t) => h('li', null, h('span', { class: 'mono', text: t.name }), ' ', h('span', { class: 'muted', text: t.description })))) : null,
    s.prompts.length ? h('div', { class: 'small muted', text: 'prompts: ' + s.prompts.map((p) => '/' + p).join(', ') }) : null)));
}

function providerCard(p) {
  const key = h('input', { type: 'password', autocomplete: 'off', placeholder: p.key_set ? 'key set (' + p.key_source + ')' : 'API key (' + p.key_hint + ')' });
  const signup = safeURL(p.signup_url);
  return h('div', { class: 'provider-card' + (p.current ? ' current' : ''), dataset: { name: p.name } },
    h('div', { class: 'row spread' }, h('strong', { text: p.display_name || p.name }),
      p.current ? h('span', { class: 'badge free', text: 'in use' }) : h('button', { type: 'button', text: 'Use', onclick: guarded(async () => {
        const res = await api('/api/v1/provider/switch', { method: 'POST', body: { provider: p.name } });
        $('#status-model').textContent = res.provider + '/' + res.model;
        await loadStatus();
        await loadSettings();
      }) })),
    p.notes ? h('div', { class: 'muted small', text: p.notes }) : null,
    h('div', { class: 'small' }, p.requires_key ? (p.key_set ? '✓ key set' : 'needs a key') : (p.key_set ? '✓ optional key set' : 'no key needed'),
      signup ? [' · ', h('a', { href: signup, target: '_blank', rel: 'noopener noreferrer', text: p.requires_key ? 'get a key' : 'website' })] : null),
    p.requires_key || p.key_env ? h('form', { class: 'row', onsubmit: guarded(async (e) => {
      e.preventDefault();
      if (!key.value) throw new Error('enter a key first');
      await saveConfig({ ['providers.' + p.name + '.api_key']: key.value });
      key.value = '';
      await loadSettings();
    }) }, key, h('button', { type: 'submit', text: 'Save key' })) : null);
}

// saveConfig sets config keys (POST /api/config) and shows the server's
// warnings (a key saved in a file that could not be made private).
async function saveConfig(values) {
  const res = await api('/api/v1/config', { method: 'POST', body: { values } });
  for (const w of res.warnings || []) showError('Warning: ' + w);
}

function imagePreset() {
  return (state.imagePresets || []).find((p) => p.name === $('#image-provider').value);
}

function imagePlaceholders() {
  imageAccountRow();
  const p = imagePreset();
  $('#image-model').placeholder = p ? p.model : 'flux';
  $('#image-base-url').placeholder = p ? p.base_url : 'https://image.pollinations.ai';
}

// choosePreset fills the fields a preset needs: a service that is not its
// format's default gets its own base URL and model.
function choosePreset() {
  const p = imagePreset();
  const own = p && p.name !== p.provider;
  $('#image-base-url').value = own ? p.base_url : '';
  $('#image-model').value = own ? p.model : '';
  imagePlaceholders();
}

// imageAccountRow shows the Cloudflare account ID field for the providers
// that need a second credential (only Cloudflare Workers AI).
function imageAccountRow() {
  $('#image-account-row').hidden = !imagePreset()?.needs_account_id;
}

// generateImage asks POST /api/image for an image and shows it (and where
// it was saved).
async function generateImage(e) {
  e.preventDefault();
  const prompt = $('#image-prompt').value.trim();
  if (!prompt) throw new Error('describe the image first');
  const num = (id) => { const v = $(id).value.trim(); return v ? Number(v) : undefined; };
  const body = { prompt, width: num('#image-width'), height: num('#image-height'), seed: num('#image-seed'), save_as: $('#image-save').value.trim() || undefined };
  const btn = $('#image-gen button[type=submit]');
  btn.disabled = true;
  fill($('#image-result'), h('p', { class: 'muted', text: 'Generating… (image models can take a minute)' }));
  try {
    const res = await api('/api/v1/image', { method: 'POST', body });
    if (!/^image\/(png|jpeg|gif|webp)$/.test(res.mime)) throw new Error('the image service answered ' + res.mime + ', not an image');
    fill($('#image-result'),
      h('img', { src: 'data:' + res.mime + ';base64,' + res.data, alt: prompt, width: res.width, height: res.height }),
      h('div', { class: 'muted small', text: res.provider + '/' + res.model + ' · ' + res.width + '×' + res.height + ' · ' + res.mime + ' · ' + res.bytes + ' bytes' +
        (res.saved ? ' · saved to ' + res.saved : '') }),
      res.note ? h('div', { class: 'note small', text: res.note }) : null);
  } catch (err) {
    fill($('#image-result'));
    throw err;
  } finally {
    btn.disabled = false;
  }
}

async function saveImageSettings(e) {
  e.preventDefault();
  const values = {
    image_provider: imagePreset()?.provider || '',
    image_model: $('#image-model').value,
    image_base_url: $('#image-base-url').value,
  };
  if (imagePreset()?.needs_account_id) values.cloudflare_account_id = $('#image-account').value.trim();
  if ($('#image-key').value) values.image_api_key = $('#image-key').value;
  await saveConfig(values);
  $('#image-key').value = '';
  await loadSettings();
}

// ---- start ----------------------------------------------------------------------------------

function init() {
  initTheme();
  initNotify();
  loaders.chat = guarded(loadSessions);
  initMulti(showError);
  document.addEventListener('multi-changed', () => {
    renderModels();
    if (state.status) $('#status-model').textContent = multiLabel() || state.status.provider + '/' + state.status.model;
  });
  loaders.files = guarded(async () => { if (!$('#tree').children.length) await loadTree(); });
  loaders.models = guarded(() => loadModels(false));
  loaders.ralph = guarded(loadRalph);
  loaders.settings = guarded(async () => { await loadSettings(); await loadMCP(); });
  for (const b of document.querySelectorAll('.tabs button')) b.addEventListener('click', () => showPanel(b.dataset.panel));

  const input = $('#chat-input');
  $('#chat-form').addEventListener('submit', (e) => { e.preventDefault(); send(); });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); }
  });
  $('#stop').addEventListener('click', guarded(stop));
  $('#new-chat').addEventListener('click', guarded(newChat));
  $('#attach-input').addEventListener('change', guarded(async (e) => { await addFiles(e.target.files); e.target.value = ''; }));
  const chat = $('#panel-chat');
  chat.addEventListener('dragover', (e) => { e.preventDefault(); chat.classList.add('dropping'); });
  chat.addEventListener('dragleave', () => chat.classList.remove('dropping'));
  chat.addEventListener('drop', guarded(async (e) => { e.preventDefault(); chat.classList.remove('dropping'); await addFiles(e.dataTransfer.files); }));

  const ed = $('#editor');
  ed.addEventListener('input', () => { if (state.file) { state.file.dirty = ed.value !== state.file.loaded; $('#editor-state').textContent = state.file.dirty ? 'modified' : ''; } });
  ed.addEventListener('keydown', (e) => {
    if (e.key === 'Tab' && !e.shiftKey && !ed.readOnly) { e.preventDefault(); ed.setRangeText('\t', ed.selectionStart, ed.selectionEnd, 'end'); ed.dispatchEvent(new Event('input')); }
    if (e.key === 's' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); guarded(saveFile)(); }
  });
  $('#save-file').addEventListener('click', guarded(saveFile));
  $('#tree-refresh').addEventListener('click', guarded(() => loadTree()));

  $('#model-provider').addEventListener('change', guarded(() => loadModels(false)));
  $('#model-refresh').addEventListener('click', guarded(() => loadModels(true)));
  $('#model-search').addEventListener('input', renderModels);
  $('#model-free').addEventListener('change', renderModels);

  $('#ralph-add').addEventListener('submit', guarded(addTask));
  $('#ralph-add-cancel').addEventListener('click', () => { $('#ralph-add').hidden = true; renderTaskDetail(); });
  $('#ralph-new').addEventListener('click', showAddForm);
  $('#ralph-run').addEventListener('click', () => runRalph());
  $('#ralph-stop').addEventListener('click', guarded(stopRalph));
  $('#ralph-pause').addEventListener('click', guarded(pauseRalph));
  $('#ralph-clear').addEventListener('click', guarded(clearRalph));
  $('#ralph-refresh').addEventListener('click', guarded(loadRalph));
  $('#image-form').addEventListener('submit', guarded(saveImageSettings));
  $('#image-gen').addEventListener('submit', guarded(generateImage));
  $('#image-provider').addEventListener('change', choosePreset);

  window.addEventListener('unhandledrejection', (e) => showError(e.reason));
  guarded(loadChat)().then(() => {
    const start = location.hash.slice(1);
    if (start && start !== 'chat' && loaders[start]) showPanel(start);
    document.body.dataset.ready = '1';
  });
}

init();
