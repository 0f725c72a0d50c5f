// md.js: a small, safe Markdown renderer and code highlighter. It builds
// DOM nodes directly: text from the model only ever becomes text nodes,
// links only http(s)/mailto, and images are never loaded (a link is shown
// instead), so model output cannot run script or leak data through
// image URLs.
import { h, safeURL } from './dom.js';

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const HR = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const LIST = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

// renderMarkdown returns a DocumentFragment for text. An unclosed code
// fence (a streaming answer) runs to the end.
export function renderMarkdown(text) {
  const frag = document.createDocumentFragment();
  blocks(String(text || '').replace(/\r\n?/g, '\n').split('\n'), frag);
  return frag;
}

function isBlockStart(line, next) {
  return FENCE.test(line) || HEADING.test(line) || HR.test(line) || LIST.test(line) || QUOTE.test(line) ||
    (line.includes('|') && next !== undefined && TABLE_SEP.test(next));
}

function blocks(lines, parent) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (!line.trim()) { i++; continue; }
    if ((m = FENCE.exec(line))) {
      const fence = m[1];
      const code = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence)) code.push(lines[i++]);
      i++;
      parent.append(codeBlock(code.join('\n'), m[2]));
      continue;
    }
    if ((m = HEADING.exec(line))) {
      parent.append(h('h' + m[1].length, null, inline(m[2])));
      i++;
      continue;
    }
    if (HR.test(line)) { parent.append(h('hr')); i++; continue; }
    if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && (m = QUOTE.exec(lines[i]))) { inner.push(m[1]); i++; }
      const bq = h('blockquote');
      blocks(inner, bq);
      parent.append(bq);
      continue;
    }
    if (LIST.test(line)) { i = list(lines, i, parent); continue; }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1])) { i = table(lines, i, parent); continue; }
    const para = [];
    while (i < lines.length && lines[i].trim() && (para.length === 0 || !isBlockStart(lines[i], lines[i + 1]))) para.push(lines[i++]);
    const p = h('p');
    para.forEach((l, k) => {
      if (k > 0) p.append(/ {2,}$/.test(para[k - 1]) ? h('br') : ' ');
      p.append(inline(l.trim()));
    });
    parent.append(p);
  }
}

function list(lines, i, parent) {
  const first = LIST.exec(lines[i]);
  const ordered = /\d/.test(first[2]);
  const base = first[1].length;
  const el = h(ordered ? 'ol' : 'ul');
  if (ordered && parseInt(first[2], 10) !== 1) el.setAttribute('start', parseInt(first[2], 10));
  let li = null;
  let body = [];
  const flush = () => { if (li) { blocks(body, li); el.append(li); } };
  while (i < lines.length) {
    const l = lines[i];
    const m = LIST.exec(l);
    if (m && m[1].length <= base + 1) {
      if (/\d/.test(m[2]) !== ordered) break;
      flush();
      li = h('li');
      const task = /^\[([ xX])\]\s+(.*)$/.exec(m[3]);
      body = [task ? m[3].slice(4) : m[3]];
      if (task) li.append(h('span', { class: 'task-box', text: task[1] === ' ' ? '☐ ' : '☑ ' }));
      i++;
      continue;
    }
    if (!l.trim()) {
      if (i + 1 < lines.length && (/^\s{2,}/.test(lines[i + 1]) || (LIST.exec(lines[i + 1]) || [])[1]?.length <= base + 1)) { body.push(''); i++; continue; }
      break;
    }
    if (/^\s{2,}/.test(l) || !isBlockStart(l, lines[i + 1])) { body.push(l.replace(/^\s{1,4}/, '')); i++; continue; }
    break;
  }
  flush();
  parent.append(el);
  return i;
}

function cells(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|')) s = s.slice(0, -1);
  return s.split('|').map((c) => c.trim());
}

