import { CloseCode, generateHostIdentity, relayHostLinkUrl } from '@tether/shared-protocol';
import type { Socket } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { RelayLimits } from './limits.js';
import { DEFAULT_LIMITS } from './limits.js';
import { RelayServer } from './relay-server.js';
import { FakeDevice, FakeHost, until } from './testing/clients.js';

/**
 * Crowding out: a crowd of silent or cheap connections must never keep a real host or device
 * out. Each test is the attack, on real sockets: many source addresses through the loopback
 * (every 127.x.y.z is the computer itself on Linux), and IPv6 /64s and NAT64 clients as a load
 * balancer the relay trusts names them (`X-Forwarded-For`), since the loopback has one IPv6
 * address only.
 */

const running: RelayServer[] = [];
/** What a test opened: WebSockets and raw sockets alike end at once when it is over. */
const open: { terminate?(): void; destroy?(): void; close(): void }[] = [];

afterEach(async () => {
  for (const s of open.splice(0)) {
    if (s.terminate) s.terminate();
    else if (s.destroy) s.destroy();
    else s.close();
  }
  for (const r of running.splice(0)) await r.close();
});

async function start(limits: Partial<RelayLimits> = {}) {
  const r = await RelayServer.start({ bind: '127.0.0.1', port: 0, limits, trustedProxies: ['127.0.0.1'] });
  if (!r.ok) throw new Error(r.error.message);
  running.push(r.value);
  return r.value;
}

interface Attempt {
  ws: WebSocket;
  /** The HTTP status of a refused upgrade, or 101. */
  status: Promise<number>;
  closed: Promise<number>;
}

/** A WebSocket to the host endpoint that never says a word, from `from` as the trusted proxy says. */
function silentHostSocket(relay: RelayServer, from: string, localAddress = '127.0.0.1'): Attempt {
  const ws = new WebSocket(relayHostLinkUrl(relay.url)!, { headers: { 'X-Forwarded-For': from }, localAddress });
  ws.on('error', () => undefined);
  open.push(ws);
  const status = new Promise<number>((resolve) => {
    ws.once('upgrade', () => resolve(101));
    ws.once('unexpected-response', (req, res) => {
      req.destroy();
      resolve(res.statusCode ?? 0);
    });
    ws.once('error', () => resolve(0));
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  return { ws, status, closed };
}

/** A TCP socket from `localAddress` that connects and then says nothing. */
async function silentTcp(relay: RelayServer, localAddress: string): Promise<{ socket: Socket; closed: boolean }> {
  const socket = connect({ host: '127.0.0.1', port: relay.port, localAddress });
  const held = { socket, closed: false };
  socket.on('error', () => undefined);
  socket.once('close', () => (held.closed = true));
  open.push({ destroy: () => socket.destroy(), close: () => socket.end() });
  await new Promise<void>((resolve) => {
    socket.once('connect', resolve);
    socket.once('close', () => resolve());
  });
  return held;
}

async function healthFrom(relay: RelayServer, localAddress: string): Promise<number> {
  const socket = await silentTcp(relay, localAddress);
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.socket.once('close', () => resolve(text));
  });
  socket.socket.write('GET /healthz HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n');
  return Number(/^HTTP\/1\.1 (\d+)/.exec(await answer)?.[1] ?? 0);
}

