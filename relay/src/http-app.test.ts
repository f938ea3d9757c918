import type { Result } from '@tether/shared-protocol';
import {
  NO_CALL_TAKER,
  NO_SUCH_PAIRING,
  fail,
  generateHostIdentity,
  ok,
  relayAnswerBody,
  utf8Decode,
  utf8Encode,
} from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { Census } from './census.js';
import { createRelayApp } from './http-app.js';
import type { RelayLimits } from './limits.js';
import { DEFAULT_LIMITS } from './limits.js';
import { RelayMetrics } from './metrics.js';
import type { RelayReply } from './routes.js';
import { wellFormedStrangers } from './testing/clients.js';

const hostId = generateHostIdentity().hostId;

function setup(
  limits: Partial<RelayLimits> = {},
  reply: Result<RelayReply> = ok({ status: 200, body: utf8Encode('{}') }),
) {
  const clock = new ManualClock();
  const l = { ...DEFAULT_LIMITS, ...limits };
  const census = new Census(l.maxPendingAuth, l.maxPendingAuthPerAddress);
  const metrics = new RelayMetrics();
  const seen: { kind: string; hostId: string; source: string; body: Uint8Array }[] = [];
  const app = createRelayApp({
    relay: {
      census,
      acceptHost: () => undefined,
      acceptDevice: () => undefined,
      request: (kind, id, source, body) => {
        seen.push({ kind, hostId: id, source, body });
        return Promise.resolve(reply);
      },
    },
    // No floor unless a test asks for one: answers come at once on the manual clock.
    limits: { ...DEFAULT_LIMITS, requestAnswerFloorMs: 0, ...limits },
    metrics,
    clock,
    trustedProxies: new Set(['10.0.0.2']),
    app: undefined,
    isClosing: () => false,
  });
  /** A request as if from `peer`, the way @hono/node-server passes the socket. */
  const request = (path: string, init: RequestInit = {}, peer = '198.51.100.20') =>
    app.request(path, init, { incoming: { socket: { remoteAddress: peer } } });
  return { app, census, metrics, seen, request, clock };
}

const upgrade = { headers: { Upgrade: 'websocket', Connection: 'Upgrade' } };

