import { Key } from 'selenium-webdriver';
import type { AppHost } from '../support/app-host.js';
import { sessionEvents, startAppHost } from '../support/app-host.js';
import { eventually, tether, tetherJson } from '../support/host-process.js';
import type { WebKitPhone } from '../support/webkit-phone.js';
import { pairByLink, startSession } from '../support/webkit-app.js';
import { expect, test } from '../support/webkit-test.js';

/**
 * Steering a session from Safari's engine on a phone-sized screen: the slash commands listed as
 * `/` is typed, plan mode switched from the mode chip, and a budget reached, shown, raised, and the
 * run going on. (WebKitGTK cannot receive a push here: the notification itself is tested in
 * Chromium, app-steer.spec.ts; here the session says it waits.)
 */

// Pairing, a session with an approval and a run or two, through a real host and WebKit: minutes on a loaded machine.
test.describe.configure({ timeout: 240_000 });

let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const BOX = '#composer-text';
const commandsShown = (phone: WebKitPhone) =>
  phone.run<string[]>(
    "return [...document.querySelectorAll('#composer-commands [data-command]')].map((e) => e.dataset.command)",
  );
const boxValue = (phone: WebKitPhone) => phone.run<string>(`return document.querySelector('${BOX}').value`);
/** Empties a field the way typing does (Preact reads the input event). */
const clear = (phone: WebKitPhone, css: string) =>
  phone.run(
    `const el = document.querySelector('${css}'); el.value = ''; el.dispatchEvent(new Event('input', { bubbles: true }));`,
  );

async function summary(id: string) {
  const all = await tetherJson<
    { id: string; status: string; mode?: { id: string }; activity?: Record<string, number> }[]
  >(host!.dataDir, ['sessions']);
  return all.find((s) => s.id === id)!;
}

/** A demo session, its first command allowed from the phone; its later actions run without asking. */
async function quietSession(phone: WebKitPhone, text: string): Promise<string> {
  const id = await startSession(phone, text);
  await phone.clickButton('Allow once', 'section.approval[data-status="pending"]');
  await eventually(async () => ((await summary(id)).status === 'idle' ? true : undefined), 60_000);
  expect((await tether(host!.dataDir, ['sessions', 'auto-approve', id, 'on'])).code).toBe(0);
  return id;
}

test('typing / lists the commands; the list follows what is typed; keys and taps pick one', async ({ phone }) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairByLink(phone, host);
  await quietSession(phone, 'Say hello');

  await phone.type(BOX, '/');
  await expect.poll(() => commandsShown(phone)).toEqual(['compact', 'model', 'mode', 'plan', 'clear', 'help']);
  expect(await phone.text('#composer-commands [data-command="compact"]')).toContain('Compact the conversation now');
  await phone.keys('mo');
  await expect.poll(() => commandsShown(phone)).toEqual(['model', 'mode']);
  await phone.keys(Key.ARROW_DOWN);
  await expect.poll(() => phone.attr('#composer-commands [data-command="mode"]', 'aria-selected')).toBe('true');
  await phone.keys(Key.ENTER);
  await expect.poll(() => boxValue(phone)).toBe('/mode ');
  await expect.poll(() => phone.shown('#composer-commands')).toBe(false);

  // Typed fast, the way a thumb does: the key after the letters moves the highlight, not undone
  // by the list catching up with the letters.
  await clear(phone, BOX);
  await phone.type(BOX, '/');
  await expect.poll(async () => (await commandsShown(phone)).length).toBe(6);
  await phone.keys(`mo${Key.ARROW_DOWN}${Key.ENTER}`);
  await expect.poll(() => boxValue(phone)).toBe('/mode ');

  await clear(phone, BOX);
  await phone.type(BOX, '/he');
  await phone.click('#composer-commands [data-command="help"]');
  await expect.poll(() => boxValue(phone)).toBe('/help ');
  await phone.clickButton('Send');
  await expect
    .poll(async () => (await phone.text('[role="log"][aria-label="Transcript"]')) ?? '')
    .toContain('Commands:');
});

test('the mode chip switches to plan mode', async ({ phone }) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairByLink(phone, host);
  const id = await quietSession(phone, 'Say hello');
  await expect.poll(() => phone.text('[data-steer="mode"]')).toBe('Mode Default');
  await phone.click('[data-steer="mode"]');
  await phone.click('[data-steer-panel="mode"] [data-choice="plan"]');
  await expect.poll(() => phone.text('[data-steer="mode"]')).toBe('Mode Plan');
  expect((await summary(id)).mode?.id).toBe('plan');
});

test('a budget set from the phone is reached, the session says it waits, and raised there it goes on', async ({
  phone,
}) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairByLink(phone, host);
  const id = await quietSession(phone, 'List the files');
  const spent = (await summary(id)).activity!;
  await phone.click('[data-steer="budget"]');
  await phone.type('input[name="budget-tokens"]', String(spent.inputTokens! + spent.outputTokens! + 10));
  await phone.clickButton('Set a budget');
  await expect.poll(async () => (await phone.text('[data-steer="budget"]')) ?? '').toContain('tokens of');

  await phone.type(BOX, 'List them again');
  await phone.clickButton('Send');
  await expect.poll(() => phone.shown('[data-budget-reached]'), { timeout: 60_000 }).toBe(true);
  expect(await phone.text('[data-budget-reached]')).toContain('Budget reached');
  await phone.clickButton('Raise budget');
  await clear(phone, 'input[name="budget-tokens"]');
  await phone.type('input[name="budget-tokens"]', '1000000');
  await phone.clickButton('Set budget');
  await expect.poll(() => phone.shown('[data-budget-reached]')).toBe(false);
  await eventually(
    async () => {
      const ends = (await sessionEvents(host!, id)).filter((e) => e.type === 'run.finished');
      return ends.length >= 3 && ends.at(-1)!.status === 'done' ? true : undefined;
    },
    60_000,
    'the run after the raise',
  );
});
