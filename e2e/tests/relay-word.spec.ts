import type { RelayLinkStatus } from '@tether/shared-protocol';
import { RelayCloseCode } from '@tether/shared-protocol';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { HostProcess } from '../support/host-process.js';
import { eventually, hostDataDir, makeDataDir, removeDataDir, startHost, tetherJson } from '../support/host-process.js';
import { RelayAdversary } from '../support/relay-adversary.js';
import { startRelay } from '../support/relay-process.js';

/**
 * A relay's word is about that relay only. A host given two relays (real `tether-relay` processes)
 * where one is misconfigured or turns hostile: the host goes on through the other, says which relay
 * refused it and why, and never stops its link for what one relay says.
 */

const cleanups: (() => Promise<unknown> | void)[] = [];
test.afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function host(relays: string[]): Promise<HostProcess> {
  const dataDir = makeDataDir();
  const h = await startHost(dataDir, [...relays.flatMap((url) => ['--relay', url]), '--relay-only']);
  cleanups.push(async () => {
    await h.stop();
    removeDataDir(dataDir);
  });
  return h;
}

const relayStatus = async (h: HostProcess) =>
  (await tetherJson<{ remote: { relay: RelayLinkStatus } }>(h.dataDir, ['status'])).remote.relay;

test('a relay with a wrong --public-url is skipped with a clear line; the host links through the next', async () => {
  const misconfigured = await startRelay(['--no-app', '--public-url', 'https://relay.elsewhere.example']);
  const good = await startRelay(['--no-app']);
  cleanups.push(
    () => misconfigured.stop(),
    () => good.stop(),
  );
  // Dialled at its own address, it names the origin it was (wrongly) told is its own.
  const wrong = { url: `http://127.0.0.1:${misconfigured.port}` };
  const h = await host([wrong.url, good.url]);

  const held = await h.waitFor((l) => l.event === 'relay' && l.state === 'held');
  expect(held).toMatchObject({ url: wrong.url, code: 'handshake-failed' });
  expect(String(held.reason)).toContain("the relay's --public-url");
  expect(held.retryAt).toEqual(expect.any(Number));
  const linked = await h.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  expect(linked.url).toBe(good.url);

  const status = await relayStatus(h);
  expect(status.state).toBe('linked');
  expect(status.relays?.map((r) => [r.url, r.state])).toEqual([
    [wrong.url, 'held'],
    [good.url, 'linked'],
  ]);
  expect(status.relays?.[0]?.message).toContain('relay.elsewhere.example');
});

for (const [name, code, reason] of [
  ['4104 (a newer link took over)', RelayCloseCode.Replaced, 'replaced'],
  ['4105 (signature refused)', RelayCloseCode.AuthFailed, 'auth-failed'],
  ['4100 (ticket refused)', RelayCloseCode.TicketRefused, 'ticket-forged'],
] as const) {
  test(`a relay that closes the host's link with ${name} holds only itself: the host is linked through the other within 2 s`, async () => {
    const hostile = await RelayAdversary.start();
    const node = await startRelay(['--no-app', '--public-url', hostile.url]);
    hostile.front(node.port);
    const honest = await startRelay(['--no-app']);
    cleanups.push(
      () => hostile.stop(),
      () => node.stop(),
      () => honest.stop(),
    );
    const h = await host([hostile.url, honest.url]);
    await h.waitFor((l) => l.event === 'relay' && l.state === 'linked' && l.url === hostile.url);

    const closedAt = Date.now();
    expect(hostile.closeHosts(code, reason)).toBe(1);
    await h.waitFor((l) => l.event === 'relay' && l.state === 'linked' && l.url === honest.url, 5_000);
    const movedMs = Date.now() - closedAt;
    test.info().annotations.push({ type: 'moved (ms)', description: String(movedMs) });
    expect(movedMs).toBeLessThan(2_000);

    // The hostile relay is held, not believed for good; the link was never stopped.
    expect(h.lines.filter((l) => l.event === 'relay' && l.state === 'stopped')).toEqual([]);
    const status = await relayStatus(h);
    expect(status.relays?.map((r) => r.state)).toEqual(['held', 'linked']);
    expect(status.relays?.[0]?.retryAt).toBeGreaterThan(Date.now());
  });
}

test('a lone relay that says falsely that a newer link took over is checked, and linked through again at once', async () => {
  const hostile = await RelayAdversary.start();
  const node = await startRelay(['--no-app', '--public-url', hostile.url]);
  hostile.front(node.port);
  cleanups.push(
    () => hostile.stop(),
    () => node.stop(),
  );
  const h = await host([hostile.url]);
  await h.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  const linkedBefore = hostile.readies.length;
  const closedAt = Date.now();
  hostile.closeHosts(RelayCloseCode.Replaced, 'replaced');
  // Nothing else holds this host there (the relay answers a probe 4102): the claim was false.
  await eventually(() => (hostile.readies.length > linkedBefore ? true : undefined), 10_000, 'the host to link again');
  const backMs = Date.now() - closedAt;
  test.info().annotations.push({ type: 'back (ms)', description: String(backMs) });
  expect(backMs).toBeLessThan(2_000);
  expect(h.lines.filter((l) => l.event === 'relay' && l.state === 'stopped')).toEqual([]);
});

test('two `tether start` with one host key on one relay: the older checks the relay’s word, finds it true, says so and waits', async () => {
  const relay = await startRelay(['--no-app']);
  cleanups.push(() => relay.stop());
  const first = await host([relay.url]);
  await first.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  // The same key in another data dir: another process holding this host.
  const dataDir = makeDataDir();
  mkdirSync(hostDataDir(dataDir), { mode: 0o700 });
  copyFileSync(join(hostDataDir(first.dataDir), 'host-key.json'), join(hostDataDir(dataDir), 'host-key.json'));
  const second = await startHost(dataDir, ['--relay', relay.url, '--relay-only']);
  cleanups.push(async () => {
    await second.stop();
    removeDataDir(dataDir);
  });
  await second.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  const held = await first.waitFor(
    (l) => l.event === 'relay' && l.state === 'held' && String(l.reason).includes('another link for this host is up'),
  );
  expect(String(held.reason)).toContain('another `tether start`');
  // The older one stays off the relay meanwhile: the newer keeps its link.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(second.lines.filter((l) => l.event === 'relay' && l.state !== 'linked')).toEqual([]);
  const status = await relayStatus(first);
  expect(status.state).toBe('waiting');
  expect(status.relays?.[0]).toMatchObject({ state: 'held' });
  expect(first.lines.filter((l) => l.event === 'relay' && l.state === 'stopped')).toEqual([]);
});
