import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DeviceClient, SessionEvent, TetherEvent } from '@tether/shared-protocol';
import {
  CloseCode,
  PROTOCOL_VERSION,
  decodeRelayTicket,
  encodeConnectRequest,
  fromBase64UrlExact,
  generateBoxKeyPair,
  generateDeviceId,
  generateHostIdentity,
  parsePairingLink,
  relayCallUrl,
  relayConnectUrl,
  relayPairUrl,
  sealCall,
  secureRandom,
  systemClock,
  toBase64Url,
} from '@tether/shared-protocol';
import { expect, test } from '@playwright/test';
import { WebSocket } from 'ws';
import { eventually, makeDataDir, removeDataDir, startHost, tether, tetherJson } from '../support/host-process.js';
import type { RelayProcess } from '../support/relay-process.js';
import { startRelay } from '../support/relay-process.js';
import { pairThroughRelay, relayClient } from '../support/relay-device.js';

/**
 * A host that listens on no address (`--relay-only`), the real relay, and Node devices that reach
 * the host only through it: the same device side as behind the host's own listener.
 */

const cleanups: (() => Promise<unknown> | void)[] = [];
test.afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function relayOnlyHost(relayUrl: string, delayMs = 40, dataDir = makeDataDir()) {
  mkdirSync(join(dataDir, 'project'), { recursive: true });
  const host = await startHost(dataDir, ['--relay', relayUrl, '--relay-only', '--root', dataDir], {
    TETHER_DEMO_DELAY_MS: String(delayMs),
  });
  cleanups.push(async () => {
    await host.stop();
    removeDataDir(dataDir);
  });
  const linked = await host.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  return { host, dataDir, project: join(dataDir, 'project'), pairUrl: String(linked.pairUrl) };
}

async function relay(args: string[] = []): Promise<RelayProcess> {
  const r = await startRelay(args);
  cleanups.push(() => r.stop());
  return r;
}

function track(client: DeviceClient): TetherEvent[] {
  const events: TetherEvent[] = [];
  client.onEvent((e) => events.push(e));
  cleanups.push(() => client.stop());
  return events;
}

const ofSession = (events: TetherEvent[], id: string) =>
  events.filter((e): e is SessionEvent => 'seq' in e && e.sessionId === id);