function table(lines, i, parent) {
  const head = cells(lines[i]);
  const align = cells(lines[i + 1]).map((c) => (c.endsWith(':') ? (c.startsWith(':') ? 'center' : 'right') : 'left'));
  const thead = h('thead', null, h('tr', null, head.map((c, k) => h('th', { class: 'al-' + (align[k] || 'left') }, inline(c)))));
  const tbody = h('tbody');
  i += 2;
  while (i < lines.length && lines[i].includes('|') && lines[i].trim()) {
    tbody.append(h('tr', null, cells(lines[i]).map((c, k) => h('td', { class: 'al-' + (align[k] || 'left') }, inline(c)))));
    i++;
  }
  parent.append(h('div', { class: 'table-wrap' }, h('table', null, thead, tbody)));
  return i;
}

function codeBlock(code, lang) {
  const copy = h('button', { class: 'copy', type: 'button', title: 'Copy', text: 'copy' });
  copy.addEventListener('click', () => {
    navigator.clipboard?.writeText(code).then(() => { copy.textContent = 'copied'; setTimeout(() => { copy.textContent = 'copy'; }, 1200); });
  });
  return h('div', { class: 'code-block' },
    h('div', { class: 'code-head' }, h('span', { text: lang || 'text' }), copy),
    h('pre', null, h('code', { class: lang ? 'lang-' + lang.toLowerCase() : null }, highlight(code, lang))));
}

// INLINE matches, in order: code spans, images, links, bold, strike,
// emphasis, and bare or <angle> URLs.
const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|!\[([^\]]*)\]\(([^()\s]+)(?:\s+"[^"]*")?\)|\[([^\]]+)\]\(([^()\s]+)(?:\s+"[^"]*")?\)|\*\*(\S(?:[\s\S]*?\S)?)\*\*|__(\S(?:[\s\S]*?\S)?)__|~~(\S(?:[\s\S]*?\S)?)~~|\*(\S(?:[^*]*?\S)?)\*|(?<![\w])_(\S(?:[^_]*?\S)?)_(?![\w])|<(https?:\/\/[^\s<>]+)>|(https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"*_])/g;

// inline renders one line of inline Markdown as nodes.
export function inline(text) {
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) frag.append(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1]) frag.append(h('code', { class: 'inline', text: m[2].replace(/^ (.*) $/, '$1') }));
    else if (m[3] !== undefined && m[4]) frag.append(imageLink(m[3], m[4]));
    else if (m[5]) frag.append(link(m[6], inline(m[5]), m[0]));
    else if (m[7] || m[8]) frag.append(h('strong', null, inline(m[7] || m[8])));
    else if (m[9]) frag.append(h('del', null, inline(m[9])));
    else if (m[10] || m[11]) frag.append(h('em', null, inline(m[10] || m[11])));
    else if (m[12] || m[13]) frag.append(link(m[12] || m[13], m[12] || m[13], m[0]));
  }
  if (last < text.length) frag.append(text.slice(last));
  return frag;
}

function link(url, content, raw) {
  const href = safeURL(url);
  if (!href) return raw;
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow', title: href }, content);
}

// imageLink shows an image reference without loading it.
function imageLink(alt, url) {
  const href = safeURL(url);
  const label = '[image: ' + (alt || 'untitled') + ' — not loaded]';
  return href ? h('a', { class: 'image-ref', href, target: '_blank', rel: 'noopener noreferrer nofollow', title: href, text: label })
    : h('span', { class: 'image-ref', text: label });
}

