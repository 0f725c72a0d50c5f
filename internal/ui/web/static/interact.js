// interact.js: the interactions panel, apart from the chat log: the
// model's ask_user questions (SSE "interaction" events) as a form. Submit
// posts {token, answers} to /api/interaction/{id}; Cancel posts
// {token, declined: true}. The token comes with the event and works once.
import { h, fill, $ } from './dom.js';
import { api } from './api.js';

const boxes = new Map(); // interaction id -> its form element

// field builds the input of one question; value() reads its answer.
function field(q, i) {
  const name = 'ia-q' + i;
  const kind = q.kind || (q.options && q.options.length ? 'choice' : 'text');
  if (kind === 'text' || kind === 'files') {
    const input = h('input', { type: 'text', name, class: 'ia-text', placeholder: kind === 'files' ? 'paths, separated by spaces' : 'your answer' });
    const value = () => (kind === 'files' ? input.value.split(/\s+/).filter(Boolean) : input.value);
    return { el: input, value };
  }
  const multi = kind === 'choice' && q.multi_select;
  const options = kind === 'confirm' ? [{ label: 'yes' }, { label: 'no' }] : q.options || [];
  const inputs = options.map((o) => h('input', { type: multi ? 'checkbox' : 'radio', name, value: o.label }));
  const el = h('div', { class: 'ia-options' }, options.map((o, j) => h('label', { class: 'ia-option' }, inputs[j], ' ', h('span', { text: o.label }),
    o.description ? h('span', { class: 'muted small', text: ' — ' + o.description }) : null)));
  const value = () => {
    const picked = inputs.filter((x) => x.checked).map((x) => x.value);
    return multi ? picked : picked[0];
  };
  return { el, value };
}

// showInteraction adds the form of an interaction event; onError shows a
// failure on the page.
export function showInteraction(ev, onError) {
  const ia = ev.interaction;
  if (!ia || boxes.has(ia.id)) return;
  const panel = $('#interactions');
  const fields = ia.questions.map((q, i) => ({ q, ...field(q, i) }));
  const err = h('div', { class: 'ia-error bad small', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary', text: 'Submit' });
  const cancel = h('button', { type: 'button', class: 'danger', text: 'Cancel' });
  const form = h('form', { class: 'interaction', dataset: { interactionId: ia.id } },
    h('div', { class: 'ia-head', text: (ia.source || 'The model') + ' asks' }),
    fields.map((f) => h('fieldset', { class: 'ia-question' },
      h('legend', null, f.q.header ? h('span', { class: 'ia-header', text: f.q.header + ' ' }) : null, h('strong', { text: f.q.question })),
      f.el)),
    err, h('div', { class: 'row' }, submit, cancel));
  const send = async (body) => {
    submit.disabled = cancel.disabled = true;
    err.textContent = '';
    try {
      await api('/api/v1/interaction/' + encodeURIComponent(ia.id), { method: 'POST', body: { token: ev.token, session_id: ev.session_id, ...body } });
      closeInteraction(ia.id);
    } catch (e) {
      submit.disabled = cancel.disabled = false;
      err.textContent = e.message;
      if (e.status === 404 || e.status === 410) {
        closeInteraction(ia.id);
        onError(e);
      }
    }
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const answers = {};
    for (const f of fields) {
      const v = f.value();
      if (v === undefined) {
        err.textContent = 'Answer "' + f.q.question + '" (or Cancel).';
        return;
      }
      answers[f.q.question] = v;
    }
    send({ answers });
  });
  cancel.addEventListener('click', () => send({ declined: true }));
  boxes.set(ia.id, form);
  panel.append(form);
  panel.hidden = false;
  const first = form.querySelector('input');
  if (first) first.focus();
}

// closeInteraction removes an interaction's form (answered here, in
// another tab, or its run ended).
export function closeInteraction(id) {
  const box = boxes.get(id);
  if (box) box.remove();
  boxes.delete(id);
  const panel = $('#interactions');
  if (!boxes.size) panel.hidden = true;
}

// closeAllInteractions empties the panel (the run ended).
export function closeAllInteractions() {
  fill($('#interactions'));
  boxes.clear();
  $('#interactions').hidden = true;
}
