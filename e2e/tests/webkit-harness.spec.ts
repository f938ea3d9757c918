import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import type { WebKitPhone } from '../support/webkit-phone.js';
import { liveInGroup } from '../support/webkit-driver.js';
import { startWebKitPhone } from '../support/webkit-phone.js';
import { expect, test } from '../support/webkit-test.js';

/** Whether a process is still there. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a phone is 390×844, and once stopped leaves no process behind', async () => {
  const phone = await startWebKitPhone();
  const { xvfb, driverGroup } = phone.processes;
  expect(await phone.run<number[]>('return [innerWidth, innerHeight]')).toEqual([390, 844]);
  expect(alive(xvfb)).toBe(true);
  expect(liveInGroup(driverGroup).length).toBeGreaterThanOrEqual(3); // the driver, MiniBrowser, WebKit's processes
  await phone.stop();
  expect(alive(xvfb)).toBe(false);
  // Nothing of the driver's group runs (an exited helper may wait a moment to be reaped by init).
  expect(liveInGroup(driverGroup)).toEqual([]);
});

/** Runs `code` as the page's own script (what WebDriver runs has its errors' messages hidden). */
async function inPage(phone: WebKitPhone, code: string): Promise<void> {
  await phone.run(
    "const script = document.createElement('script'); script.textContent = arguments[0]; document.body.appendChild(script);",
    code,
  );
}

test('errors in the page are collected across loads, for the fixture to fail the test on', async () => {
  // A page of its own on 127.0.0.1: errors of scripts from another origin reach a page muted.
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end('<!doctype html><title>errors</title><p>errors</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const phone = await startWebKitPhone();
  try {
    await phone.open(`http://127.0.0.1:${port}/`);
    expect(await phone.pageErrors()).toEqual([]);
    await inPage(phone, "setTimeout(() => { throw new Error('thrown in the page'); }, 0)");
    await inPage(phone, "void Promise.reject(new Error('rejected in the page'))");
    await inPage(phone, "console.error('logged as an error')");
    await expect.poll(async () => (await phone.pageErrors()).length).toBe(3);
    // A reload starts a new document: what the old one saw is kept, and the hook is back.
    await phone.reload();
    await inPage(phone, "setTimeout(() => { throw new Error('after the reload'); }, 0)");
    await expect.poll(async () => (await phone.pageErrors()).length).toBe(4);
    const errors = (await phone.pageErrors()).join('\n');
    for (const text of ['thrown in the page', 'rejected in the page', 'logged as an error', 'after the reload']) {
      expect(errors).toContain(text);
    }
  } finally {
    await phone.stop();
    server.close();
  }
});