async function metric(relayUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${relayUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

test('a relay-only host: pair, follow a session through a dropped connection and answer its approval, all through the relay', async () => {
  const r = await relay();
  const { host, dataDir, project, pairUrl } = await relayOnlyHost(r.url, 60);
  // The pairing link opens the app on the relay's origin and names the host and the relay.
  const link = parsePairingLink(pairUrl);
  expect(link.ok && link.value.base).toBe(r.url);
  expect(link.ok && link.value.relay).toEqual({ hostId: host.ready.hostId, url: r.url });
  expect(host.lines).toContainEqual(
    expect.objectContaining({ event: 'not-listening', reason: expect.stringContaining('relay only') }),
  );

  const paired = await pairThroughRelay(pairUrl, host);
  expect(paired.reply.relay?.url).toBe(r.url);
  const sockets: WebSocket[] = [];
  const client = relayClient(r.url, paired, sockets);
  const events = track(client);
  client.start();

  const created = await client.call('sessions.create', { cwd: project, text: 'hello through the relay' });
  if (!created.ok) throw new Error(created.error.message);
  const id = created.value.session.id;
  client.watch(id, 0);
  // What arrived before the watch (the session list's updates) is not part of the replayed stream.
  events.length = 0;
  // Cut the connection while the reply streams: the client reconnects through the relay and resumes.
  await eventually(() => (ofSession(events, id).some((e) => e.type === 'message.delta') ? true : undefined));
  sockets.at(-1)!.terminate();
  const approval = await eventually(() => {
    const found = ofSession(events, id).find((e) => e.type === 'approval.requested');
    return found?.type === 'approval.requested' ? found.approval : undefined;
  });
  expect(sockets.length).toBeGreaterThan(1);
  expect((await client.call('approvals.answer', { id: approval.id, decision: 'allow-once' })).ok).toBe(true);
  await eventually(() => (ofSession(events, id).some((e) => e.type === 'run.finished') ? true : undefined));
  const log = await tetherJson<SessionEvent[]>(dataDir, ['sessions', 'show', id]);
  const delivered = ofSession(events, id);
  expect(delivered.map((e) => e.seq)).toEqual(Array.from({ length: delivered.length }, (_, i) => i + 1));
  expect(delivered).toEqual(log.slice(0, delivered.length));

  // The device renews its ticket over the sealed channel; the ticket names it and nobody else.
  const renewed = await client.call('relay.ticket', {});
  if (!renewed.ok) throw new Error(renewed.error.message);
  const ticket = decodeRelayTicket(renewed.value.ticket);
  expect(ticket.ok && ticket.value.deviceId).toBe(paired.reply.deviceId);
  expect(renewed.value.url).toBe(r.url);

  const status = await tetherJson<{ remote: { listening: boolean; relay: { state: string; connections: number } } }>(
    dataDir,
    ['status'],
  );
  expect(status.remote.listening).toBe(false);
  expect(status.remote.relay).toMatchObject({ state: 'linked', connections: 1 });
  const pair = await tetherJson<{ link: string; relay: { url: string; link: string } }>(dataDir, ['pair']);
  expect(pair.relay.url).toBe(r.url);
  expect(pair.link.startsWith(`${r.url}/#pair=`)).toBe(true);
  const doctor = await tether(dataDir, ['doctor']);
  expect(doctor.stdout).toContain('the running host is linked to the relay');
  expect(doctor.stdout).toMatch(/the relay's clock and this one agree/);
});

test('a phone paired on the relay’s page and allowed without choosing can follow and approve, not write', async () => {
  // What a relay operator's modified app would hold: a device paired on its page, allowed with y.
  const r = await relay();
  const { host, project, pairUrl } = await relayOnlyHost(r.url);
  const paired = await pairThroughRelay(pairUrl, host, 'relay page phone', undefined, 'default');
  expect(paired.reply.scopes).toEqual(['watch', 'approve']);
  const client = relayClient(r.url, paired);
  track(client);
  client.start();
  expect((await client.call('host.info', {})).ok).toBe(true);
  expect((await client.call('sessions.list', {})).ok).toBe(true);
  const created = await client.call('sessions.create', { cwd: project, text: 'write a file, please' });
  expect(created).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  const terminal = await client.call('terminals.open', { cwd: project, cols: 80, rows: 24 });
  expect(terminal).toMatchObject({ ok: false, error: { code: 'forbidden' } });
});

test('a device revoked at the computer is refused by the host behind the relay, whatever ticket it shows', async () => {
  const r = await relay();
  const { host, dataDir, pairUrl } = await relayOnlyHost(r.url);
  const paired = await pairThroughRelay(pairUrl, host);
  const client = relayClient(r.url, paired);
  track(client);
  client.start();
  expect((await client.call('host.info', {})).ok).toBe(true);
  expect((await tether(dataDir, ['devices', 'revoke', '--', paired.reply.deviceId])).code).toBe(0);
  await eventually(() => (client.state.name === 'refused' ? client.state : undefined));
  expect(client.state).toMatchObject({ name: 'refused', error: { code: 'revoked' } });

  // Its ticket is still one the relay takes (the relay keeps no device list): the host says no.
  const again = relayClient(r.url, paired);
  track(again);
  again.start();
  await eventually(() => (again.state.name === 'refused' ? true : undefined));
  expect(again.state).toMatchObject({ name: 'refused', error: { code: 'revoked' } });
});

test('someone who knows a host id cannot tell from the relay whether that host uses it', async () => {
  const r = await relay();
  const { host, pairUrl } = await relayOnlyHost(r.url);
  const link = parsePairingLink(pairUrl);
  if (!link.ok) throw new Error(link.error.message);
  const linkedId = String(host.ready.hostId);
  const unknownId = generateHostIdentity().hostId;
  // What a stranger holding an old pairing link can send: well formed, under a link that is no
  // longer the host's, and a call sealed to the host's real key from a device it never paired.
  const strangerPair = () =>
    JSON.stringify({
      v: PROTOCOL_VERSION,
      pairingId: toBase64Url(secureRandom(16)),
      nonce: toBase64Url(secureRandom(24)),
      box: toBase64Url(secureRandom(48)),
    });
  const strangerCall = () =>
    sealCall(
      {
        deviceId: generateDeviceId(),
        deviceKeys: generateBoxKeyPair(),
        hostBoxPublicKey: link.value.hostBoxPublicKey,
        clock: systemClock,
        random: secureRandom,
      },
      Uint8Array.of(1),
    ).message;
  const ask = async (kind: 'pair' | 'call', hostId: string) => {
    const started = performance.now();
    const res = await fetch(kind === 'pair' ? relayPairUrl(r.url, hostId)! : relayCallUrl(r.url, hostId)!, {
      method: 'POST',
      headers: { 'Content-Type': kind === 'pair' ? 'application/json' : 'application/octet-stream' },
      body: kind === 'pair' ? strangerPair() : (strangerCall() as BodyInit),
    });
    const answer = `${res.status} ${res.headers.get('content-type')} ${await res.text()}`;
    return { answer, ms: performance.now() - started };
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const kind of ['pair', 'call'] as const) {
    const linked = [];
    const unknown = [];
    // Alternating, a few of each (under the relay's pair limit of 10 a burst per address).
    for (let i = 0; i < 4; i++) {
      linked.push(await ask(kind, linkedId));
      unknown.push(await ask(kind, unknownId));
    }
    expect(new Set([...linked, ...unknown].map((a) => a.answer)).size, kind).toBe(1);
    // Neither answers before the relay's floor (250 ms), so a quick host looks like no host.
    for (const a of [...linked, ...unknown]) expect(a.ms).toBeGreaterThanOrEqual(245);
    console.log(
      `${kind}: median ${median(linked.map((a) => a.ms)).toFixed(1)} ms for the linked host, ` +
        `${median(unknown.map((a) => a.ms)).toFixed(1)} ms for an unknown id: ${linked[0]!.answer.slice(0, 60)}…`,
    );
  }
});

test('a device flooding the relay is closed alone, the others stream on, and the relay holds little', async () => {
  const r = await relay();
  const { host, dataDir, project, pairUrl } = await relayOnlyHost(r.url, 20);
  const steady = await pairThroughRelay(pairUrl, host, 'steady');
  const client = relayClient(r.url, steady);
  const events = track(client);
  client.start();
  const created = await client.call('sessions.create', { cwd: project, text: 'keep streaming' });
  if (!created.ok) throw new Error(created.error.message);
  const id = created.value.session.id;
  client.watch(id, 0);
  events.length = 0;

  // The flooder holds a valid ticket (it paired), then writes 64 MiB as fast as it can and reads nothing.
  const flooder = await pairThroughRelay(
    (await tetherJson<{ relay: { link: string } }>(dataDir, ['pair'])).relay.link,
    host,
    'flooder',
  );
  const ws = new WebSocket(relayConnectUrl(r.url, flooder.reply.hostId)!);
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  ws.on('error', () => undefined);
  await new Promise((resolve) => ws.once('open', resolve));
  const first = encodeConnectRequest(
    fromBase64UrlExact(flooder.reply.hostSignPublicKey, 32)!,
    flooder.reply.relay!.ticket,
  );
  if (!first.ok) throw new Error(first.error.message);
  ws.send(first.value);
  const junk = new Uint8Array(1024 * 1024).fill(7);
  for (let i = 0; i < 64 && ws.readyState === ws.OPEN; i++) ws.send(junk);
  // The host refuses what is not a hello (4001) or the relay cuts the device's share of the link (4008).
  expect([CloseCode.HandshakeFailed, CloseCode.SlowConsumer]).toContain(await closed);

  // The steady device is untouched: its session streams to the end, every event once, in order.
  const approval = await eventually(() => {
    const found = ofSession(events, id).find((e) => e.type === 'approval.requested');
    return found?.type === 'approval.requested' ? found.approval : undefined;
  });
  expect((await client.call('approvals.answer', { id: approval.id, decision: 'deny' })).ok).toBe(true);
  await eventually(() => (ofSession(events, id).some((e) => e.type === 'run.finished') ? true : undefined));
  const delivered = ofSession(events, id);
  expect(delivered.map((e) => e.seq)).toEqual(Array.from({ length: delivered.length }, (_, i) => i + 1));
  // What the relay ever held at once stayed within one device's share of a host link (4 MiB) and
  // a frame or two, though 64 MiB was thrown at it.
  expect(await metric(r.url, 'tether_relay_queued_bytes_high_water')).toBeLessThanOrEqual(6 * 1024 * 1024);
});