const KEYWORDS = {
  go: 'break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota any error string int int64 bool byte rune float64 make new len cap append',
  js: 'async await break case catch class const continue debugger default delete do else export extends false finally for from function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while yield interface type enum implements',
  py: 'and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self print',
  rust: 'as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err',
  c: 'auto break case char const continue default do double else enum extern float for goto if int long register return short signed sizeof static struct switch typedef union unsigned void volatile while class public private protected new delete this throw try catch namespace template true false null bool include define',
  sh: 'if then else elif fi for while do done case esac in function return local export echo exit set unset readonly shift cd',
  sql: 'select from where insert into values update set delete create table drop alter index join left right inner outer on group by order having limit and or not null as distinct union primary key',
};
const LANGS = {
  go: 'go', golang: 'go', js: 'js', javascript: 'js', ts: 'js', typescript: 'js', jsx: 'js', tsx: 'js', json: 'js',
  py: 'py', python: 'py', rs: 'rust', rust: 'rust', c: 'c', h: 'c', cpp: 'c', 'c++': 'c', java: 'c', cs: 'c', kotlin: 'c', swift: 'c',
  sh: 'sh', bash: 'sh', zsh: 'sh', shell: 'sh', console: 'sh', sql: 'sql', toml: 'sh', yaml: 'sh', yml: 'sh', rb: 'py', ruby: 'py',
};
const keywordSets = new Map();

function keywordSet(family) {
  if (!keywordSets.has(family)) keywordSets.set(family, new Set(KEYWORDS[family].split(' ')));
  return keywordSets.get(family);
}

// highlight returns code as nodes with spans for comments, strings,
// numbers, keywords and called functions. Unknown languages get plain
// text.
export function highlight(code, lang) {
  const family = LANGS[(lang || '').toLowerCase()];
  if (!family || code.length > 200000) return document.createTextNode(code);
  if ((lang || '').toLowerCase() === 'diff') return document.createTextNode(code);
  const hashComment = ['py', 'sh'].includes(family);
  const dashComment = family === 'sql';
  const re = new RegExp([
    family === 'py' || family === 'sh' ? null : '\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?(?:\\*\\/|$)',
    hashComment ? '#[^\\n]*' : null,
    dashComment ? '--[^\\n]*' : null,
    family === 'py' ? '"""[\\s\\S]*?(?:"""|$)|\'\'\'[\\s\\S]*?(?:\'\'\'|$)' : null,
    '"(?:[^"\\\\\\n]|\\\\.)*"?|\'(?:[^\'\\\\\\n]|\\\\.)*\'?' + (family === 'js' || family === 'go' ? '|`[^`]*`?' : ''),
    '\\b\\d[\\d_]*(?:\\.\\d+)?(?:[eE][+-]?\\d+)?\\b|\\b0[xX][\\da-fA-F]+\\b',
    '[A-Za-z_$][\\w$]*',
  ].filter(Boolean).join('|'), 'g');
  const kws = keywordSet(family);
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const m of code.matchAll(re)) {
    const t = m[0];
    if (m.index > last) frag.append(code.slice(last, m.index));
    last = m.index + t.length;
    let cls = null;
    const c0 = t[0];
    if (t.startsWith('//') || t.startsWith('/*') || (hashComment && c0 === '#') || (dashComment && t.startsWith('--'))) cls = 'tok-comment';
    else if (c0 === '"' || c0 === "'" || c0 === '`') cls = 'tok-string';
    else if (/\d/.test(c0)) cls = 'tok-number';
    else if (kws.has(family === 'sql' ? t.toLowerCase() : t)) cls = 'tok-keyword';
    else if (code[last] === '(') cls = 'tok-func';
    else if (/^[A-Z]/.test(t) && family !== 'sql') cls = 'tok-type';
    frag.append(cls ? h('span', { class: cls, text: t }) : t);
  }
  if (last < code.length) frag.append(code.slice(last));
  return frag;
}

// renderDiff shows a unified diff with added and removed lines marked.
export function renderDiff(diff) {
  const pre = h('pre', { class: 'diff' });
  for (const line of String(diff).replace(/\n$/, '').split('\n')) {
    let cls = null;
    if (line.startsWith('+++') || line.startsWith('---')) cls = 'diff-file';
    else if (line.startsWith('+')) cls = 'diff-add';
    else if (line.startsWith('-')) cls = 'diff-del';
    else if (line.startsWith('@@')) cls = 'diff-hunk';
    pre.append(h('span', { class: cls }, line + '\n'));
  }
  return pre;
}
