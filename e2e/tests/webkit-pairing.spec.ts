import type { AppHost } from '../support/app-host.js';
import { allowPairRequest, listDevices, nextPairRequest, startAppHost } from '../support/app-host.js';
import { expectConnectedSessions, hashOf, pairByLink, startSession } from '../support/webkit-app.js';
import { snapPhone, expect, test } from '../support/webkit-test.js';

let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

/** The sessions the app cached for its one computer, read from IndexedDB in the page. */
const CACHED_SESSION_IDS = `
  const done = arguments[arguments.length - 1];
  const open = indexedDB.open('tether');
  open.onerror = () => done(null);
  open.onsuccess = () => {
    const all = open.result.transaction('sessionLists').objectStore('sessionLists').getAll();
    all.onerror = () => done(null);
    all.onsuccess = () => {
      open.result.close();
      done(all.result.flatMap((row) => (row && row.sessions ? row.sessions.map((s) => s.id) : [])));
    };
  };`;

test('paired by link: still paired after a reload, and after the app is closed and opened again offline', async ({
  phone,
}, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairByLink(phone, host);
  const hostRoute = await hashOf(phone);
  const sessionId = await startSession(phone, 'Keep me paired');
  await expect.poll(() => phone.driver.executeAsyncScript<string[] | null>(CACHED_SESSION_IDS)).toContain(sessionId);

  await phone.reload();
  await expect.poll(() => phone.shown('[data-screen="session"]')).toBe(true);
  // Back to the computer's sessions within the page. (Loading it as a new document in the same tab
  // leaves the page just left suspended in WebKit's back-forward cache, where an IndexedDB
  // transaction of its can hold the app's stores for minutes: not what this test is about.)
  await phone.run(`location.hash = ${JSON.stringify(hostRoute)}`);
  await expectConnectedSessions(phone);
  await expect.poll(() => phone.shown(`[data-session-id="${sessionId}"]`)).toBe(true);
  expect((await listDevices(host)).filter((d) => !d.revoked)).toHaveLength(1);
  await snapPhone(phone, testInfo, 'webkit-sessions');

  // Closed, the computer gone, opened again: the service worker serves the app, and the sessions
  // come from what the phone saved.
  await phone.driver.executeAsyncScript('navigator.serviceWorker.ready.then(() => arguments[0]())');
  await host.process.stop();
  await phone.reopen(`${host.url}/${hostRoute}`);
  await expect.poll(() => phone.attr('[data-banner="offline"]', 'data-reason')).toBe('unreachable');
  await expect.poll(() => phone.shown(`[data-session-id="${sessionId}"]`)).toBe(true);
  await expect.poll(() => phone.shown('[data-screen="sessions"] .stale')).toBe(true);
  await snapPhone(phone, testInfo, 'webkit-offline-start');
});

test('a pairing link pasted into the tab where the app is open pairs, and leaves the address', async ({ phone }) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await phone.open(host.url);
  await expect.poll(() => phone.shown('[data-screen="hosts"]')).toBe(true);
  // Only the fragment changes: the page is not loaded again.
  await phone.run('location.href = arguments[0]', host.pairUrl);
  const request = await nextPairRequest(host);
  await expect.poll(() => phone.attr('[data-pairing-code]', 'data-pairing-code')).toBe(request.code);
  expect(await hashOf(phone)).toBe('#/pair');
  await allowPairRequest(host, request.id);
  await expectConnectedSessions(phone);
  expect(await phone.run<string>('return location.href')).not.toContain('pair=');
});
