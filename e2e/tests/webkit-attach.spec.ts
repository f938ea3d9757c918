import type { AppHost } from '../support/app-host.js';
import { sessionEvents, startAppHost } from '../support/app-host.js';
import { photoPng } from '../support/test-photo.js';
import { pairByLink, startSession } from '../support/webkit-app.js';
import { expect, snapPhone, test } from '../support/webkit-test.js';

let host: AppHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const TRANSCRIPT = '[role="log"][aria-label="Transcript"]';
const PENDING = 'section.approval[data-status="pending"]';

/**
 * Puts a file in the composer's file input as a picker would: WebKitWebDriver has no file
 * upload command, so the page builds the File and hands it over through a DataTransfer.
 */
const PICK = `
  const [base64, name, type] = arguments;
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], name, { type }));
  const input = document.querySelector('input[data-attach-input]');
  input.files = transfer.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
`;

test('a photo picked in WebKit is scaled down on the phone, the model gets it, and the transcript shows it', async ({
  phone,
}, testInfo) => {
  host = await startAppHost({ demoDelayMs: 5 });
  await pairByLink(phone, host);
  const sessionId = await startSession(phone, 'First message');
  await phone.clickButton('Deny', PENDING);
  await expect.poll(() => phone.shown(`${TRANSCRIPT} [data-run-status="done"]`)).toBe(true);

  await phone.run(PICK, photoPng(2400, 1800).toString('base64'), 'shelf.png', 'image/png');
  // The name is read from the page: WebKit's driver left the chip's text (overflow hidden, an
  // ellipsis) out of the list's text in a loaded run, though the chip showed it whole.
  const pending = () =>
    phone.run<string>("return document.querySelector('ul.attachments.pending')?.textContent ?? '';");
  await expect.poll(pending).toContain('shelf.jpg');
  await phone.type('#composer-text', 'What is this?');
  await phone.clickButton('Send');

  // The demo model says what it received: the scaled JPEG, under its new name.
  await expect
    .poll(() => phone.text(`${TRANSCRIPT}`), { timeout: 30_000 })
    .toMatch(/I received an image, shelf\.jpg \(image\/jpeg, \d+ bytes\)/);
  await expect
    .poll(() =>
      phone.run<number>(`return document.querySelector('${TRANSCRIPT} .msg.user img.thumbnail')?.naturalWidth ?? 0`),
    )
    .toBe(1600);
  expect(await phone.attr(`${TRANSCRIPT} .msg.user img.thumbnail`, 'src')).toMatch(/^blob:/);
  await snapPhone(phone, testInfo, 'webkit-attachment');

  const message = (await sessionEvents(host, sessionId)).find(
    (e) => e.type === 'message' && e.text === 'What is this?',
  ) as { attachments?: { name: string; type: string }[] } | undefined;
  expect(message?.attachments?.map((a) => [a.name, a.type])).toEqual([['shelf.jpg', 'image/jpeg']]);
  expect(await phone.pageErrors()).toEqual([]);
});
