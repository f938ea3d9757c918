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
