import type { AppHost, PairRequestLine } from './app-host.js';
import { allowPairRequest, nextPairRequest } from './app-host.js';
import type { ShownTranscript } from './app-transcript.js';
import { readTranscript } from './app-transcript.js';
import { eventually } from './host-process.js';
import type { WebKitPhone } from './webkit-phone.js';
import { expect } from './webkit-test.js';

/**
 * The app's flows on a WebKit phone, as `app-host.ts` has them for Playwright's pages: pairing by
 * link with the code checked at the computer, starting a session.
 */

/** The route in the address (`#/h/…`), for waiting on screens. */
export const hashOf = (phone: WebKitPhone) => phone.run<string>('return location.hash');

/**
 * Opens the pairing link; once the computer prints its request, checks that the phone shows the
 * same code, allows it there, and waits for the computer's sessions, connected. `loaded` runs
 * once the page has loaded, before the app's first connection (to put a watcher in the page).
 */
export async function pairByLink(
  phone: WebKitPhone,
  host: AppHost,
  link = host.pairUrl,
  loaded?: () => Promise<void>,
): Promise<PairRequestLine> {
  await phone.open(link);
  await loaded?.();
  const request = await nextPairRequest(host);
  await expect.poll(() => phone.attr('[data-pairing-code]', 'data-pairing-code')).toBe(request.code);
  await allowPairRequest(host, request.id);
  await expectConnectedSessions(phone);
  return request;
}

export async function expectConnectedSessions(phone: WebKitPhone): Promise<void> {
  await expect.poll(() => hashOf(phone)).toMatch(/^#\/h\/[^/]+$/);
  // The status itself, not whether one is "connected": a failure then says where it stuck.
  await expect
    .poll(() => phone.attr('[data-screen="sessions"] [data-host-status]', 'data-host-status'))
    .toBe('connected');
}

/** Starts a session from the app in the computer's root folder, with a first message; its id. */
export async function startSession(phone: WebKitPhone, text: string): Promise<string> {
  await phone.clickButton('New session');
  await phone.clickButton('Browse folders on the computer');
  await expect.poll(() => phone.shown('ul.folders[aria-label="Folders"] button')).toBe(true);
  await phone.click('ul.folders[aria-label="Folders"] button');
  await expect.poll(() => phone.run<string>("return document.getElementById('session-folder').value")).not.toBe('');
  await phone.type('#session-text', text);
  await phone.clickButton('Start session');
  await expect.poll(() => phone.shown('[data-screen="session"]')).toBe(true);
  return eventually(async () => /\/s\/([^/]+)$/.exec(await hashOf(phone))?.[1], 15_000, 'the session route');
}

/** The transcript as the phone shows it (see app-transcript.ts). */
export function shownTranscript(phone: WebKitPhone): Promise<ShownTranscript> {
  return phone.run<ShownTranscript>(
    `return (${readTranscript.toString()})(document.querySelector('[role="log"][aria-label="Transcript"]'))`,
  );
}

/** The visible lines of the terminal, trailing blanks trimmed (see terminal-screen.ts). */
export function terminalLines(phone: WebKitPhone): Promise<string[]> {
  return phone.run<string[]>(
    `const rows = document.querySelector('[data-terminal-view] .xterm-rows');
     return rows ? [...rows.children].map((row) => (row.textContent || '').trimEnd()) : [];`,
  );
}

/** Resolves once some visible terminal line matches `pattern`. */
export async function seeTerminalLine(phone: WebKitPhone, pattern: RegExp, timeout = 15_000): Promise<void> {
  await expect
    .poll(async () => (await terminalLines(phone)).some((line) => pattern.test(line)), { timeout })
    .toBe(true);
}
