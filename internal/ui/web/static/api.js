// api.js: the HTTP API client. The token travels in the HttpOnly cookie
// set when the page was opened with ?token= (or with ?code=, exchanged by
// redeemLoginCode); this code never sees it.

// APIError is a failed API call: the HTTP status and the server's message.
export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function failure(res) {
  let msg = res.statusText || 'request failed';
  try {
    const ct = res.headers.get('Content-Type') || '';
    if (ct.includes('json')) msg = (await res.json()).error || msg;
    else msg = (await res.text()).trim() || msg;
  } catch { /* keep the status text */ }
  if (res.status === 401) msg = 'Not signed in: open the URL that `aidex web` printed (it carries the token). ' + msg;
  return new APIError(res.status, msg);
}

// api calls an endpoint. A body (or any non-GET method) is sent as JSON.
// It returns the parsed JSON answer, or the Response for other types.
export async function api(path, { method = 'GET', body, signal } = {}) {
  const opts = { method, headers: {}, signal, credentials: 'same-origin' };
  if (method !== 'GET') {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body ?? {});
  }
  const res = await fetch(path, opts);
  if (!res.ok) throw await failure(res);
  const ct = res.headers.get('Content-Type') || '';
  return ct.includes('application/json') ? res.json() : res;
}

// readBytes fetches a file's raw bytes from /api/fs/read.
export async function readBytes(path) {
  const res = await fetch('/api/v1/fs/read?path=' + encodeURIComponent(path), { credentials: 'same-origin' });
  if (!res.ok) throw await failure(res);
  return new Uint8Array(await res.arrayBuffer());
}

// streamSSE requests path (GET, or POST with a JSON body) and calls
// onEvent(name, data) for each Server-Sent Event of the answer until the
// stream ends. A failed request (before the stream opens) throws APIError.
export async function streamSSE(path, { method = 'GET', body, signal } = {}, onEvent) {
  const opts = { method, headers: {}, signal, credentials: 'same-origin' };
  if (method !== 'GET') {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body ?? {});
  }
  const res = await fetch(path, opts);
  if (!res.ok) throw await failure(res);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const chunk = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let name = 'message';
      let data = '';
      for (const line of chunk.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trimStart();
      }
      if (data) onEvent(name, JSON.parse(data));
    }
  }
}

// streamChat posts a chat message and calls onEvent(name, data) for each
// Server-Sent Event of the answer until the stream ends.
export function streamChat(body, onEvent, signal) {
  return streamSSE('/api/v1/chat', { method: 'POST', body, signal }, onEvent);
}

// redeemLoginCode exchanges the one-time ?code= of the address that
// `aidex web --open` handed to the browser for the token cookie (POST
// /auth/code), after taking it out of the address bar and the history.
// Without a code it does nothing.
export async function redeemLoginCode() {
  const url = new URL(location.href);
  const code = url.searchParams.get('code');
  if (!code) return;
  url.searchParams.delete('code');
  history.replaceState(null, '', url.pathname + url.search + url.hash);
  await api('/auth/code', { method: 'POST', body: { code } });
}
