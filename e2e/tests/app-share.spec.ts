import type { Browser, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, sessionEvents, startAppHost } from '../support/app-host.js';
import type { FakeModel } from '../support/fake-openai.js';
import { startFakeModel } from '../support/fake-openai.js';
import { tetherJson } from '../support/host-process.js';
import { startLongRunModel } from '../support/long-run-model.js';
import { revokeLink, runFinished, shareSession, startSessionAtComputer } from '../support/share-link.js';

/**
 * Share links in the browser: whoever opens one (no pairing, no prompt at the computer) follows
 * that one session live, read-only, masked; the phone makes, lists and revokes them from the
 * session's menu. Through a relay: see app-share-relay.spec.ts.
 */

const STEPS = 300;
const SECRET = 'sk-live-abc123def456ghi789';

let host: AppHost | undefined;
let model: FakeModel | undefined;

test.afterEach(async () => {
  await host?.stop();
  await model?.close();
  host = model = undefined;
});

/** Page errors of every viewer page opened in a test: there must be none. */
const pageErrors: string[] = [];
test.afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

/** A browser of someone else's: a context of its own, nothing paired in it. */
async function viewerPage(browser: Browser, url: string): Promise<Page> {
  const context = await browser.newContext(device('iPhone 15'));
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(url);
  await expect(page.locator('[data-screen="viewer"]')).toBeVisible();
  return page;
}

/** Scrolls to the top until the first message is drawn and no gap is left. */
async function scrollToStart(page: Page, first: RegExp): Promise<void> {
  const scroller = page.locator('.transcript-wrap .scroll');
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await expect(async () => {
    await scroller.evaluate((el) => el.scrollTo(0, 0));
    await expect(transcript).toHaveAttribute('data-gaps', '0', { timeout: 1000 });
    await expect(transcript.locator('.msg.user').first()).toHaveText(first, { timeout: 1000 });
  }).toPass({ timeout: 60_000 });
}

/** Every event of the host's log folded in exactly once: the count equals the last number. */
async function expectWhole(page: Page, events: readonly unknown[]): Promise<void> {
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await expect(transcript).toHaveAttribute('data-last-seq', String(events.length), { timeout: 30_000 });
  await expect(transcript).toHaveAttribute('data-applied', String(events.length));
}

