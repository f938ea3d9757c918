import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, sessionEvents, startAppHost } from '../support/app-host.js';
import { eventually, tether, tetherJson } from '../support/host-process.js';
import type { PushServiceProcess } from '../support/push-service-process.js';
import { startPushService } from '../support/push-service-process.js';

/**
 * Steering a session from the phone (Chromium, an emulated iPhone; the notification on an Android
 * phone, where headless Chromium can show one): the slash commands listed as `/` is typed, the
 * mode switched, and a budget reached, notified, raised, and the run going on.
 */

let host: AppHost | undefined;
let pushService: PushServiceProcess | undefined;

// Pairing, a session with an approval and a run or two, each through a real host and browser: on a
// loaded 2-core machine that is minutes, not the default minute.
test.describe.configure({ timeout: 180_000 });

test.afterEach(async () => {
  await host?.stop();
  await pushService?.stop();
  host = pushService = undefined;
});

const box = (page: Page) => page.getByLabel('Message', { exact: true });
const options = (page: Page) => page.getByRole('listbox', { name: 'Commands' }).getByRole('option');

async function summary(id: string) {
  const all = await tetherJson<{ id: string; status: string; activity?: Record<string, unknown> }[]>(host!.dataDir, [
    'sessions',
  ]);
  return all.find((s) => s.id === id)!;
}

/** A session of the demo model, its first command allowed from the phone, then its actions run without asking. */
async function quietSession(page: Page, text: string): Promise<string> {
  const id = await createSession(page, host!, text);
  await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Allow once' }).click();
  await eventually(async () => ((await summary(id)).status === 'idle' ? true : undefined), 30_000);
  expect((await tether(host!.dataDir, ['sessions', 'auto-approve', id, 'on'])).code).toBe(0);
  return id;
}

test.describe('on an iPhone', () => {
  test.use(device('iPhone 15'));

  test('typing / lists the session’s commands with what each does; the list follows what is typed; keys and taps pick one', async ({
    page,
  }) => {
    host = await startAppHost({ demoDelayMs: 5 });
    await pairThroughLink(page, host);
    await quietSession(page, 'Say hello');

    await box(page).fill('/');
    await expect(options(page)).toHaveText([
      /\/compact \[what to keep in focus\]\s*Tether\s*Compact the conversation now/,
      /\/model \[model\]/,
      /\/mode \[mode\]/,
      /\/plan\s*Tether\s*Plan mode/,
      /\/clear/,
      /\/help/,
    ]);
    await box(page).fill('/mo');
    await expect(options(page)).toHaveText([/^\/model/, /^\/mode/]);
    await expect(options(page).first()).toHaveAttribute('aria-selected', 'true');
    await box(page).press('ArrowDown');
    await expect(options(page).nth(1)).toHaveAttribute('aria-selected', 'true');
    await box(page).press('Enter');
    await expect(box(page)).toHaveValue('/mode ');
    await expect(page.getByRole('listbox', { name: 'Commands' })).toBeHidden();

    // A tap on a command does the same; sent, it is carried out.
    await box(page).fill('/he');
    await options(page).first().tap();
    await expect(box(page)).toHaveValue('/help ');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.locator('.transcript').getByText(/^Commands:/)).toBeVisible();
    await box(page).fill('/nothing');
    await expect(page.getByText('No command starts with /nothing.', { exact: false })).toBeVisible();
  });

  test('the mode chip switches to plan mode, and a switch made at the computer shows live', async ({ page }) => {
    host = await startAppHost({ demoDelayMs: 5 });
    await pairThroughLink(page, host);
    const id = await quietSession(page, 'Say hello');
    const chip = page.locator('[data-steer="mode"]');
    await expect(chip).toHaveText('Mode Default');
    await chip.tap();
    await page.locator('[data-steer-panel="mode"] [data-choice="plan"]').tap();
    await expect(chip).toHaveText('Mode Plan');
    await expect(page.locator('[data-steer-panel="mode"]')).toBeHidden();
    expect((await summary(id)) as unknown).toMatchObject({ mode: { id: 'plan', name: 'Plan' } });
    expect((await tether(host.dataDir, ['sessions', 'mode', id, 'default'])).code).toBe(0);
    await expect(chip).toHaveText('Mode Default');
    await expect(page.locator('[data-steer="model"]')).toHaveText('Model demo');
  });
});

