import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, sessionEvents, startAppHost } from '../support/app-host.js';
import { eventually, tether } from '../support/host-process.js';
import type { LongRunModel } from '../support/long-run-model.js';
import { startLongRunModel } from '../support/long-run-model.js';

/**
 * Long runs on a phone and an iPad: a fake model makes hundreds of tool calls (thousands of
 * events); the app shows the end, keeps its DOM bounded, scrolls back to the first message, and
 * holds every event exactly once against the host's log, also after being offline for the whole run.
 */

let host: AppHost | undefined;
let model: LongRunModel | undefined;

test.afterEach(async () => {
  await host?.stop();
  await model?.close();
  host = model = undefined;
});

/** Elements in the document: the transcript is windowed, so this stays flat in the length. */
const MAX_DOM_ELEMENTS = 2500;
const STEPS = 300;

async function startLongRun(
  steps: number,
  writes = 0,
  maxModelCalls = 1000,
  more: { files?: Record<string, string>; args?: string[] } = {},
): Promise<AppHost> {
  model = await startLongRunModel(steps, { writes });
  host = await startAppHost({
    model: `openai-compatible:fake@${model.url}`,
    args: ['--max-model-calls', String(maxModelCalls), ...(more.args ?? [])],
    ...(more.files ? { files: more.files } : {}),
  });
  return host;
}

async function runFinished(h: AppHost, sessionId: string): Promise<Record<string, unknown>[]> {
  return eventually(
    async () => {
      const events = await sessionEvents(h, sessionId);
      return events.some((e) => e.type === 'run.finished') ? events : undefined;
    },
    120_000,
    'the long run to finish',
  );
}

/** Scrolls to the top until the first message is drawn and no gap is left. */
async function scrollToStart(page: Page): Promise<void> {
  const scroller = page.locator('.transcript-wrap .scroll');
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await expect(async () => {
    await scroller.evaluate((el) => el.scrollTo(0, 0));
    await expect(transcript).toHaveAttribute('data-gaps', '0', { timeout: 1000 });
    await expect(transcript.locator('.msg.user').first()).toHaveText(/Start the long run/, { timeout: 1000 });
  }).toPass({ timeout: 60_000 });
}

async function expectWhole(page: Page, events: Record<string, unknown>[]): Promise<void> {
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await expect(transcript).toHaveAttribute('data-last-seq', String(events.length));
  // Every event of the host's log folded in exactly once: the count equals the last number.
  await expect(transcript).toHaveAttribute('data-applied', String(events.length));
}

const domSize = (page: Page) => page.evaluate(() => document.getElementsByTagName('*').length);

/** What IndexedDB holds for the session: its items and first item kind, and its recorded size. */
const cached = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<{ items: number; first: string; bytes: number }>((resolve, reject) => {
        const open = indexedDB.open('tether');
        open.onerror = () => reject(new Error('no database'));
        open.onsuccess = () => {
          const tx = open.result.transaction(['transcripts', 'transcriptSizes']);
          const rows = tx.objectStore('transcripts').getAll();
          const sizes = tx.objectStore('transcriptSizes').getAll();
          tx.oncomplete = () => {
            const row = (rows.result as { state: { items: { kind: string }[] } }[])[0];
            const size = (sizes.result as { bytes: number }[])[0];
            open.result.close();
            resolve({
              items: row?.state.items.length ?? 0,
              first: row?.state.items[0]?.kind ?? '',
              bytes: size?.bytes ?? 0,
            });
          };
        };
      }),
  );

for (const name of ['iPad Pro 11', 'iPhone 15'] as const) {
  test.describe(name, () => {
    test.use(device(name));

    test(`a run of ${STEPS} tool calls: the end shown, the DOM bounded, back to the first message`, async ({
      page,
    }) => {
      test.setTimeout(240_000);
      const h = await startLongRun(STEPS);
      await pairThroughLink(page, h);
      const sessionId = await createSession(page, h, 'Start the long run');
      const events = await runFinished(h, sessionId);
      expect(events.length).toBeGreaterThan(1500);
      const transcript = page.getByRole('log', { name: 'Transcript' });
      await expect(transcript.getByText('THE END')).toBeVisible({ timeout: 30_000 });
      await expectWhole(page, events);
      expect(await domSize(page)).toBeLessThan(MAX_DOM_ELEMENTS);
      // The cache holds the newest items only, the rest as one gap, with its size kept for eviction.
      await expect(transcript).toHaveAttribute('data-saved-seq', String(events.length));
      const stored = await cached(page);
      expect(stored.items).toBeLessThanOrEqual(401);
      expect(stored.first).toBe('gap');
      expect(stored.bytes).toBeGreaterThan(1000);
      await scrollToStart(page);
      expect(await domSize(page)).toBeLessThan(MAX_DOM_ELEMENTS);
      await expectWhole(page, events);
      await page.getByRole('button', { name: /Jump to latest/ }).click();
      await expect(transcript.getByText('THE END')).toBeVisible();
    });
  });
}

