import type { TestInfo } from '@playwright/test';
import type { AppHost } from './app-host.js';
import { tetherJson } from './host-process.js';
import type { WebKitPhone } from './webkit-phone.js';

/**
 * What a phone's connections did, for a test to attach when it fails: each WebSocket's open, its
 * close with code, reason and who closed it (this page, with where from, or the other end), the
 * offline banner's changes, and the page's main thread stalling. Put in the page once it has
 * loaded (`install`), before the app dials; read back with `report`, which adds the host's own
 * counts of what it refused or closed (`tether status`).
 *
 * It wraps the handler attributes of `WebSocket.prototype`, which the app sets on each socket:
 * sockets made before it is installed are not seen.
 */
const INSTALL = `
  if (window.__connectionLog) return;
  const log = (window.__connectionLog = []);
  const t0 = performance.now();
  const note = (what) => {
    log.push(Math.round(performance.now() - t0) + ' ms ' + what);
    if (log.length > 500) log.shift();
  };
  const P = WebSocket.prototype;
  let n = 0;
  const id = (ws) => (ws.__logId = ws.__logId || ++n);
  const wrap = (name, before) => {
    const d = Object.getOwnPropertyDescriptor(P, name);
    Object.defineProperty(P, name, {
      configurable: true,
      get() { return d.get.call(this); },
      set(h) { d.set.call(this, h && ((e) => { before(this, e); return h.call(this, e); })); },
    });
  };
  wrap('onopen', (ws) => note('#' + id(ws) + ' open ' + ws.url));
  wrap('onclose', (ws, e) => note('#' + id(ws) + ' closed ' + e.code + ' ' + JSON.stringify(e.reason) + (e.wasClean ? '' : ' (unclean)')));
  const close = P.close;
  P.close = function (code, reason) {
    const from = (new Error().stack || '').split('\\n').slice(1, 4).join(' < ');
    note('#' + id(this) + ' closed here ' + code + ' ' + JSON.stringify(reason) + ' from ' + from);
    return close.apply(this, arguments);
  };
  window.addEventListener('online', () => note('online event'));
  let banner = null;
  let tick = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - tick > 1500) note('main thread stalled ' + Math.round(now - tick) + ' ms');
    tick = now;
    const b = document.querySelector('[data-banner="offline"]');
    const shown = b ? b.getAttribute('data-reason') : 'none';
    if (shown !== banner) note('banner ' + shown);
    banner = shown;
  }, 250);
`;

export async function installConnectionLog(phone: WebKitPhone): Promise<void> {
  await phone.run(INSTALL);
}

/** Attaches the phone's connection log and the host's counts to the test (call when it failed). */
export async function attachConnectionReport(phone: WebKitPhone, host: AppHost, testInfo: TestInfo): Promise<void> {
  const log = await phone.run<string[]>('return window.__connectionLog || []').catch((e: unknown) => [String(e)]);
  const status = await tetherJson<{ remote?: unknown }>(host.dataDir, ['status']).catch((e: unknown) => String(e));
  const body = JSON.stringify({ log, remote: typeof status === 'string' ? status : status.remote }, null, 1);
  await testInfo.attach('connections', { body, contentType: 'application/json' });
}
