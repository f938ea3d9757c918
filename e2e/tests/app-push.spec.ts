import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, sessionEvents, startAppHost } from '../support/app-host.js';
import { eventually } from '../support/host-process.js';
import type { FakeModel } from '../support/fake-openai.js';
import { startFakeModel } from '../support/fake-openai.js';
import type { RelayProcess } from '../support/relay-process.js';
import { startRelay } from '../support/relay-process.js';
import type { PushLine, PushServiceProcess } from '../support/push-service-process.js';
import { startPushService } from '../support/push-service-process.js';

/**
 * Lock-screen approvals in Chromium. Headless Chromium cannot make a real push subscription, so
 * the page's PushManager hands out one the stand-in push service made; the host encrypts for it,
 * the stand-in decrypts, and the payload is delivered to the service worker's `push` handler over
 * the DevTools protocol. A click on a notification is played through a test-only message.
 */

/** Must match TEST_CLICK_MESSAGE in pwa/src/push/sw-install.ts. */
const TEST_CLICK_MESSAGE = 'tether:test-notification-click';

let host: AppHost | undefined;
let pushService: PushServiceProcess | undefined;
let relay: RelayProcess | undefined;
let model: FakeModel | undefined;

test.afterEach(async () => {
  await host?.stop();
  await pushService?.stop();
  await relay?.stop();
  await model?.close();
  host = undefined;
  pushService = undefined;
  relay = undefined;
  model = undefined;
});

// An Android phone: on an iPhone, push needs the app added to the Home Screen (and has no buttons).
test.use(device('Pixel 7'));

interface Shown {
  title: string;
  body: string;
  tag: string;
  actions: string[];
  requireInteraction: boolean;
}

/**
 * The app and the host; with `relayUrl`, a relay-only host whose app is the relay's; with
 * `modelUrl`, the host's model is that stand-in (else the demo model, which asks to run `ls -la`).
 */