test.describe('offline for a whole long run', () => {
  test.use(device('iPhone 15'));

  test('catches up from the newest page, shows the end, then pages the rest in', async ({ page, context }) => {
    test.setTimeout(240_000);
    const h = await startLongRun(STEPS);
    await pairThroughLink(page, h);
    const sessionId = await createSession(page, h, 'Start the long run');
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await context.setOffline(true);
    await expect(page.locator('[data-banner="offline"]')).toBeVisible();
    const seenOffline = Number(await transcript.getAttribute('data-last-seq'));
    const events = await runFinished(h, sessionId);
    expect(events.length - seenOffline).toBeGreaterThan(1000);

    await context.setOffline(false);
    await expect(transcript.getByText('THE END')).toBeVisible({ timeout: 30_000 });
    await expect(transcript).toHaveAttribute('data-last-seq', String(events.length));
    // Only the newest page was replayed: the rest waits behind a gap until scrolled to.
    expect(Number(await transcript.getAttribute('data-applied'))).toBeLessThan(events.length);
    expect(await domSize(page)).toBeLessThan(MAX_DOM_ELEMENTS);
    await scrollToStart(page);
    await expectWhole(page, events);
  });
});

test.describe('changes', () => {
  test.use(device('iPad Pro 11'));

  test('the Changes view lists every written file with its diff, newest first', async ({ page }) => {
    test.setTimeout(120_000);
    const h = await startLongRun(3, 3);
    await pairThroughLink(page, h);
    const sessionId = await createSession(page, h, 'Start the long run');
    expect((await tether(h.dataDir, ['sessions', 'auto-approve', sessionId, 'on'])).code).toBe(0);
    const transcript = page.getByRole('log', { name: 'Transcript' });
    // A write asked before auto-approve was on waits for an answer.
    const allow = transcript.getByRole('button', { name: 'Allow once' });
    await expect(async () => {
      if (await allow.count()) await allow.first().click();
      await expect(transcript.getByText('THE END')).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 60_000 });

    await page.getByRole('button', { name: 'Changes' }).click();
    const changes = page.getByRole('region', { name: 'Changes' });
    const files = changes.locator('.file-diff');
    await expect(files).toHaveCount(3);
    expect(await files.evaluateAll((els) => els.map((el) => el.getAttribute('data-path')))).toEqual([
      'out/step-2.txt',
      'out/step-1.txt',
      'out/step-0.txt',
    ]);
    await expect(files.first().locator('.diff-add')).toContainText(['+step 2']);
    await expect(files.first()).toHaveAttribute('data-change', 'created');
  });
});

test.describe('the model-call limit', () => {
  test.use(device('iPad Pro 11'));

  test('a run stopped at its limit shows "waiting for you", and Go on finishes it', async ({ page }) => {
    test.setTimeout(120_000);
    const h = await startLongRun(5, 0, 3, {
      files: { 'AGENTS.md': 'Keep replies short.' },
      args: ['--context-window', '8192'],
    });
    await pairThroughLink(page, h);
    const sessionId = await createSession(page, h, 'Start the long run');
    const glance = page.getByRole('region', { name: 'Run at a glance' });
    await expect(glance).toHaveAttribute('data-paused', 'true');
    await expect(glance).toContainText('3 / 3');
    // The instruction files the run took in (the session folder holds the data dir, .tether: the
    // computer's own file, once, named from the session folder), and how full the context is.
    await expect(glance.locator('.run-instructions dd')).toHaveText('.tether/AGENTS.md');
    await expect(glance.locator('.run-context dd')).toContainText('of 8.2 k');
    await expect(page.locator(`[data-session-id="${sessionId}"] [data-paused="true"]`)).toHaveText('waiting for you');
    // The session's own limit, set from the app.
    await glance.getByText(/Model calls per run: 3 \(the computer's\)/).click();
    await glance.getByLabel('Limit').fill('10');
    await glance.getByRole('button', { name: 'Set' }).click();
    await expect(glance.getByText('Model calls per run: 10 (this session)')).toBeVisible();
    await page.getByRole('button', { name: 'Go on' }).click();
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect(transcript.getByText('THE END')).toBeVisible();
    await expect(glance).toHaveAttribute('data-paused', 'false');
    await expect(page.locator(`[data-session-id="${sessionId}"] [data-paused]`)).toHaveCount(0);
  });
});