describe('crowding out the relay', () => {
  it('silent WebSockets from 268 /64s fill the pending-auth pool, and a new host and device still get in', async () => {
    // The default pool; the auth deadline is long here so that the crowd stays for the whole test.
    const relay = await start({ authDeadlineMs: 120_000 });
    expect(DEFAULT_LIMITS.maxPendingAuth).toBe(1024);
    const crowd: Attempt[] = [];
    // One range takes more than the rest: its oldest is the first to go when the pool is full.
    for (let i = 0; i < 8; i++) crowd.push(silentHostSocket(relay, `2001:db8:ffff:1::${i + 1}`));
    await Promise.all(crowd.map((a) => a.status));
    // Then 4 from each of 268 /64s, 16 ranges at a time.
    for (let r = 0; r < 268; r += 16) {
      const batch = Array.from({ length: Math.min(16, 268 - r) * 4 }, (_, i) =>
        silentHostSocket(relay, `2001:db8:${(r + (i >> 2)).toString(16)}:1::${(i & 3) + 1}`),
      );
      crowd.push(...batch);
      await Promise.all(batch.map((a) => a.status));
    }
    const statuses = await Promise.all(crowd.map((a) => a.status));
    // Every one of them was let in: none was turned away with 503 for a full pool...
    expect(statuses.filter((s) => s !== 101)).toEqual([]);
    // ...and the pool stayed within its bound by closing the oldest of the busiest range.
    await until(() => relay.switchboard.census.pending <= 1024, 'the pool back within its bound');
    expect(await crowd[0]!.closed).toBe(CloseCode.Busy);
    expect(relay.metrics.refusals('pending-evicted')).toBe(crowd.length - 1024);
    expect(relay.metrics.refusals('pending-full')).toBe(0);

    // A real host links and a real device reaches it, with the pool still full of the crowd.
    const host = await FakeHost.connect(relay.url, generateHostIdentity());
    open.push(host);
    const device = await FakeDevice.connect(relay.url, host.identity);
    open.push(device);
    await until(() => host.conns.size === 1, 'the device at the host');
  }, 60_000);

  it('a range may hold only its share of the pool: more from it are refused, others are not', async () => {
    const relay = await start({ authDeadlineMs: 120_000, maxPendingAuthPerAddress: 3 });
    const mine = [1, 2, 3, 4].map((i) => silentHostSocket(relay, `2001:db8:aa:bb::${i}`));
    expect((await Promise.all(mine.map((a) => a.status))).sort()).toEqual([101, 101, 101, 503]);
    expect(relay.metrics.refusals('pending-full')).toBe(1);
    expect(await silentHostSocket(relay, '2001:db8:aa:bc::1').status).toBe(101);
  });

  it('NAT64 clients are limited by the IPv4 address they embed, not all together as one /64', async () => {
    const relay = await start({ connectBurst: 2, connectsPerSecond: 0.0001 });
    const clients = [
      '64:ff9b::198.51.100.1',
      '64:ff9b::c633:6402',
      '64:ff9b::203.0.113.3',
      '64:ff9b:1::c633:6404',
      '64:ff9b:1:c633:64:500::',
    ];
    const first = await Promise.all(clients.flatMap((c) => [c, c]).map((c) => silentHostSocket(relay, c).status));
    expect(first.every((s) => s === 101)).toBe(true);
    // Each client has spent its own burst: a third socket from one of them is limited...
    expect(await silentHostSocket(relay, '64:ff9b::198.51.100.1').status).toBe(429);
    // ...and the same address over IPv4 is the same client.
    expect(await silentHostSocket(relay, '198.51.100.1').status).toBe(429);
    // One IPv6 client spraying its /64 still has one budget.
    const sprayed = await Promise.all(
      [1, 2, 3, 4].map((i) => silentHostSocket(relay, `2001:db8:64:ff9b::${i}`).status),
    );
    expect(sprayed.filter((s) => s === 101)).toHaveLength(2);
  });

  it('caps the plain sockets one address holds: past the cap they are closed at once, other addresses served', async () => {
    const relay = await start({ maxSocketsPerAddress: 8, firstByteTimeoutMs: 120_000 });
    const crowd = await Promise.all(Array.from({ length: 20 }, () => silentTcp(relay, '127.0.0.5')));
    await until(() => crowd.filter((s) => s.closed).length === 12, 'the sockets past the cap closed');
    expect(relay.metrics.refusals('sockets-per-address')).toBe(12);
    // Another address is served meanwhile, and the crowd's own is not, until its sockets go.
    expect(await healthFrom(relay, '127.0.0.6')).toBe(200);
    expect(await healthFrom(relay, '127.0.0.5')).toBe(0);
    expect(relay.metrics.refusals('sockets-per-address')).toBe(13);
    expect(crowd.filter((s) => !s.closed)).toHaveLength(8);
    // Once they have gone, the address is served again.
    for (const s of crowd) s.socket.destroy();
    const deadline = Date.now() + 10_000;
    while ((await healthFrom(relay, '127.0.0.5')) !== 200) {
      if (Date.now() > deadline) throw new Error('127.0.0.5 was never served again');
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  it("counts a WebSocket only until it is upgraded, and never caps a trusted proxy's sockets", async () => {
    const relay = await start({ maxSocketsPerAddress: 2, firstByteTimeoutMs: 120_000 });
    // From 127.0.0.7 (not trusted): the forwarded address is not believed, and each socket counts
    // for 127.0.0.7 until its upgrade, one after the other.
    for (let i = 0; i < 5; i++) expect(await silentHostSocket(relay, '198.51.100.20', '127.0.0.7').status).toBe(101);
    const viaProxy = await Promise.all(Array.from({ length: 6 }, () => silentTcp(relay, '127.0.0.1')));
    // A seventh from the proxy is answered: none of its sockets was counted against a cap.
    expect(await healthFrom(relay, '127.0.0.1')).toBe(200);
    expect(viaProxy.filter((s) => s.closed)).toEqual([]);
    expect(relay.metrics.refusals('sockets-per-address')).toBe(0);
  });

  it('closes a socket that has said nothing within the first-byte deadline', async () => {
    const relay = await start({ firstByteTimeoutMs: 300 });
    expect(DEFAULT_LIMITS.firstByteTimeoutMs).toBeLessThanOrEqual(5_000);
    const silent = await Promise.all([1, 2, 3].map(() => silentTcp(relay, '127.0.0.8')));
    await until(() => silent.every((s) => s.closed), 'the silent sockets closed');
    expect(relay.metrics.refusals('first-byte-timeout')).toBe(3);
    // One that speaks is answered, however long its answer takes to come.
    expect(await healthFrom(relay, '127.0.0.8')).toBe(200);
  });
});