test.describe('on an Android phone', () => {
  // Headless Chromium shows notifications for an Android phone's page (see app-push.spec.ts).
  test.use(device('Pixel 7'));

  test('a run that reaches its budget away from the session notifies the phone; raised there, it goes on', async ({
    page,
    context,
  }) => {
    pushService = await startPushService();
    const subscription = await pushService.subscribe();
    host = await startAppHost({
      demoDelayMs: 5,
      env: { NODE_EXTRA_CA_CERTS: pushService.caFile },
      files: { 'notifications.json': JSON.stringify({ pushServices: [pushService.origin] }) },
    });
    await context.grantPermissions(['notifications'], { origin: host.url });
    await context.addInitScript((sub) => {
      let current: unknown = null;
      const fake = {
        endpoint: sub.endpoint,
        options: { applicationServerKey: null, userVisibleOnly: true },
        toJSON: () => ({ endpoint: sub.endpoint, keys: sub.keys }),
        unsubscribe: () => Promise.resolve(true),
      };
      PushManager.prototype.subscribe = () => ((current = fake), Promise.resolve(fake as unknown as PushSubscription));
      PushManager.prototype.getSubscription = () => Promise.resolve(current as PushSubscription | null);
    }, subscription);
    await pairThroughLink(page, host);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await page.goto(`${host.url}/#/`);
    await page.getByRole('button', { name: 'Notifications' }).click();
    await page.getByRole('button', { name: 'Turn on notifications' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Notifications are on' })).toBeVisible();
    await page.locator('a.row-head').first().click();
    const id = await quietSession(page, 'List the files');

    // The budget is set from the phone: what it has spent, and a little more than nothing.
    const spent = (await summary(id)).activity as { inputTokens: number; outputTokens: number };
    await page.locator('[data-steer="budget"]').tap();
    await page
      .locator('[data-steer-panel="budget"] input[name="budget-tokens"]')
      .fill(String(spent.inputTokens + spent.outputTokens + 10));
    await page.getByRole('button', { name: 'Set a budget' }).tap();
    await expect(page.locator('[data-steer="budget"]')).toContainText('tokens of');

    // Away from the session, a message from the computer starts a run that stops at once.
    await page.goto(`${host.url}/#/`);
    expect((await tether(host.dataDir, ['sessions', 'send', id, 'List them again'])).code).toBe(0);
    const push = await pushService.next((p) => (JSON.parse(p.payload) as { type?: string }).type === 'waiting');
    expect(JSON.parse(push.payload)).toMatchObject({ type: 'waiting', sessionId: id, reason: 'budget' });
    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
    await cdp.send('ServiceWorker.enable');
    const registration = await eventually(() => registrations.find((r) => r.scopeURL.startsWith(host!.url)));
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: new URL(host.url).origin,
      registrationId: registration.registrationId,
      data: push.payload,
    });
    const shown = await eventually(() =>
      page.evaluate(async (tag) => {
        const [n] = await (await navigator.serviceWorker.ready).getNotifications({ tag });
        return n ? { title: n.title, body: n.body } : undefined;
      }, `wait:${id}`),
    );
    expect(shown.title).toBe('Budget reached: List the files');
    expect(shown.body).toMatch(/^Budget reached: \d+ of \d+ tokens spent/);

    // The tap opens the session, which says it waits; raised there, the run goes on to its end.
    await page.evaluate(
      async ({ tag }) =>
        (await navigator.serviceWorker.ready).active!.postMessage({
          type: 'tether:test-notification-click',
          tag,
          action: '',
        }),
      { tag: `wait:${id}` },
    );
    await expect(page).toHaveURL(new RegExp(`#/h/[^/]+/s/${id}$`));
    const alert = page.locator('[data-budget-reached]');
    await expect(alert).toContainText('Budget reached');
    await alert.getByRole('button', { name: 'Raise budget' }).tap();
    await page.locator('[data-steer-panel="budget"] input[name="budget-tokens"]').fill('1000000');
    await page.getByRole('button', { name: 'Set budget' }).tap();
    await expect(alert).toBeHidden();
    await eventually(async () => {
      const ends = (await sessionEvents(host!, id)).filter((e) => e.type === 'run.finished');
      return ends.length >= 3 && ends.at(-1)!.status === 'done' ? true : undefined;
    }, 30_000);
    const user = (await sessionEvents(host, id)).filter((e) => e.type === 'message' && e.role === 'user');
    expect(user.map((e) => e.text)).toEqual(['List the files', 'List them again']);
  });
});