describe('relay HTTP routes', () => {
  it('puts the security headers on every response, and no-store on everything but app files', async () => {
    const { request } = setup();
    for (const path of ['/healthz', '/metrics', '/relay/host', '/relay/nowhere', '/']) {
      const res = await request(path);
      expect(res.headers.get('content-security-policy'), path).toContain("default-src 'self'");
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(res.headers.get('cache-control'), path).toBe('no-store');
    }
  });

  it('asks for a WebSocket on the socket endpoints, and refuses a malformed host id', async () => {
    const { request, metrics } = setup();
    expect((await request('/relay/host')).status).toBe(426);
    expect((await request(`/relay/connect/${hostId}`)).status).toBe(426);
    const bad = await request('/relay/connect/not-a-host-id', upgrade);
    expect([bad.status, await bad.json()]).toMatchObject([404, { error: { code: 'not-found' } }]);
    expect(metrics.refusals('bad-host-id')).toBe(1);
    expect(metrics.refusals('upgrade-required')).toBe(2);
  });

  it('turns sockets away before the upgrade when the node is full, or when their range has its share waiting', async () => {
    const { request, census, metrics } = setup({ maxConnections: 3, maxPendingAuthPerAddress: 1 });
    const waiting = { evicted: () => undefined };
    census.opened(waiting, '198.51.100.20');
    const busy = await request('/relay/host', upgrade);
    expect([busy.status, await busy.json()]).toMatchObject([503, { error: { code: 'busy', retryable: true } }]);
    expect(metrics.refusals('pending-full')).toBe(1);
    // Another range is let in (500 here means "admitted": app.request cannot upgrade).
    expect((await request('/relay/host', upgrade, '198.51.100.21')).status).toBe(500);
    census.authenticated(waiting);
    census.opened({ evicted: () => undefined }, '203.0.113.1');
    census.opened({ evicted: () => undefined }, '203.0.113.2');
    expect((await request('/relay/host', upgrade)).status).toBe(503);
    expect(metrics.refusals('node-full')).toBe(1);
  });

  it('limits sockets per source address, believing X-Forwarded-For only from a trusted proxy', async () => {
    const { request, metrics } = setup({ connectBurst: 1, connectsPerSecond: 0.0001 });
    // Admitted sockets reach the upgrade, which app.request cannot do: 500 here means "admitted".
    const admitted = (r: Response) => r.status !== 429;
    expect(admitted(await request('/relay/host', upgrade, '198.51.100.1'))).toBe(true);
    expect((await request('/relay/host', upgrade, '198.51.100.1')).status).toBe(429);
    // Behind the trusted balancer, each client is limited on its own address...
    const via = (client: string) => ({ headers: { ...upgrade.headers, 'X-Forwarded-For': `1.2.3.4, ${client}` } });
    expect(admitted(await request('/relay/host', via('203.0.113.1'), '10.0.0.2'))).toBe(true);
    expect(admitted(await request('/relay/host', via('203.0.113.2'), '10.0.0.2'))).toBe(true);
    expect((await request('/relay/host', via('203.0.113.1'), '10.0.0.2')).status).toBe(429);
    // ...and a header from anyone else changes nothing.
    expect((await request('/relay/host', via('203.0.113.9'), '198.51.100.1')).status).toBe(429);
    expect(metrics.refusals('rate-limited')).toBe(3);
  });

  it('counts an IPv6 /64 as one address, and when its table is full forgets the oldest instead of refusing all', async () => {
    const { request, metrics } = setup({ connectBurst: 2, connectsPerSecond: 0.0001, maxTrackedAddresses: 8 });
    const admitted = (r: Response) => r.status !== 429 && r.status !== 503;
    // One client sprays addresses across its /64: two sockets in all, then 429, however many addresses.
    const sprayed = [];
    for (let i = 1; i <= 20; i++)
      sprayed.push(await request('/relay/host', upgrade, `2001:db8:5:6::${i.toString(16)}`));
    expect(sprayed.filter(admitted)).toHaveLength(2);
    // A flood from as many ranges as the table holds, and more, every one of them limited...
    for (let i = 0; i < 40; i++) {
      const from = `2001:db8:${i.toString(16)}::1`;
      await request('/relay/host', upgrade, from);
      await request('/relay/host', upgrade, from);
    }
    // ...leaves a newcomer admitted: the table made room.
    expect(admitted(await request('/relay/host', upgrade, '198.51.100.99'))).toBe(true);
    expect(metrics.get('tether_relay_limiter_evictions_total', { limiter: 'connect' })).toBeGreaterThan(0);
  });

  it('forwards a pair request with the client address as source, and insists on JSON', async () => {
    const { request, seen } = setup();
    const body = wellFormedStrangers().pair;
    const res = await request(
      `/relay/pair/${hostId}`,
      { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '6.6.6.6' }, body },
      '198.51.100.30',
    );
    expect(res.status).toBe(200);
    expect(seen[0]).toMatchObject({ kind: 'pair', hostId, source: '198.51.100.30', body: utf8Encode(body) });
    const text = await request(`/relay/pair/${hostId}`, { method: 'POST', body: 'x' });
    expect([text.status, await text.json()]).toMatchObject([400, { error: { code: 'bad-request' } }]);
  });

  it('refuses a body no host could open before looking for the host', async () => {
    const { request, seen, metrics } = setup();
    const json = { 'Content-Type': 'application/json' };
    for (const [path, init] of [
      [`/relay/pair/${hostId}`, { method: 'POST', headers: json, body: '{not json' }],
      [`/relay/pair/${hostId}`, { method: 'POST', headers: json, body: '{"v":1,"pairingId":"x"}' }],
      [`/relay/call/${hostId}`, { method: 'POST', body: new Uint8Array(3) }],
    ] as const) {
      const res = await request(path, init);
      expect(res.status).toBe(400);
    }
    expect(seen).toEqual([]);
    expect(metrics.refusals('malformed-request')).toBe(3);
  });

  it('maps a host it does not have to the shared answers, and a timeout to 504', async () => {
    const offline = setup({}, fail('host-offline', 'no'));
    const r1 = await offline.request(`/relay/call/${hostId}`, { method: 'POST', body: wellFormedStrangers().call() });
    expect([r1.status, await r1.text()]).toEqual([503, utf8Decode(relayAnswerBody(NO_CALL_TAKER))]);
    const r2 = await offline.request(`/relay/pair/${hostId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: wellFormedStrangers().pair,
    });
    expect([r2.status, await r2.text()]).toEqual([410, utf8Decode(relayAnswerBody(NO_SUCH_PAIRING))]);
    expect(offline.metrics.refusals('host-offline')).toBe(2);
    const slow = setup({}, fail('timeout', 'slow'));
    expect(
      (await slow.request(`/relay/call/${hostId}`, { method: 'POST', body: wellFormedStrangers().call() })).status,
    ).toBe(504);
  });

  it('lets a page on any origin send a one-shot call and read its answer, but not a pair request', async () => {
    const { request } = setup();
    const from = { Origin: 'https://laptop.tail1234.ts.net:7420' };
    const preflight = await request(`/relay/call/${hostId}`, {
      method: 'OPTIONS',
      headers: { ...from, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
    const call = await request(`/relay/call/${hostId}`, {
      method: 'POST',
      headers: { ...from, 'Content-Type': 'application/octet-stream' },
      body: wellFormedStrangers().call(),
    });
    expect(call.headers.get('access-control-allow-origin')).toBe('*');
    for (const method of ['OPTIONS', 'POST'] as const) {
      const pair = await request(`/relay/pair/${hostId}`, {
        method,
        headers: { ...from, 'Content-Type': 'application/json', 'Access-Control-Request-Method': 'POST' },
        ...(method === 'POST' ? { body: wellFormedStrangers().pair } : {}),
      });
      expect(pair.headers.get('access-control-allow-origin'), method).toBeNull();
    }
  });

  it('holds every answer to a pair request or call until the floor, whoever gave it', async () => {
    for (const reply of [ok({ status: 200, body: utf8Encode('{}') }), fail('host-offline', 'no')] as const) {
      const { request, clock } = setup({ requestAnswerFloorMs: 250 }, reply);
      let answered = false;
      const pending = Promise.resolve(
        request(`/relay/pair/${hostId}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: wellFormedStrangers().pair,
        }),
      ).then((r) => {
        answered = true;
        return r;
      });
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      clock.advance(249);
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toBe(false);
      clock.advance(1);
      expect((await pending).status).toBe(reply.ok ? 200 : 410);
    }
  });

  it('serves health and Prometheus metrics', async () => {
    const { request } = setup();
    expect(await (await request('/healthz')).json()).toEqual({ status: 'ok' });
    const metrics = await request('/metrics');
    expect(metrics.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await metrics.text();
    expect(text).toContain('# TYPE tether_relay_drops_total counter');
    expect(text).toContain('tether_relay_refusals_total{reason="ticket-expired"} 0');
  });

  it('says the app is not here when no app directory was given', async () => {
    const { request } = setup();
    const res = await request('/');
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('--app-dir');
  });
});
