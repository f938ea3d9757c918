import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, sessionEvents, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';
import { expectTranscriptMatchesLog } from '../support/app-transcript.js';
import { tether } from '../support/host-process.js';

let host: AppHost;

test.afterEach(async () => {
  await host.stop();
});

test.describe('sessions on a phone', () => {
  test.use(device('iPhone 15'));

  test('a new session streams its reply, asks for approval, and shows the tool output', async ({ page }, testInfo) => {
    host = await startAppHost({ demoDelayMs: 20 });
    await pairThroughLink(page, host);
    await snap(page, testInfo, 'phone-sessions-empty');
    const sessionId = await createSession(page, host, 'List the files, please');
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect(transcript.locator('.msg.user')).toContainText('List the files, please');
    await expect(transcript.locator('.msg.assistant').first()).toContainText('built-in demo model');
    const card = page.locator('section.approval[data-status="pending"]');
    await expect(card).toBeVisible();
    await expect(card.locator('.action')).toHaveText('ls -la');
    await expect(card).toContainText(host.dataDir);
    await snap(page, testInfo, 'phone-approval');

    // The run is busy (waiting on the approval): a message now is queued for the turn's end.
    await page.getByLabel('Message', { exact: true }).fill('And once more, please');
    await page.getByRole('button', { name: 'Queue' }).click();
    await expect(page.locator('.outbox-item[data-outbox-mark="delivered"]')).toContainText(
      'On the computer: it goes to the agent when the current turn ends',
    );

    await card.getByRole('button', { name: 'Allow for session' }).click();
    await expect(page.locator('section.approval[data-status="allowed"]')).toContainText(
      'Allowed for this session on this device',
    );
    // The queued message runs the same command again, which the session's rule now allows.
    await expect(transcript.locator('.msg.user')).toHaveCount(2);
    await expect(transcript.locator('[data-run-status="done"]')).toBeVisible();
    const tools = transcript.locator('details.tool');
    await expect(tools).toHaveCount(2);
    await expect(tools.nth(1)).toHaveAttribute('data-status', 'ok');
    const tool = tools.first();
    await expect(tool).toHaveAttribute('data-status', 'ok');
    await tool.locator('summary').click();
    // `ls -la` in the root: the project, and the host's data dir beside it (a shell command may list it).
    await expect(tool.locator('.tool-output')).toContainText('.tether');
    await expect(transcript.locator('.msg.assistant').last()).toContainText('The command finished');
    await snap(page, testInfo, 'phone-session');
    await expectTranscriptMatchesLog(page, host, sessionId);

    // Scrolled up, the view stays put and offers a way back down.
    const scroller = page.locator('.transcript-wrap .scroll');
    await scroller.evaluate((el) => el.scrollTo(0, 0));
    const jump = page.getByRole('button', { name: /Jump to latest/ });
    await jump.click();
    await expect(jump).toBeHidden();
    expect(await scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(2);
  });

  test('Stop interrupts a run while its reply is still streaming', async ({ page }) => {
    host = await startAppHost({ demoDelayMs: 250 });
    await pairThroughLink(page, host);
    const sessionId = await createSession(page, host, 'Tell me something long');
    const transcript = page.getByRole('log', { name: 'Transcript' });
    const reply = transcript.locator('.msg.assistant[data-streaming="true"]');
    await expect(reply).toBeVisible();
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(transcript.locator('[data-run-status="interrupted"]')).toBeVisible();
    await expect(page.locator('[data-session-status]')).not.toHaveAttribute('data-session-status', 'running');
    await expect(page.getByRole('button', { name: 'Stop' })).toBeHidden();
    const events = await sessionEvents(host, sessionId);
    const finished = events.filter((e) => e.type === 'run.finished');
    expect(finished.map((e) => e.status)).toEqual(['interrupted']);
    // The cut-short reply stays, shorter than the whole demo text, and no tool ever ran.
    const shown = await transcript.locator('.msg.assistant').first().innerText();
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).not.toContain('approvals work');
    expect(events.some((e) => e.type === 'tool.started')).toBe(false);
    await expectTranscriptMatchesLog(page, host, sessionId);
  });

  test('an approval answered at the computer says who answered', async ({ page }) => {
    host = await startAppHost({ demoDelayMs: 5 });
    await pairThroughLink(page, host);
    await createSession(page, host, 'Ask me, then ask the computer');
    const card = page.locator('section.approval[data-status="pending"]');
    await expect(card).toBeVisible();
    const approvalId = await card.getAttribute('data-approval-id');
    expect((await tether(host.dataDir, ['approve', approvalId!, 'deny'])).code).toBe(0);
    const answered = page.locator(`section.approval[data-approval-id="${approvalId}"]`);
    await expect(answered).toHaveAttribute('data-status', 'denied');
    await expect(answered).toContainText('Denied at the computer');
    await expect(answered.getByRole('button')).toHaveCount(0);
  });
});
