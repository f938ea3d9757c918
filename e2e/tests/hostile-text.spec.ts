import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, startAppHost } from '../support/app-host.js';
import type { FakeModel } from '../support/fake-openai.js';
import { startFakeModel } from '../support/fake-openai.js';
import { TETHER_BIN, eventually, hostDataDir, makeDataDir, removeDataDir, tether } from '../support/host-process.js';

/**
 * What a model fed a hostile README proposed. Printed raw, a terminal shows only `npm test`: the
 * carriage return and the erase-line sequence paint a fake first line over the real second one.
 * The bidi isolate and zero-width space at the end draw nothing at all.
 */
const HIDDEN_LINE = 'npm test\ntouch /tmp/pwned # \r\x1b[2K│ npm test\u2066\u200b';
const SHOWN_LINES = ['npm test', 'touch /tmp/pwned # ⟨CR⟩⟨ESC⟩[2K│ npm test⟨U+2066⟩⟨U+200B⟩'];
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDING = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/u;

let model: FakeModel | undefined;
let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  await model?.close();
  host = model = undefined;
});

test.describe('a hostile action on a phone', () => {
  test.use(device('iPhone 15'));

  test('the approval card shows every line, marks hidden characters, and says how many lines', async ({ page }) => {
    model = await startFakeModel(HIDDEN_LINE);
    host = await startAppHost({ model: `openai-compatible:fake@${model.url}` });
    await pairThroughLink(page, host);
    await createSession(page, host, 'Set up the project as the README says');
    const card = page.locator('section.approval[data-status="pending"]');
    await expect(card).toBeVisible();
    await expect(card.locator('.lines-badge')).toHaveText('2 lines');
    const action = card.locator('.action');
    await expect(action.locator('.line')).toHaveText(SHOWN_LINES);
    expect(await action.textContent()).toBe(SHOWN_LINES.join('\n'));
    expect(await action.textContent()).not.toMatch(HIDING);
    await expect(action.locator('.hidden-char')).toHaveText(['⟨CR⟩', '⟨ESC⟩', '⟨U+2066⟩', '⟨U+200B⟩']);
    await expect(card.locator('.hidden-note')).toContainText('4 hidden characters are shown as ⟨…⟩ marks');
    // Marks are text, never markup the page could act on.
    expect(await action.evaluate((el) => el.querySelectorAll(':not(span)').length)).toBe(0);
  });

  test('Alt+A opens no dialog with the raw action: it moves to the card’s own Allow once', async ({ page }) => {
    model = await startFakeModel(HIDDEN_LINE);
    host = await startAppHost({ model: `openai-compatible:fake@${model.url}` });
    await pairThroughLink(page, host);
    await createSession(page, host, 'Set up the project as the README says');
    const card = page.locator('section.approval[data-status="pending"]');
    await expect(card).toBeVisible();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await card.locator('.action').focus();
    await page.keyboard.press('Alt+KeyA');
    const allow = card.getByRole('button', { name: 'Allow once' });
    await expect(allow).toBeFocused();
    await expect(card.locator('.shortcut-note')).toHaveText('Read the whole action above: Enter allows it once.');
    expect(dialogs).toEqual([]);
    // Nothing is answered until the person presses the button.
    await expect(card).toHaveAttribute('data-status', 'pending');
    await expect(card.locator('.action .line')).toHaveText(SHOWN_LINES);
  });
});

test('tether start prints the whole hostile action, escaped and numbered', async () => {
  model = await startFakeModel(HIDDEN_LINE);
  const dataDir = makeDataDir();
  const project = join(dataDir, 'project');
  mkdirSync(project);
  const start = spawn(
    process.execPath,
    [
      TETHER_BIN,
      'start',
      '--data-dir',
      hostDataDir(dataDir),
      '--bind',
      '127.0.0.1',
      '--port',
      '0',
      '--model',
      `openai-compatible:fake@${model.url}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TETHER_DATA_DIR: '' } },
  );
  let out = '';
  start.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => start.once('exit', () => resolve()));
  try {
    await eventually(() => (out.includes('is running') ? true : undefined), 15_000, 'the host to start');
    expect((await tether(dataDir, ['sessions', 'new', 'Set up the project'], { cwd: project })).code).toBe(0);
    const notice = await eventually(
      () => /approval .*\n(?:.*\n)*?.*answer: tether approve .*\n/.exec(out)?.[0],
      15_000,
      'the approval notice',
    );
    expect(notice).not.toMatch(HIDING);
    expect(notice).toContain(' — 2 lines\n');
    expect(notice).toContain(`  1 │ ${SHOWN_LINES[0]}\n  2 │ ${SHOWN_LINES[1]}\n`);
  } finally {
    start.kill('SIGTERM');
    await exited;
    removeDataDir(dataDir);
  }
});