test.describe('a share link', () => {
  test.use(device('iPhone 15'));

  test(`a viewer follows a ${STEPS}-step run live, 0 missing, 0 doubled; another catches up from the start`, async ({
    browser,
  }) => {
    test.setTimeout(300_000);
    model = await startLongRunModel(STEPS, { stepMs: 15 });
    host = await startAppHost({
      model: `openai-compatible:fake@${model.url}`,
      args: ['--max-model-calls', '1000'],
      files: { 'notes.txt': 'a line\n' },
    });
    const sessionId = await startSessionAtComputer(host, 'Start the long run');
    const made = await shareSession(host, sessionId, ['--name', 'for the review']);
    expect(made.url.startsWith(`${host.url}/#view=1.`)).toBe(true);
    const live = await viewerPage(browser, made.url);
    const transcript = live.getByRole('log', { name: 'Transcript' });
    await expect(transcript).toHaveAttribute('data-live', 'true');
    const events = await runFinished(host, sessionId);
    expect(events.length).toBeGreaterThan(1500);
    await expect(transcript.getByText('THE END')).toBeVisible({ timeout: 30_000 });
    await scrollToStart(live, /Start the long run/);
    await expectWhole(live, events);
    // Nothing to answer or send: no composer, no buttons of an approval, no menu.
    await expect(live.locator('.composer, [aria-label="Session menu"]')).toHaveCount(0);

    // Opened after the run: the newest events first, the rest paged in as it scrolls up.
    const late = await viewerPage(browser, made.url);
    await expect(late.getByRole('log', { name: 'Transcript' }).getByText('THE END')).toBeVisible();
    await scrollToStart(late, /Start the long run/);
    await expectWhole(late, events);
    const listed = await tetherJson<{ id: string; viewers: number; name: string }[]>(host.dataDir, ['share', '--list']);
    expect(listed).toEqual([expect.objectContaining({ id: made.link.id, viewers: 2, name: 'for the review' })]);
  });

  test('a secret in a command is masked for the viewer, who sees the approval wait without its buttons', async ({
    browser,
    page,
  }) => {
    model = await startFakeModel(`curl -H "Authorization: Bearer ${SECRET}" https://api.example.com/deploy`);
    host = await startAppHost({ model: `openai-compatible:fake@${model.url}` });
    await pairThroughLink(page, host);
    const sessionId = await createSession(page, host, 'Deploy it');
    // The owner's phone shows the whole command, to decide on it.
    const pending = page.locator('section.approval[data-status="pending"]');
    await expect(pending.locator('.action')).toContainText(SECRET);
    const made = await shareSession(host, sessionId);
    const viewer = await viewerPage(browser, made.url);
    const card = viewer.locator('section.approval[data-status="pending"]');
    await expect(card.locator('.action')).toContainText('Authorization: Bearer •••');
    await expect(card.getByRole('button')).toHaveCount(0);
    expect(await viewer.content()).not.toContain(SECRET);
    // Answered on the phone, the viewer sees it resolved, still masked.
    await pending.getByRole('button', { name: 'Allow once' }).click();
    await expect(viewer.locator('[data-run-status="done"]')).toBeVisible();
    expect(await viewer.content()).not.toContain(SECRET);
  });

  test('the phone shares from the session menu: link and QR code, the list, and revoke cuts the viewer off', async ({
    browser,
    page,
  }) => {
    host = await startAppHost({ demoDelayMs: 20 });
    await pairThroughLink(page, host);
    const sessionId = await createSession(page, host, 'Show me how approvals work');
    await page.getByLabel('Session menu').click();
    await page.getByRole('button', { name: 'Share…' }).click();
    await expect(page.locator('[data-screen="share"]')).toBeVisible();
    await page.getByLabel('Works for').selectOption('1h');
    await page.getByLabel(/^Name/).fill('for Sam');
    await page.getByRole('button', { name: 'Make link' }).click();
    const url = await page.locator('[data-share-url]').getAttribute('data-share-url');
    expect(url).toMatch(/#view=1\./);
    await expect(page.getByRole('img', { name: 'QR code of the link' })).toBeVisible();

    const viewer = await viewerPage(browser, url!);
    await expect(viewer.locator('section.approval[data-status="pending"]')).toBeVisible();
    const links = page.getByRole('list', { name: 'Links to this session' });
    await expect(links.getByText('for Sam')).toBeVisible();
    await expect(links.getByText('1 viewing')).toBeVisible({ timeout: 15_000 });

    // Revoked from the phone: the viewer is told, and the link never works again.
    await links.getByRole('button', { name: 'Revoke' }).click();
    await expect(viewer.locator('[data-viewer-banner="refused"]')).toHaveText(/revoked/);
    await expect(links.locator('[data-state="revoked"]')).toBeVisible();
    await viewer.reload();
    await expect(viewer.locator('[data-viewer-banner="refused"]')).toHaveText(/revoked/);
    const events = await sessionEvents(host, sessionId);
    expect(events.length).toBeGreaterThan(0);
  });

  test('revoked at the computer, a viewer is cut off within a second', async ({ browser }) => {
    host = await startAppHost({ demoDelayMs: 20 });
    const sessionId = await startSessionAtComputer(host, 'Show me how approvals work');
    const made = await shareSession(host, sessionId, ['--expires', '1h']);
    const viewer = await viewerPage(browser, made.url);
    await expect(viewer.locator('[data-viewer-state="open"]')).toBeVisible();
    const refusedAt = viewer.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const screen = document.querySelector('[data-screen="viewer"]')!;
          const look = () => screen.getAttribute('data-viewer-state') === 'refused' && resolve(Date.now());
          new MutationObserver(look).observe(screen, { attributes: true });
        }),
    );
    const asked = Date.now();
    await revokeLink(host, made.link.id);
    const returned = Date.now();
    // No later than a second after `tether share --revoke` returned (it returns once the host cut
    // the link's viewers off; the host's own timing is in host/src/share/share-remote.test.ts).
    const refused = await refusedAt;
    expect(refused).toBeGreaterThanOrEqual(asked);
    expect(refused - returned).toBeLessThan(1000);
    await expect(viewer.locator('[data-viewer-banner="refused"]')).toHaveText(
      'This link was revoked. Ask for a new one.',
    );
  });
});
