import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';

/** The terminal's rows as xterm draws them (text only: output never becomes markup). */
export const terminalRows = (page: Page) => page.locator('[data-terminal-view] .xterm-rows');

/** The visible lines of the terminal, trailing blanks trimmed. */
export const terminalLines = (page: Page) =>
  terminalRows(page).evaluate((element) => [...element.children].map((row) => (row.textContent ?? '').trimEnd()));

/** Resolves once some visible line matches `pattern` (a whole line unless it says otherwise). */
export async function seeLine(page: Page, pattern: RegExp, timeout = 15_000): Promise<void> {
  await expect.poll(async () => (await terminalLines(page)).some((line) => pattern.test(line)), { timeout }).toBe(true);
}

export async function noLine(page: Page, pattern: RegExp): Promise<void> {
  await expect.poll(async () => (await terminalLines(page)).some((line) => pattern.test(line))).toBe(false);
}

/** Types a command line into the terminal, as the phone's keyboard would. */
export async function typeLine(page: Page, line: string): Promise<void> {
  await page.locator('[data-terminal-view]').click();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}
