// notify.js: desktop notifications (the browser's Notification API) when
// aidex needs the user while the tab is hidden: an approval waits, or a
// turn that ran longer than 10 s ended. The browser is asked for
// permission once, on the first message the user sends (never on page
// load); the answer is remembered in localStorage ("aidex-notify": "on" or
// "off"), refused or dismissed meaning off. Settings can turn it on again.

const KEY = 'aidex-notify';

// LONG_TURN_MS is how long a turn must run for its end to be notified.
export const LONG_TURN_MS = 10000;

let asking = null; // the pending permission request, so it is asked once

function stored() {
  try { return localStorage.getItem(KEY) || ''; } catch { return ''; }
}

function store(v) {
  try { localStorage.setItem(KEY, v); } catch { /* private mode: asked again next time */ }
}

// notifySupported reports whether the browser has the Notification API.
export function notifySupported() {
  return typeof window.Notification === 'function';
}

// notifyState is 'on', 'off', 'blocked' (the browser refuses for this
// site), 'unset' (not asked yet) or 'unsupported'.
export function notifyState() {
  if (!notifySupported()) return 'unsupported';
  if (Notification.permission === 'denied') return 'blocked';
  const s = stored();
  if (s === 'on') return Notification.permission === 'granted' ? 'on' : 'unset';
  return s === 'off' ? 'off' : 'unset';
}

// request asks the browser (when it has not answered yet) and stores the
// outcome; it resolves to true when notifications are on.
function request() {
  if (!asking) {
    asking = (async () => {
      let p = Notification.permission;
      if (p === 'default') {
        try { p = await Notification.requestPermission(); } catch { p = 'denied'; }
      }
      store(p === 'granted' ? 'on' : 'off');
      return p === 'granted';
    })().finally(() => { asking = null; });
  }
  return asking;
}

// askNotifyOnce is called when the user sends a message (a user action,
// which browsers require for the permission prompt): the first time, it
// asks; afterwards it does nothing.
export function askNotifyOnce() {
  if (!notifySupported() || stored()) return Promise.resolve(notifyState() === 'on');
  return request();
}

// setNotify turns notifications on (asking the browser if needed) or off
// from the Settings panel; it resolves to the new notifyState().
export async function setNotify(on) {
  if (!notifySupported()) return 'unsupported';
  if (on) await request();
  else store('off');
  return notifyState();
}

// notify shows a desktop notification when the tab is hidden and
// notifications are on; clicking it brings the tab back.
export function notify(title, body) {
  if (!document.hidden || notifyState() !== 'on') return;
  try {
    const n = new Notification(title, { body, tag: 'aidex' });
    n.onclick = () => { window.focus(); n.close(); };
  } catch { /* browsers that need a service worker for it (Android): none */ }
}