async function setUp(
  page: Page,
  context: BrowserContext,
  lockScreen: object = {},
  relayUrl?: string,
  modelUrl?: string,
) {
  pushService = await startPushService();
  const subscription = await pushService.subscribe();
  host = await startAppHost({
    // Slow enough that the page shows the new session before its first approval is raised.
    demoDelayMs: 150,
    env: { NODE_EXTRA_CA_CERTS: pushService.caFile },
    files: { 'notifications.json': JSON.stringify({ pushServices: [pushService.origin], lockScreen }) },
    ...(relayUrl !== undefined ? { relayOnly: relayUrl } : {}),
    ...(modelUrl !== undefined ? { model: `openai-compatible:fake@${modelUrl}` } : {}),
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
  // On a relay's page the device gets watch and approve unless more is asked for at the computer:
  // these tests run their own relay, and start sessions from the page.
  const request = await pairThroughLink(
    page,
    host,
    relayUrl !== undefined ? { scopes: ['watch', 'approve', 'chat', 'terminal'] } : {},
  );
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));

  await page.goto(`${host.url}/#/`);
  await page.getByRole('button', { name: 'Notifications' }).click();
  await page.getByRole('button', { name: 'Turn on notifications' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Notifications are on' })).toBeVisible();
  await page.locator('a.row-head').first().click();

  const cdp = await context.newCDPSession(page);
  const registrations: { registrationId: string; scopeURL: string }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
  await cdp.send('ServiceWorker.enable');
  const registration = await eventually(() => registrations.find((r) => r.scopeURL.startsWith(host!.url)));
  const deliver = (push: PushLine) =>
    cdp.send('ServiceWorker.deliverPushMessage', {
      origin: new URL(host!.url).origin,
      registrationId: registration.registrationId,
      data: push.payload,
    });
  return { deviceLabel: request.label, deliver };
}

/**
 * Starts a session from the page (its first approval is raised while the page shows it), queues a
 * second message, and answers the first approval from the Waiting screen: the second run's
 * approval is raised while no device shows that session. Returns the pushes of both.
 */
async function raiseApprovalWhileAway(page: Page, task = 'List the files, please') {
  const sessionId = await createSession(page, host!, task);
  await expect(page.locator('section.approval[data-status="pending"]')).toBeVisible();
  await page.getByLabel('Message', { exact: true }).fill('And once more, please');
  await page.getByRole('button', { name: 'Queue' }).click();
  await expect(page.locator('.outbox-item[data-outbox-mark="delivered"]')).toContainText(
    'On the computer: it goes to the agent when the current turn ends',
  );
  const first = (await sessionEvents(host!, sessionId)).find((e) => e.type === 'approval.requested');
  await page.goto(`${host!.url}/#/waiting`);
  await page.locator('section.approval').getByRole('button', { name: 'Allow once' }).click();
  const second = await eventually(async () =>
    (await sessionEvents(host!, sessionId)).find(
      (e) => e.type === 'approval.requested' && JSON.stringify(e) !== JSON.stringify(first),
    ),
  );
  const approvalId = String((second.approval as { id: string }).id);
  const push = await pushService!.next((p) => p.topic === approvalId);
  return { sessionId, approvalId, firstId: String((first!.approval as { id: string }).id), push };
}

const shown = (page: Page, tag: string) =>
  eventually(() =>
    page.evaluate(async (t) => {
      const registration = await navigator.serviceWorker.ready;
      const [n] = await registration.getNotifications({ tag: t });
      return n
        ? {
            title: n.title,
            body: n.body,
            tag: n.tag,
            actions: (n as unknown as { actions: { action: string }[] }).actions.map((a) => a.action),
            requireInteraction: n.requireInteraction,
          }
        : undefined;
    }, tag),
  ) as Promise<Shown>;

/**
 * Waits for the notification to say `title`, naming the last title seen when it never does. An
 * answer's one attempt may take up to ONE_SHOT_TIMEOUT_MS (15 s) on a loaded machine: allow two.
 */
const titled = async (page: Page, tag: string, title: string) => {
  let last = '(none)';
  try {
    return await eventually(async () => {
      const n = await shown(page, tag);
      last = `${n.title}: ${n.body}`;
      return n.title === title ? n : undefined;
    }, 30_000);
  } catch {
    throw new Error(`the notification never said "${title}"; last: ${last}`);
  }
};

const click = (page: Page, tag: string, action: string) =>
  page.evaluate(
    async ({ type, tag: t, action: a }) =>
      (await navigator.serviceWorker.ready).active!.postMessage({ type, tag: t, action: a }),
    { type: TEST_CLICK_MESSAGE, tag, action },
  );

test('an approval away from its session reaches the phone, is approved from the notification, and a second answer is refused', async ({
  page,
  context,
}) => {
  const { deviceLabel, deliver } = await setUp(page, context);
  const { sessionId, approvalId, firstId, push } = await raiseApprovalWhileAway(page);
  // The first approval was raised while the page showed its session: nothing was sent for it.
  expect(pushService!.received.filter((p) => p.topic === firstId)).toEqual([]);
  expect(push).toMatchObject({ ttl: 120, urgency: 'high', topic: approvalId });
  const payload = JSON.parse(push.payload) as Record<string, unknown>;
  expect(payload).toMatchObject({ type: 'approval', approvalId, sessionId, summary: 'ls -la', lockScreen: 'approve' });

  await deliver(push);
  const n = await shown(page, approvalId);
  expect(n.actions).toEqual(['approve', 'deny']);
  expect(n.title).toMatch(/^Run a command on .+\?$/);
  expect(n.body).toContain('ls -la');
  expect(n.requireInteraction).toBe(true);

  await click(page, approvalId, 'approve');
  await titled(page, approvalId, 'Approved');
  const resolved = await eventually(async () =>
    (await sessionEvents(host!, sessionId)).find(
      (e) => e.type === 'approval.resolved' && JSON.stringify(e).includes(approvalId),
    ),
  );
  expect(JSON.stringify(resolved)).toContain(deviceLabel);
  expect(JSON.stringify(resolved)).toContain('allow-once');

  // The same approval answered again (here: Deny on a copy of the notification) is refused.
  await deliver(push);
  await titled(page, approvalId, n.title);
  await click(page, approvalId, 'deny');
  await titled(page, approvalId, 'Already answered on another device');

  // A plain tap opens the app on the approval's card, which says it was answered.
  await page.goto(`${host!.url}/#/`);
  await deliver(push);
  await titled(page, approvalId, n.title);
  await click(page, approvalId, '');
  await expect(page).toHaveURL(new RegExp(`#/h/[^/]+/a/${approvalId}$`));
  await expect(page.locator('[data-screen="approval"] section.approval')).toHaveAttribute('data-status', 'allowed');
});

test('an approval the lock-screen policy forbids offers only Deny and Open, and Deny answers it', async ({
  page,
  context,
}) => {
  const { deliver } = await setUp(page, context, { alsoDenyOnly: ['ls -la'] });
  const { sessionId, approvalId, push } = await raiseApprovalWhileAway(page);
  expect(JSON.parse(push.payload)).toMatchObject({ lockScreen: 'deny-only' });
  await deliver(push);
  const n = await shown(page, approvalId);
  expect(n.actions).toEqual(['deny', 'open']);
  // An Approve forged onto it is not answered: the app opens on its card instead.
  await click(page, approvalId, 'approve');
  await expect(page).toHaveURL(new RegExp(`#/h/[^/]+/a/${approvalId}$`));
  await expect(page.locator('[data-screen="approval"] pre.action')).toHaveText('ls -la');
  await deliver(push);
  await titled(page, approvalId, n.title);
  await click(page, approvalId, 'deny');
  await titled(page, approvalId, 'Denied');
  const resolved = await eventually(async () =>
    (await sessionEvents(host!, sessionId)).find(
      (e) => e.type === 'approval.resolved' && JSON.stringify(e).includes(approvalId),
    ),
  );
  expect(JSON.stringify(resolved)).toContain('"deny"');
});

test('through a relay: a relay-only host’s approval is approved from the notification, the answer sent through the relay', async ({
  page,
  context,
}) => {
  relay = await startRelay(['--app-dir', fileURLToPath(new URL('../../pwa/dist', import.meta.url))]);
  const { deviceLabel, deliver } = await setUp(page, context, {}, relay.url);
  expect(host!.url).toBe(relay.url);
  const calls: string[] = [];
  context.on('request', (r) => {
    if (r.method() === 'POST') calls.push(r.url());
  });
  const { sessionId, approvalId, push } = await raiseApprovalWhileAway(page);
  await deliver(push);
  expect((await shown(page, approvalId)).actions).toEqual(['approve', 'deny']);
  await click(page, approvalId, 'approve');
  await titled(page, approvalId, 'Approved');
  const resolved = await eventually(async () =>
    (await sessionEvents(host!, sessionId)).find(
      (e) => e.type === 'approval.resolved' && JSON.stringify(e).includes(approvalId),
    ),
  );
  expect(JSON.stringify(resolved)).toContain(deviceLabel);
  // The service worker's answer went to the relay (the host listens nowhere).
  expect(calls.some((url) => url.startsWith(`${relay!.url}/relay/call/`))).toBe(true);
});

test('an approval answered in the open app closes its notification', async ({ page, context }) => {
  const { deliver } = await setUp(page, context);
  const { sessionId, approvalId, push } = await raiseApprovalWhileAway(page);
  await deliver(push);
  await shown(page, approvalId);
  // The page is on the Waiting screen: the approval is answered there, not from the notification.
  await page.locator('section.approval').getByRole('button', { name: 'Allow once' }).click();
  await eventually(async () =>
    (await sessionEvents(host!, sessionId)).find(
      (e) => e.type === 'approval.resolved' && JSON.stringify(e).includes(approvalId),
    ),
  );
  await eventually(() =>
    page.evaluate(async (t) => {
      const registration = await navigator.serviceWorker.ready;
      return (await registration.getNotifications({ tag: t })).length === 0 ? true : undefined;
    }, approvalId),
  );
});

test('a secret in the task or the action is masked on the notification, which offers only Deny and Open', async ({
  page,
  context,
}) => {
  const secret = 'S3cretPass';
  const token = 'ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6';
  // A command that reaches nothing when allowed (no mysql here): the flow allows the first one.
  model = await startFakeModel(`mysql -u root -p${secret} appdb -e 'select 1'`);
  const { deliver } = await setUp(page, context, {}, undefined, model.url);
  const { approvalId, push } = await raiseApprovalWhileAway(page, `Deploy with token ${token}`);
  for (const shown of [secret, token]) expect(push.payload).not.toContain(shown);
  expect(JSON.parse(push.payload)).toMatchObject({ lockScreen: 'deny-only', title: 'Deploy with token •••' });
  await deliver(push);
  const n = await shown(page, approvalId);
  expect(n.actions).toEqual(['deny', 'open']);
  expect(n.body).toContain("mysql -u root -p••• appdb -e 'select 1'");
  expect(`${n.title} ${n.body}`).not.toContain(secret);
  // Opened, the app shows the action whole: the person approves what they see.
  await click(page, approvalId, 'open');
  await expect(page.locator('[data-screen="approval"] pre.action')).toContainText(secret);
});

test('a declarative message handed to the service worker shows the approval all the same, and a tap opens its card', async ({
  page,
  context,
}) => {
  const { deliver } = await setUp(page, context);
  const { approvalId, push } = await raiseApprovalWhileAway(page);
  const payload = JSON.parse(push.payload) as { hostId: string };
  const navigate = `${host!.url}/#/h/${payload.hostId}/a/${approvalId}`;
  const declarative = {
    web_push: 8030,
    notification: { title: 'Run a command?', navigate, tag: approvalId, data: payload },
  };
  await page.goto(`${host!.url}/#/`);
  await deliver({ ...push, payload: JSON.stringify(declarative) });
  const n = await shown(page, approvalId);
  expect(n.actions).toEqual(['approve', 'deny']);
  expect(n.body).toContain('ls -la');
  await click(page, approvalId, '');
  await expect(page).toHaveURL(new RegExp(`#/h/[^/]+/a/${approvalId}$`));
  await expect(page.locator('[data-screen="approval"] section.approval')).toHaveAttribute('data-status', 'pending');
  await expect(page.getByRole('button', { name: 'Allow once' })).toBeEnabled();
});
