import { Key } from 'selenium-webdriver';
import type { AppHost } from '../support/app-host.js';
import { sessionEvents, startAppHost } from '../support/app-host.js';
import { expectShownTranscriptMatchesLog } from '../support/app-transcript.js';
import { tetherJson } from '../support/host-process.js';
import { pairByLink, seeTerminalLine, shownTranscript, startSession } from '../support/webkit-app.js';
import { expect, snapPhone, test } from '../support/webkit-test.js';

let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const TRANSCRIPT = '[role="log"][aria-label="Transcript"]';

test('a reply streams in, and an approval is answered from the phone', async ({ phone }, testInfo) => {
  // Slow enough to see the reply grow: about 30 chunks, 120 ms apart.
  host = await startAppHost({ demoDelayMs: 120 });
  await pairByLink(phone, host);
  const sessionId = await startSession(phone, 'Show me how approvals work');
  const streaming = `${TRANSCRIPT} .msg.assistant[data-streaming="true"]`;
  await expect.poll(() => phone.shown(streaming)).toBe(true);
  const early = (await phone.text(streaming)) ?? '';
  await expect
    .poll(async () => (await phone.text(`${TRANSCRIPT} .msg.assistant`))?.length ?? 0)
    .toBeGreaterThan(early.length);

  const pending = 'section.approval[data-status="pending"]';
  await expect.poll(() => phone.text(`${pending} .action`)).toBe('ls -la');
  expect(await phone.text(pending)).toContain(host.dataDir);
  await snapPhone(phone, testInfo, 'webkit-approval');
  await phone.clickButton('Allow once', pending);
  await expect.poll(() => phone.shown(`${TRANSCRIPT} [data-run-status="done"]`)).toBe(true);
  expect(await phone.text('section.approval[data-status="allowed"]')).toContain('Allowed once');
  const resolved = (await sessionEvents(host, sessionId)).filter((e) => e.type === 'approval.resolved');
  expect(resolved).toHaveLength(1);
  await expectShownTranscriptMatchesLog(() => shownTranscript(phone), host, sessionId);
  await snapPhone(phone, testInfo, 'webkit-session');
});

test('a terminal on the computer: typed into from the phone', async ({ phone }, testInfo) => {
  host = await startAppHost();
  await pairByLink(phone, host);
  await phone.clickButton('Terminal');
  await expect.poll(() => phone.attr('[data-screen="terminal"]', 'data-terminal-status')).toBe('live');
  await seeTerminalLine(phone, /[$#]$/);
  // Tapped, the terminal takes the keyboard (xterm's hidden textarea has the focus).
  await phone.click('[data-terminal-view]');
  await phone.keys(`echo hel''lo-$((40+2))${Key.ENTER}`);
  await seeTerminalLine(phone, /^hello-42$/);
  // A symbol from the key bar, then more typing.
  await phone.keys('echo abc ');
  await phone.click('.key-bar [data-key="|"]');
  await phone.keys(` tr a-c x-z${Key.ENTER}`);
  await seeTerminalLine(phone, /^xyz$/);
  await snapPhone(phone, testInfo, 'webkit-terminal');
  const listed = await tetherJson<{ attached: number; status: string }[]>(host.dataDir, ['terminals']);
  expect(listed).toEqual([expect.objectContaining({ attached: 1, status: 'running' })]);
});
