// dom.js: building elements without innerHTML. Every string given here
// becomes a text node or an attribute value, never markup.

// h creates an element: attrs may hold class, text, dataset, on<event>
// handlers and plain attributes; children are nodes or strings.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

// clear removes every child of el and appends the given children.
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c != null && c !== false));
  return el;
}

// $ finds one element by selector.
export const $ = (sel, root = document) => root.querySelector(sel);

// safeURL returns url when it is an absolute http(s) or mailto URL, else ''.
export function safeURL(url) {
  try {
    const u = new URL(url);
    return ['http:', 'https:', 'mailto:'].includes(u.protocol) ? u.href : '';
  } catch {
    return '';
  }
}

// fmtTokens shows a token count compactly: 950, 12.3K, 1.2M.
export function fmtTokens(n) {
  n = n || 0;
  if (n < 1000) return String(n);
  if (n < 1e6) return (n / 1000).toFixed(n < 1e4 ? 1 : 0) + 'K';
  return (n / 1e6).toFixed(1) + 'M';
}

// fmtAge shows seconds as "just now", "5 min", "3 h", "2 d".
export function fmtAge(s) {
  if (s < 60) return 'just now';
  if (s < 3600) return Math.round(s / 60) + ' min';
  if (s < 86400) return Math.round(s / 3600) + ' h';
  return Math.round(s / 86400) + ' d';
}
