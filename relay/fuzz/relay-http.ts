import { isErrorCode, RELAY_MAX_CALL_BODY, utf8Encode } from '@tether/shared-protocol';
import type { InFlight } from './relay-model.js';
import { hex, sameBytes } from './relay-model.js';
import { inFlight, liveHost } from './relay-hosts.js';
import { chance, failure, count, mutate, pick, random, randomBytes, settle } from './relay-run.js';
import { LIMITS, SOURCES, app, callBodies, clock, identities, pairBody, strangerHostIds } from './relay-world.js';

/**
 * The relay fuzz run's HTTP input: a request at one of the relay's endpoints (most at a host's pair
 * and call routes) with a real, mutated, random or oversized body, odd methods, paths and headers,
 * driven with `app.request()`; the answer checked for its headers, its code and where it came from.
 */

/** Keys requests in `inFlight` while they wait. */
let nextRequest = 1;

/** One HTTP request at the relay's app, with the answer checked. */
export async function http(): Promise<void> {
  const host = liveHost(Math.floor(random() * 2));
  const kind = chance(0.5) ? 'pair' : 'call';
  const hostId = chance(0.85) ? host.identity.hostId : chance(0.5) ? pick(strangerHostIds) : 'not-a-host';
  const paths = [
    `/relay/${kind}/${hostId}`,
    `/relay/${kind}/${hostId}`,
    `/relay/${kind}/${hostId}`,
    '/relay/host',
    `/relay/connect/${hostId}`,
    '/relay/elsewhere',
    '/healthz',
    '/metrics',
    '/',
    '/assets/x.js',
  ];
  let path = pick(paths);
  if (chance(0.05)) path = Buffer.from(mutate(utf8Encode(path))).toString('latin1');
  let url: URL;
  try {
    url = new URL(path, 'http://relay.fuzz');
  } catch {
    return;
  }
  const method = chance(0.85) ? 'POST' : pick(['GET', 'OPTIONS', 'PUT', 'DELETE', 'HEAD']);
  const seed = kind === 'pair' ? pairBody() : pick(callBodies);
  const roll = random();
  const body =
    roll < 0.5
      ? seed
      : roll < 0.9
        ? mutate(seed)
        : roll < 0.97
          ? randomBytes(300)
          : new Uint8Array(RELAY_MAX_CALL_BODY + 1 + Math.floor(random() * 10));
  const headers: Record<string, string> = {};
  if (chance(0.9)) headers['content-type'] = kind === 'pair' ? 'application/json' : 'application/octet-stream';
  if (chance(0.1)) headers['x-forwarded-for'] = pick(['1.2.3.4', 'junk', '2001:db8::9, 10.0.0.1', '']);
  const upgrade = chance(0.05);
  if (upgrade) {
    headers.upgrade = 'websocket';
    headers.connection = 'Upgrade';
  }
  const hasBody = method === 'POST' || method === 'PUT' || method === 'DELETE';
  const id = nextRequest++;
  const record: InFlight = { kind, hostId, body: hex(body), reached: false, reply: undefined };
  inFlight.set(id, record);
  let done = false;
  const answer = Promise.resolve(
    app.request(
      url.pathname + url.search,
      { method, headers, ...(hasBody ? { body: body as Uint8Array<ArrayBuffer> } : {}) },
      { incoming: { socket: { remoteAddress: pick(SOURCES) } } },
    ),
  ).finally(() => (done = true));
  // A request the host has not answered waits for its deadline on the manual clock.
  for (let waits = 0; !done; waits++) {
    await settle();
    if (done) break;
    if (waits === 20) return failure(`${method} ${url.pathname}: no answer after every deadline passed`);
    clock.advance(Math.max(LIMITS.pairReplyWaitMs, LIMITS.callReplyWaitMs) + 1);
  }
  let response: Response;
  try {
    response = await answer;
  } catch (error) {
    inFlight.delete(id);
    return failure(`the app threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  inFlight.delete(id);
  const text = new Uint8Array(await response.arrayBuffer());
  count(`http:${response.status}`);
  if (!response.headers.get('content-security-policy')) failure(`${url.pathname}: no security headers`);
  if (!response.headers.get('cache-control')) failure(`${url.pathname}: no cache-control`);
  const socketPath = url.pathname === '/relay/host' || url.pathname.startsWith('/relay/connect/');
  // The host's own answer passes through as it is.
  if (record.reply && sameBytes(text, record.reply.body) && response.status === record.reply.status) return;
  if (response.status === 500) {
    // `app.request` has no socket to upgrade: only an admitted WebSocket request ends here.
    if (!(upgrade && (method === 'GET' || method === 'HEAD') && socketPath)) failure(`${method} ${url.pathname}: 500`);
    return;
  }
  if (record.reply) {
    failure(`${url.pathname}: the host answered ${record.reply.status} but the caller got ${response.status}`);
  }
  if (url.pathname === '/metrics' && response.status === 200) {
    const body = new TextDecoder().decode(text);
    for (const h of identities) if (body.includes(h.hostId)) failure('/metrics names a host');
    for (const s of SOURCES) if (body.includes(s)) failure('/metrics names an address');
  }
  if (url.pathname.startsWith('/relay/') && response.status >= 400 && method !== 'HEAD') {
    let code: unknown;
    try {
      code = (JSON.parse(new TextDecoder().decode(text)) as { error?: { code?: unknown } }).error?.code;
    } catch {
      code = undefined;
    }
    if (typeof code !== 'string' || !isErrorCode(code)) {
      failure(`${method} ${url.pathname}: ${response.status} without a stable error code`);
    }
  }
}
