import {
  CloseCode,
  NO_CALL_TAKER,
  NO_SUCH_PAIRING,
  RELAY_MAX_PAYLOAD,
  RelayCloseCode,
  encodeConnectRequest,
  generateHostIdentity,
  relayCallUrl,
  relayAnswerBody,
  relayPairUrl,
  signRelayTicket,
  utf8Decode,
  utf8Encode,
} from '@tether/shared-protocol';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { loadAppFiles } from './app-files.js';
import type { RelayLimits } from './limits.js';
import { RelayServer } from './relay-server.js';
import { FakeDevice, FakeHost, until, wellFormedStrangers } from './testing/clients.js';

const running: RelayServer[] = [];
const sockets: { close(): void }[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  for (const r of running.splice(0)) await r.close();
});

async function start(limits: Partial<RelayLimits> = {}, extra: Partial<Parameters<typeof RelayServer.start>[0]> = {}) {
  const r = await RelayServer.start({ bind: '127.0.0.1', port: 0, limits, ...extra });
  if (!r.ok) throw new Error(r.error.message);
  running.push(r.value);
  return r.value;
}

async function host(relay: RelayServer, identity = generateHostIdentity()) {
  const h = await FakeHost.connect(relay.url, identity);
  sockets.push(h);
  return h;
}

async function device(relay: RelayServer, identity: Parameters<typeof FakeDevice.connect>[1]) {
  const d = await FakeDevice.connect(relay.url, identity);
  sockets.push(d);
  return d;
}

const same = (a: Uint8Array[], b: Uint8Array[]) =>
  a.length === b.length && a.every((x, i) => Buffer.compare(Buffer.from(x), Buffer.from(b[i]!)) === 0);

