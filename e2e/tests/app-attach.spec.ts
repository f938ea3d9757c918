import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AnthropicStandIn } from '../support/anthropic-stand-in.js';
import { startAnthropicStandIn } from '../support/anthropic-stand-in.js';
import type { AppHost } from '../support/app-host.js';
import { createSession, device, pairThroughLink, sessionEvents, startAppHost } from '../support/app-host.js';
import { snap } from '../support/app-snap.js';
import { anthropicImages, jpegSize, photoPng } from '../support/test-photo.js';

let host: AppHost | undefined;
let model: AnthropicStandIn | undefined;

test.afterEach(async () => {
  await host?.stop();
  await model?.close();
  host = model = undefined;
});

test.use(device('iPhone 15'));

test('a photo attached on the phone is scaled down, reaches the model as an image block, and shows in the transcript', async ({
  page,
}, testInfo) => {
  model = await startAnthropicStandIn();
  model.model.script([{ text: 'Hello.' }], [{ text: 'A gradient, blue to green.' }]);
  host = await startAppHost({
    model: 'anthropic:claude-test',
    env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: model.url },
  });
  await pairThroughLink(page, host);
  const sessionId = await createSession(page, host, 'Hi');
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await expect(transcript.locator('.msg.assistant', { hasText: 'Hello.' })).toBeVisible();

  // A photo larger than 1,600 px on its longest edge, as a phone's camera makes.
  await page
    .locator('input[data-attach-input]')
    .setInputFiles({ name: 'whiteboard.png', mimeType: 'image/png', buffer: photoPng(2400, 1800) });
  await expect(page.getByRole('list', { name: 'To send' })).toContainText('whiteboard.jpg');
  await page.getByLabel('Message', { exact: true }).fill('What is on this?');
  await page.getByRole('button', { name: 'Send' }).click();

  const call = await model.model.waitFor((c) => c.turn && anthropicImages(c.body).length > 0);
  const [image] = anthropicImages(call.body);
  expect(image!.media_type).toBe('image/jpeg');
  expect(jpegSize(Buffer.from(image!.data, 'base64'))).toEqual({ width: 1600, height: 1200 });
  await expect(transcript.locator('.msg.assistant', { hasText: 'A gradient' })).toBeVisible();

  // The transcript shows the photo from the computer's copy, through a blob: URL.
  const thumbnail = transcript.locator('.msg.user img.thumbnail');
  await expect(thumbnail).toHaveAttribute('alt', 'whiteboard.jpg');
  await expect(thumbnail).toHaveAttribute('src', /^blob:/);
  await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1600);
  await snap(page, testInfo, 'phone-attachment');

  const events = await sessionEvents(host, sessionId);
  const message = events.find((e) => e.type === 'message' && e.text === 'What is on this?') as
    { attachments?: { name: string; type: string }[] } | undefined;
  expect(message?.attachments).toEqual([expect.objectContaining({ name: 'whiteboard.jpg', type: 'image/jpeg' })]);
});

/** A session whose first run is over (its approval denied): the next message starts a run. */
async function idleSession(page: Page, text: string): Promise<void> {
  await createSession(page, host!, text);
  await page.locator('section.approval[data-status="pending"]').getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByRole('log', { name: 'Transcript' }).locator('[data-run-status="done"]')).toBeVisible();
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
}

test('a message waiting in the outbox shows its photo and its file by name', async ({ page, context }, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairThroughLink(page, host);
  await idleSession(page, 'First message');
  await context.setOffline(true);
  await expect(page.locator('[data-banner="offline"]')).toBeVisible();
  // A photo alone, and a text file: no words to show, only what is attached.
  await page.locator('input[data-attach-input]').setInputFiles([
    { name: 'receipt.png', mimeType: 'image/png', buffer: photoPng(400, 300) },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('milk, eggs\n') },
  ]);
  await expect(page.getByRole('list', { name: 'To send' }).locator('li')).toHaveCount(2);
  await page.getByRole('button', { name: 'Send' }).click();

  const item = page.locator('.outbox-item[data-outbox-mark="waiting"]');
  await expect(item).toBeVisible();
  const attached = item.getByRole('list', { name: 'Attached' });
  await expect(attached.locator('li[data-attachment="receipt.png"]')).toContainText('receipt.png');
  await expect(attached.locator('li[data-attachment="notes.txt"]')).toContainText('notes.txt');
  const thumbnail = attached.locator('img.thumbnail');
  await expect(thumbnail).toHaveAttribute('src', /^blob:/);
  await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(400);
  await snap(page, testInfo, 'phone-outbox-photo');

  // Still shown after the app is opened again offline (the bytes are in the outbox's store).
  await page.reload();
  await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(400);
  await context.setOffline(false);
  await expect(item).toHaveCount(0, { timeout: 20_000 });
  await expect(
    page.getByRole('log', { name: 'Transcript' }).locator('.msg.user [data-attachment="notes.txt"]'),
  ).toBeVisible();
});

test('offline, a photo this device does not hold says why instead of loading', async ({ page, context }, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairThroughLink(page, host);
  await idleSession(page, 'First message');
  await page
    .locator('input[data-attach-input]')
    .setInputFiles({ name: 'whiteboard.png', mimeType: 'image/png', buffer: photoPng(320, 240) });
  await page.getByLabel('Message', { exact: true }).fill('What is on this?');
  await page.getByRole('button', { name: 'Send' }).click();
  const transcript = page.getByRole('log', { name: 'Transcript' });
  const message = transcript.locator('.msg.user', { hasText: 'What is on this?' });
  await expect(message.locator('img.thumbnail')).toHaveAttribute('src', /^blob:/);

  // Opened again with no way to the computer: the transcript is this device's, the photo is not.
  await context.setOffline(true);
  await page.reload();
  const photo = message.locator('[data-attachment="whiteboard.png"] [data-attachment-state]');
  await expect(photo).toHaveAttribute('data-attachment-state', 'unreachable');
  await expect(photo).toContainText('not on this device');
  await snap(page, testInfo, 'phone-photo-offline');

  // Back online, it loads.
  await context.setOffline(false);
  await expect(message.locator('img.thumbnail')).toHaveAttribute('src', /^blob:/, { timeout: 20_000 });
});
