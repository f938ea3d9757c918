import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';
import { tetherJson } from '../support/host-process.js';
import { noLine, seeLine, terminalRows, typeLine } from '../support/terminal-screen.js';

let host: AppHost;

// Each test drives a real shell through several programs on a busy machine.
test.setTimeout(120_000);

test.afterEach(async () => {
  await host.stop();
});

async function openFromHost(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Terminal', exact: true }).click();
  await expect(page.locator('[data-screen="terminal"]')).toHaveAttribute('data-terminal-status', 'live');
  await seeLine(page, /[$#]$/);
}

test.describe('terminals on a phone', () => {
  test.use(device('iPhone 15'));

  test('a shell on the host: echo, a full-screen program, Ctrl-C from the key bar, offline and back', async ({
    page,
    context,
  }, testInfo) => {
    host = await startAppHost();
    await pairThroughLink(page, host);
    await openFromHost(page);

    // The echo's output line, not the command line typed (which has the quotes).
    await typeLine(page, "echo hel''lo");
    await seeLine(page, /^hello$/);

    // A full-screen program draws its screen; quitting restores the shell's.
    await typeLine(page, 'vi notes.txt');
    await seeLine(page, /^~$/);
    await expect(terminalRows(page)).toContainText('notes.txt');
    await snap(page, testInfo, 'phone-terminal-vi');
    await page.keyboard.type(':q!');
    await page.keyboard.press('Enter');
    await noLine(page, /^~$/);

    // Ctrl (one-shot) from the key bar, then c on the keyboard: Ctrl-C stops `sleep 100`.
    await typeLine(page, 'sleep 100');
    const ctrl = page.locator('.key-bar [data-key="ctrl"]');
    await ctrl.click();
    await expect(ctrl).toHaveAttribute('data-state', 'once');
    await page.keyboard.type('c');
    await expect(ctrl).toHaveAttribute('data-state', 'off');
    await typeLine(page, 'echo after-$((40+2))');
    await seeLine(page, /^after-42$/);
    // The symbols phones hide: a pipe from the key bar.
    await page.locator('[data-terminal-view]').click();
    await page.keyboard.type('echo abc ');
    await page.locator('.key-bar [data-key="|"]').click();
    await page.keyboard.type(' tr a-c x-z');
    await page.keyboard.press('Enter');
    await seeLine(page, /^xyz$/);
    await snap(page, testInfo, 'phone-terminal');

    // Offline: the screen says so; output made meanwhile arrives once back.
    await typeLine(page, 'sleep 2; echo while-$((2+3))-away');
    await context.setOffline(true);
    await expect(page.locator('[data-terminal-message]')).toHaveText('Reconnecting…');
    await expect(page.locator('[data-screen="terminal"]')).toHaveAttribute('data-terminal-status', 'reconnecting');
    await snap(page, testInfo, 'phone-terminal-reconnecting');
    await page.waitForTimeout(2500);
    await context.setOffline(false);
    await expect(page.locator('[data-screen="terminal"]')).toHaveAttribute('data-terminal-status', 'live');
    await seeLine(page, /^while-5-away$/);
    await expect(page.locator('[data-terminal-message]')).toBeHidden();

    // The host lists it, with this device attached.
    const listed = await tetherJson<{ id: string; attached: number; status: string }[]>(host.dataDir, ['terminals']);
    expect(listed).toEqual([expect.objectContaining({ attached: 1, status: 'running' })]);
  });

  test('comes back to the same screen after the page is reloaded, past what the host keeps of the output', async ({
    page,
  }) => {
    host = await startAppHost();
    await pairThroughLink(page, host);
    await openFromHost(page);
    // More output than the host's backlog holds: a reload gets the screen itself, not a replay.
    await typeLine(page, 'seq 1 100000; echo seq-done');
    await seeLine(page, /^seq-done$/, 30_000);
    await typeLine(page, 'vi notes.txt');
    await seeLine(page, /^~$/);
    await page.reload();
    await expect(page.locator('[data-screen="terminal"]')).toHaveAttribute('data-terminal-status', 'live');
    await seeLine(page, /^~$/);
    await expect(terminalRows(page)).toContainText('notes.txt');
    await page.locator('[data-terminal-view]').click();
    await page.keyboard.type(':q!');
    await page.keyboard.press('Enter');
    await seeLine(page, /^seq-done$/);
  });
});

test.describe('terminals on a tablet', () => {
  test.use(device('iPad Pro 11'));

  test('opens from a session in its folder, in the right pane beside the sessions', async ({ page }, testInfo) => {
    host = await startAppHost();
    await pairThroughLink(page, host);
    await createSession(page, host, 'Hello');
    await page.locator('[data-screen="session"]').getByRole('button', { name: 'Terminal', exact: true }).click();
    const detail = page.locator('[data-pane="detail"]');
    await expect(detail.locator('[data-screen="terminal"]')).toHaveAttribute('data-terminal-status', 'live');
    await expect(page.locator('[data-pane="list"] [data-screen="sessions"]')).toBeVisible();
    await typeLine(page, 'pwd');
    await expect(terminalRows(page)).toContainText(host.dataDir);
    await snap(page, testInfo, 'tablet-terminal');
    await page.getByRole('button', { name: 'Close' }).click();
    await expect.poll(async () => (await tetherJson<unknown[]>(host.dataDir, ['terminals'])).length).toBe(0);
  });
});

test.describe('a terminal and the page policy', () => {
  test.use(device('iPhone 15'));

  test('draws its sizes and colours with nothing refused by the page policy: the console stays clean', async ({
    page,
  }) => {
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    // What the policy refused, as the page itself hears it (both engines send this event).
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`refused by the policy: ${e.violatedDirective} ${e.sample}`);
      });
    });
    host = await startAppHost();
    await pairThroughLink(page, host);
    await openFromHost(page);
    // A 16-colour red (xterm's rule for it) and a 24-bit colour: xterm writes the second as the cell's own style.
    await typeLine(page, String.raw`printf '\033[31mRED\033[0m \033[38;2;10;200;30mDEEP\033[0m\n'`);
    await seeLine(page, /^RED DEEP$/);
    const colour = (text: string) =>
      terminalRows(page)
        .locator('span', { hasText: new RegExp(`^${text}$`) })
        .evaluate((span) => getComputedStyle(span).color);
    expect(await colour('RED')).toBe('rgb(204, 0, 0)');
    expect(await colour('DEEP')).toBe('rgb(10, 200, 30)');
    // xterm's own rules apply: the rows' font and the cells laid out as blocks.
    const rows = await terminalRows(page).evaluate((el) => {
      const style = getComputedStyle(el);
      return { size: style.fontSize, colour: style.color, cell: getComputedStyle(el.querySelector('span')!).display };
    });
    expect(rows).toEqual({ size: '13px', colour: 'rgb(230, 230, 230)', cell: 'inline-block' });
    // A new size writes xterm's rules again.
    await page.setViewportSize({ width: 430, height: 700 });
    await typeLine(page, 'echo resized');
    await seeLine(page, /^resized$/);
    expect(errors).toEqual([]);
  });
});