/** One counter's value from the Prometheus text at /metrics. */
async function scrape(relay: RelayServer, series: string): Promise<number> {
  const text = await (await fetch(`${relay.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : NaN;
}

describe('relay server', () => {
  it('drains: refuses newcomers, tells its hosts to move, and closes as soon as they have gone', async () => {
    const relay = await start();
    running.splice(running.indexOf(relay), 1);
    const h = await host(relay);
    const d = await device(relay, h.identity);
    await until(() => h.conns.size === 1, 'the open');
    const drained = relay.drain(10_000);
    await until(() => h.frames.some((f) => f.type === 'drain'), 'the drain message');
    // Nobody new is let in while it drains.
    const late = await fetch(`${relay.url}/relay/call/${h.identity.hostId}`, { method: 'POST', body: 'x' });
    expect(late.status).toBe(503);
    const health = await fetch(`${relay.url}/healthz`);
    expect([health.status, await health.json()]).toEqual([503, { status: 'shutting-down' }]);
    // The host leaves; the node closes the rest at once rather than waiting out the grace.
    const leftAt = Date.now();
    h.ws.close(1001, 'relay-draining');
    await drained;
    expect(Date.now() - leftAt).toBeLessThan(2_000);
    expect((await d.done).code).toBe(RelayCloseCode.HostGone);
  });

  it('drains for a bounded time only: a host that stays is closed when the grace ends', async () => {
    const relay = await start();
    running.splice(running.indexOf(relay), 1);
    const h = await host(relay);
    const startedAt = Date.now();
    await relay.drain(300);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(300);
    await until(() => h.closed !== undefined, 'the host closed');
    expect(h.closed).toEqual({ code: RelayCloseCode.GoingAway, reason: 'shutting-down' });
  });

  it("carries a device's bytes to its host and the host's back, unchanged, up to the largest frame", async () => {
    const relay = await start();
    const h = await host(relay);
    const d = await device(relay, h.identity);
    await until(() => h.conns.size === 1, 'the open');
    const connId = h.lastConn;
    expect(h.conns.get(connId)!.source).toBe('127.0.0.1');

    const up = [
      Uint8Array.of(1, 2, 3),
      new Uint8Array(randomBytes(70_000)),
      new Uint8Array(randomBytes(RELAY_MAX_PAYLOAD)),
    ];
    for (const m of up) d.send(m);
    await until(() => h.received(connId).length === up.length, 'device bytes at the host');
    expect(same(h.received(connId), up)).toBe(true);

    const down = [Uint8Array.of(9), new Uint8Array(randomBytes(RELAY_MAX_PAYLOAD))];
    for (const m of down) h.send({ type: 'data', connId, payload: m });
    await until(() => d.received.length === down.length, 'host bytes at the device');
    expect(same(d.received, down)).toBe(true);
    expect(await scrape(relay, 'tether_relay_frames_total{direction="to-host"}')).toBe(3);
    expect(await scrape(relay, 'tether_relay_frames_total{direction="to-device"}')).toBe(2);
    expect(await scrape(relay, 'tether_relay_connections{kind="host"}')).toBe(1);
    expect(await scrape(relay, 'tether_relay_connections{kind="device"}')).toBe(1);
    // The metrics say how much and why, never who.
    const text = await (await fetch(`${relay.url}/metrics`)).text();
    for (const who of [h.identity.hostId, h.conns.get(connId)!.deviceId, '127.0.0.1']) expect(text).not.toContain(who);
  });

  it('refuses a device without a valid ticket, with a stable reason, before the host hears of it', async () => {
    const relay = await start();
    const h = await host(relay);
    const other = generateHostIdentity();
    const forOther = signRelayTicket({ deviceId: 'A'.repeat(22), expiresAt: Date.now() + 60_000 }, other.sign);
    const first = encodeConnectRequest(h.identity.sign.publicKey, forOther);
    if (!first.ok) throw new Error('unexpected');
    const d = await FakeDevice.connectRaw(relay.url, h.identity.hostId, first.value);
    expect(await d.done).toEqual({ code: RelayCloseCode.TicketRefused, reason: 'ticket-wrong-host' });

    const expired = encodeConnectRequest(
      h.identity.sign.publicKey,
      signRelayTicket({ deviceId: 'A'.repeat(22), expiresAt: Date.now() - 3_600_000 }, h.identity.sign),
    );
    if (!expired.ok) throw new Error('unexpected');
    const late = await FakeDevice.connectRaw(relay.url, h.identity.hostId, expired.value);
    expect(await late.done).toEqual({ code: RelayCloseCode.TicketExpired, reason: 'ticket-expired' });
    expect(h.conns.size).toBe(0);
    expect(await scrape(relay, 'tether_relay_refusals_total{reason="ticket-wrong-host"}')).toBe(1);
    expect(await scrape(relay, 'tether_relay_refusals_total{reason="ticket-expired"}')).toBe(1);

    // A path that is not a host id is refused before any upgrade.
    const bad = new WebSocket(`${relay.url.replace('http', 'ws')}/relay/connect/not-a-host`);
    const status = await new Promise<number>((resolve) =>
      bad.on('unexpected-response', (_q, res) => resolve(res.statusCode!)),
    );
    expect(status).toBe(404);
  });

  it('cuts off an unauthenticated client that sends a large first message, before buffering it', async () => {
    const relay = await start();
    const d = await FakeDevice.connectRaw(relay.url, generateHostIdentity().hostId, new Uint8Array(64 * 1024));
    expect((await d.done).code).toBe(RelayCloseCode.TooLarge);
    await until(() => relay.metrics.refusals('preauth-too-large') === 1, 'the refusal to be counted');
  });

  it('replaces a host link with a newer one for the same host', async () => {
    const relay = await start();
    const first = await host(relay);
    const d = await device(relay, first.identity);
    await until(() => first.conns.size === 1, 'the open');
    const second = await host(relay, first.identity);
    await until(() => first.closed !== undefined, 'the old link to close');
    expect(first.closed).toEqual({ code: RelayCloseCode.Replaced, reason: 'replaced' });
    expect(await d.done).toEqual({ code: RelayCloseCode.HostGone, reason: 'host-gone' });
    second.echo = true;
    const again = await device(relay, first.identity);
    again.send(Uint8Array.of(4, 2));
    await until(() => again.received.length === 1, 'the echo');
    expect(again.received[0]).toEqual(Uint8Array.of(4, 2));
  });

  it('closes a device that floods a host that has stopped reading, and only that device; memory stays bounded', async () => {
    const share = 256 * 1024;
    const relay = await start({
      hostShareBytes: share,
      hostOutboxBytes: 4 * share,
      deviceBytesPerSecond: 1e12,
      deviceBurstBytes: 1e12,
    });
    const h = await host(relay);
    const flooder = await device(relay, h.identity);
    const quiet = await device(relay, h.identity);
    await until(() => h.conns.size === 2, 'both opens');
    const [floodId, quietId] = [...h.conns.keys()];
    h.ws.pause(); // the host stops reading: the kernel buffers fill, then the relay's outbox
    const chunk = new Uint8Array(64 * 1024);
    for (let i = 0; i < 2000 && !flooder.closed; i++) {
      flooder.send(chunk);
      if (i % 16 === 15) await new Promise((r) => setImmediate(r));
    }
    expect(await flooder.done).toEqual({ code: CloseCode.SlowConsumer, reason: 'host-queue-full' });
    const link = relay.switchboard.local(h.identity.hostId) as unknown as { peer: { outbox: { highWater: number } } };
    expect(link.peer.outbox.highWater).toBeLessThanOrEqual(share + chunk.length + 64);
    expect(relay.switchboard.budget.highWater).toBeLessThanOrEqual(4 * share);
    expect(relay.metrics.drops('host-queue-full')).toBe(1);

    // The quiet device and the link are untouched; once the host reads again, all arrives in order.
    quiet.send(utf8Encode('still here'));
    h.ws.resume();
    await until(() => h.received(quietId!).length === 1, "the quiet device's message");
    await until(() => h.conns.get(floodId!)?.closed !== undefined, 'the close for the flooder');
    expect(h.conns.get(floodId!)!.closed).toEqual({ code: CloseCode.SlowConsumer, reason: 'host-queue-full' });
    expect(quiet.closed).toBeUndefined();
    expect(h.closed).toBeUndefined();
    await until(() => relay.switchboard.budget.used === 0, 'the queues to drain');
  });

  it('forwards pair requests and one-shot calls through the host link and back', async () => {
    const relay = await start();
    const h = await host(relay);
    h.answer = (f) =>
      f.type === 'pair-request'
        ? [200, utf8Encode(JSON.stringify({ v: 1, echo: utf8Decode(f.body), source: f.source }))]
        : [200, Uint8Array.of(5, ...f.body.subarray(0, 3))];
    const { pair: pairBody, call: callBody } = wellFormedStrangers();
    const pair = await fetch(relayPairUrl(relay.url, h.identity.hostId)!, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: pairBody,
    });
    expect(pair.status).toBe(200);
    expect(pair.headers.get('content-type')).toBe('application/json');
    expect(pair.headers.get('cache-control')).toBe('no-store');
    expect(await pair.json()).toEqual({ v: 1, echo: pairBody, source: '127.0.0.1' });

    const sealed = callBody();
    const call = await fetch(relayCallUrl(relay.url, h.identity.hostId)!, { method: 'POST', body: sealed });
    expect(call.status).toBe(200);
    expect(call.headers.get('content-type')).toBe('application/octet-stream');
    expect(new Uint8Array(await call.arrayBuffer())).toEqual(Uint8Array.of(5, ...sealed.subarray(0, 3)));

    // A host refusal passes through with its status.
    h.answer = () => [403, utf8Encode('{"error":{"code":"pair-denied","message":"no"}}')];
    const denied = await fetch(relayPairUrl(relay.url, h.identity.hostId)!, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: pairBody,
    });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ error: { code: 'pair-denied' } });
    expect(await scrape(relay, 'tether_relay_requests_total{kind="pair"}')).toBe(2);
    expect(await scrape(relay, 'tether_relay_replies_total{kind="call"}')).toBe(1);
  });

  it('answers a host it does not have, too-large and rate-limited with stable codes', async () => {
    const relay = await start({ pairBurst: 2 });
    const offline = generateHostIdentity().hostId;
    const post = (body: string, url = relayPairUrl(relay.url, offline)!) =>
      fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const r1 = await post(wellFormedStrangers().pair);
    expect([r1.status, await r1.json()]).toMatchObject([410, { error: NO_SUCH_PAIRING.error }]);
    const big = await post('x'.repeat(17 * 1024), relayCallUrl(relay.url, offline)!.replace('call', 'pair'));
    expect([big.status, await big.json()]).toMatchObject([413, { error: { code: 'too-large' } }]);
    const r3 = await post(wellFormedStrangers().pair);
    expect([r3.status, await r3.json()]).toMatchObject([429, { error: { code: 'rate-limited' } }]);
    expect(await scrape(relay, 'tether_relay_refusals_total{reason="pair-rate-limited"}')).toBe(1);
    expect(await scrape(relay, 'tether_relay_refusals_total{reason="host-offline"}')).toBe(1);
    const call = await fetch(relayCallUrl(relay.url, offline)!, {
      method: 'POST',
      body: wellFormedStrangers().call(),
    });
    expect([call.status, await call.json()]).toMatchObject([503, { error: NO_CALL_TAKER.error }]);
    const nowhere = await fetch(`${relay.url}/relay/nowhere`);
    expect(nowhere.status).toBe(404);
  });

  it('answers a stranger the same for a host it carries as for a host id it has never seen', async () => {
    const relay = await start({ requestAnswerFloorMs: 150 });
    const linked = await host(relay);
    // The host answers what it cannot open as a real host does: the shared answers.
    linked.answer = (f) =>
      f.type === 'pair-request'
        ? [NO_SUCH_PAIRING.status, relayAnswerBody(NO_SUCH_PAIRING)]
        : [NO_CALL_TAKER.status, relayAnswerBody(NO_CALL_TAKER)];
    const unknown = generateHostIdentity().hostId;
    const stranger = wellFormedStrangers();
    const ask = async (kind: 'pair' | 'call', hostId: string, body: string | Uint8Array) => {
      const started = performance.now();
      const res = await fetch(kind === 'pair' ? relayPairUrl(relay.url, hostId)! : relayCallUrl(relay.url, hostId)!, {
        method: 'POST',
        headers: { 'Content-Type': kind === 'pair' ? 'application/json' : 'application/octet-stream' },
        body: typeof body === 'string' ? body : Buffer.from(body),
      });
      const text = await res.text();
      return { answer: [res.status, res.headers.get('content-type'), text], ms: performance.now() - started };
    };
    for (const kind of ['pair', 'call'] as const) {
      const body = () => (kind === 'pair' ? stranger.pair : stranger.call());
      const fromLinked = await ask(kind, linked.identity.hostId, body());
      const fromUnknown = await ask(kind, unknown, body());
      expect(fromUnknown.answer, kind).toEqual(fromLinked.answer);
      const expected = kind === 'pair' ? NO_SUCH_PAIRING : NO_CALL_TAKER;
      expect(fromUnknown.answer).toEqual([expected.status, 'application/json', utf8Decode(relayAnswerBody(expected))]);
      // Neither answer leaves before the floor, so a quick host and no host take as long.
      expect(fromLinked.ms).toBeGreaterThanOrEqual(145);
      expect(fromUnknown.ms).toBeGreaterThanOrEqual(145);
    }
    expect(linked.frames.filter((f) => f.type === 'pair-request' || f.type === 'call-request')).toHaveLength(2);

    // Malformed bodies are refused by the relay before it looks for the host: the same answer, and
    // the host never hears of them.
    for (const [kind, body] of [
      ['pair', '{"v":1}'],
      ['pair', 'not json'],
      ['call', Uint8Array.of(4, 1, 2, 3)],
      ['call', Uint8Array.of(9, 9)],
    ] as const) {
      const a = await ask(kind, linked.identity.hostId, body);
      const b = await ask(kind, unknown, body);
      expect(a.answer, `${kind} ${String(body)}`).toEqual(b.answer);
      expect(a.answer[0]).toBe(400);
    }
    expect(linked.frames.filter((f) => f.type === 'pair-request' || f.type === 'call-request')).toHaveLength(2);
    expect(await scrape(relay, 'tether_relay_refusals_total{reason="malformed-request"}')).toBe(8);
  });

  it('tells a device with a valid ticket the same when its host id was never seen as when its host has left', async () => {
    const relay = await start();
    const gone = await host(relay);
    gone.close();
    await until(() => relay.switchboard.hostCount === 0, 'the host to leave');
    const never = generateHostIdentity();
    const a = await FakeDevice.connect(relay.url, gone.identity);
    const b = await FakeDevice.connect(relay.url, never);
    sockets.push(a, b);
    expect(await a.done).toEqual(await b.done);
    expect(await b.done).toEqual({ code: RelayCloseCode.HostOffline, reason: 'host-offline' });
  });

  it('limits new connections per address', async () => {
    const relay = await start({ connectBurst: 2, connectsPerSecond: 0.001 });
    const id = generateHostIdentity();
    await device(relay, id);
    await device(relay, id);
    await expect(FakeDevice.connect(relay.url, id)).rejects.toThrow('HTTP 429');
    expect(relay.metrics.refusals('rate-limited')).toBe(1);
  });

  it('forward only: serves no page and no script at any app path, and carries everything sealed', async () => {
    // The app is built and loaded, as on a relay that serves it: forward-only must still serve none of it.
    const dir = mkdtempSync(join(tmpdir(), 'relay-app-'));
    try {
      writeFileSync(
        join(dir, 'index.html'),
        '<!doctype html><title>Tether</title><script src="/assets/app-1.js"></script>',
      );
      writeFileSync(join(dir, 'sw.js'), 'self.addEventListener("fetch", () => {})');
      writeFileSync(join(dir, 'registerSW.js'), 'navigator.serviceWorker.register("/sw.js")');
      writeFileSync(join(dir, 'manifest.webmanifest'), '{"name":"Tether"}');
      mkdirSync(join(dir, 'assets'));
      writeFileSync(join(dir, 'assets', 'app-1.js'), 'console.log(1)');
      const app = loadAppFiles(dir);
      if (!app || typeof app === 'string') throw new Error('no app');
      const relay = await start({}, { app, forwardOnly: true });
      for (const path of [
        '/',
        '/index.html',
        '/sw.js',
        '/registerSW.js',
        '/assets/app-1.js',
        '/manifest.webmanifest',
        '/#pair=1.x',
        '/?q=1',
        '/anything',
      ]) {
        const res = await fetch(`${relay.url}${path}`);
        const text = await res.text();
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type'), path).toMatch(/^text\/plain/);
        expect(text, path).not.toMatch(/<script|<html|serviceWorker|console/i);
        expect(res.headers.get('content-security-policy'), path).toContain("default-src 'none'");
        expect(res.headers.get('content-security-policy'), path).not.toContain("'self'");
      }
      expect(await (await fetch(`${relay.url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect((await fetch(`${relay.url}/metrics`)).status).toBe(200);

      // The sealed endpoints work as on any relay: a host's link, a device's connection, a pair
      // request and a one-shot call.
      const h = await host(relay);
      h.echo = true;
      h.answer = (f) => [200, f.type === 'pair-request' ? utf8Encode('{"v":1}') : Uint8Array.of(5)];
      const d = await device(relay, h.identity);
      await until(() => h.conns.size === 1, 'the open');
      d.send(Uint8Array.of(1, 2, 3));
      await until(() => d.received.length === 1, 'the echo');
      expect(d.received[0]).toEqual(Uint8Array.of(1, 2, 3));
      const { pair, call } = wellFormedStrangers();
      const paired = await fetch(relayPairUrl(relay.url, h.identity.hostId)!, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: pair,
      });
      expect([paired.status, await paired.text()]).toEqual([200, '{"v":1}']);
      const called = await fetch(relayCallUrl(relay.url, h.identity.hostId)!, { method: 'POST', body: call() });
      expect([called.status, new Uint8Array(await called.arrayBuffer())]).toEqual([200, Uint8Array.of(5)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves the app with the security headers, and health', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-app-'));
    try {
      writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Tether</title>');
      mkdirSync(join(dir, 'assets'));
      writeFileSync(join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
      const app = loadAppFiles(dir);
      if (!app || typeof app === 'string') throw new Error('no app');
      const relay = await start({}, { app });
      const index = await fetch(`${relay.url}/`);
      expect(await index.text()).toContain('<title>Tether</title>');
      expect(index.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(index.headers.get('x-frame-options')).toBe('DENY');
      expect(index.headers.get('cache-control')).toBe('no-cache');
      const asset = await fetch(`${relay.url}/assets/app-1234.js`);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      expect((await fetch(`${relay.url}/../../etc/passwd`)).status).toBe(404);
      expect(await (await fetch(`${relay.url}/healthz`)).json()).toEqual({ status: 'ok' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
