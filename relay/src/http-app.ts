import type { AppFile, AppFiles, Clock, ErrorCode, ProtocolError, RelayAnswer } from '@tether/shared-protocol';
import {
  APP_SECURITY_HEADERS,
  AddressLimiter,
  NO_CALL_TAKER,
  NO_SUCH_PAIRING,
  RELAY_MAX_CALL_BODY,
  RELAY_MAX_PAIR_BODY,
  appFileOptions,
  appHeaders,
  checkCallShape,
  decodePairRequestBytes,
  httpStatusFor,
  isHostId,
  protocolError,
  relayAnswerBody,
} from '@tether/shared-protocol';
import type { Context, Handler, MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { serveStatic } from 'hono/serve-static';
import type { Census } from './census.js';
import type { RelayLimits } from './limits.js';
import type { LimiterName, RefusalReason, RelayMetrics, RequestKind } from './metrics.js';
import type { PeerPort } from './peer-port.js';
import type { HostRoutes } from './routes.js';
import { sourceAddress } from './source-address.js';
import { WsPort } from './ws-port.js';
import type { UpgradeEnv } from './ws-upgrade.js';

export interface RelayAppDeps {
  relay: {
    readonly census: Census;
    acceptHost(port: PeerPort): unknown;
    acceptDevice(port: PeerPort, hostId: string): unknown;
    request: HostRoutes['request'];
  };
  limits: RelayLimits;
  metrics: RelayMetrics;
  clock: Pick<Clock, 'now' | 'setTimeout'>;
  /** Peers whose `X-Forwarded-For` is believed (the load balancers in front of the relay). */
  trustedProxies: ReadonlySet<string>;
  /** The app's files; undefined when it is not built; `forward-only` to serve no page at all. */
  app: AppFiles | undefined | 'forward-only';
  isClosing: () => boolean;
}

/**
 * The headers of a forward-only relay (`--no-app`): the app's, with a policy under which nothing
 * runs at all, since no page is meant to come from here; nothing may load, frame or post.
 */
const FORWARD_ONLY_HEADERS: Readonly<Record<string, string>> = {
  ...APP_SECURITY_HEADERS,
  'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

/** One of the answers that read the same from the relay and from a host (relay-answers). */
function answer(a: RelayAnswer): Response {
  return new Response(relayAnswerBody(a) as Uint8Array<ArrayBuffer>, {
    status: a.status,
    headers: { 'Content-Type': 'application/json' },
  });
}

function errorResponse(error: ProtocolError): Response {
  return new Response(JSON.stringify({ error }), {
    status: httpStatusFor(error.code),
    headers: { 'Content-Type': 'application/json' },
  });
}

/** The address of the socket under a request, when Hono runs on @hono/node-server. */
function peerAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/**
 * The relay's HTTP side: the two WebSocket endpoints, pair requests and one-shot calls forwarded
 * to hosts, health and metrics, and the app's files. Every response carries the app's security
 * headers; nothing under `/relay/` is cached. Admission (node full, too many unauthenticated sockets,
 * per-address rates) is decided before a socket is upgraded, so a refused client costs one response.
 */
export function createRelayApp(deps: RelayAppDeps): Hono {
  const app = new Hono();
  const l = deps.limits;
  const limiter = (name: LimiterName, perSecond: number, burst: number) =>
    new AddressLimiter(deps.clock, {
      perSecond,
      burst,
      maxRanges: l.maxTrackedAddresses,
      onForget: () => deps.metrics.evicted(name),
    });
  const connects = limiter('connect', l.connectsPerSecond, l.connectBurst);
  const pairs = limiter('pair', l.pairsPerSecond, l.pairBurst);
  const calls = limiter('call', l.callsPerSecond, l.callBurst);
  const source = (c: Context) => sourceAddress(peerAddress(c), c.req.header('x-forwarded-for'), deps.trustedProxies);
  const refuse = (reason: RefusalReason, code: ErrorCode, message: string) => {
    deps.metrics.refuse(reason);
    return errorResponse(protocolError(code, message));
  };

  const forwardOnly = deps.app === 'forward-only';
  const headers = forwardOnly ? FORWARD_ONLY_HEADERS : APP_SECURITY_HEADERS;
  // Only the app's files say how to cache them; everything else is never stored.
  app.use(
    '*',
    appHeaders(() => headers, 'no-store'),
  );

  const validHost: MiddlewareHandler = async (c, next) => {
    if (!isHostId(c.req.param('hostId') ?? '')) return refuse('bad-host-id', 'not-found', 'no such host id');
    await next();
  };

  /** Before a WebSocket upgrade: is this node taking more sockets, and is this address? */
  const admitSocket: MiddlewareHandler = async (c, next) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
      deps.metrics.refuse('upgrade-required');
      return c.json({ error: protocolError('bad-request', 'this endpoint takes a WebSocket') }, 426);
    }
    if (deps.isClosing()) return refuse('shutting-down', 'unavailable', 'this relay node is shutting down');
    const census = deps.relay.census;
    const from = source(c);
    if (census.open >= l.maxConnections) return refuse('node-full', 'busy', 'this relay node is full');
    if (census.refuses(from))
      return refuse('pending-full', 'busy', 'too many connections from this address are waiting');
    if (!connects.allow(from)) {
      return refuse('rate-limited', 'rate-limited', 'too many connections from this address');
    }
    await next();
  };

  /**
   * An admitted socket: upgraded by `ws-upgrade.ts`, which passes `upgrade` in the env. Without it
   * (`app.request` in tests) there is nothing to upgrade, and the answer is 500: "admitted".
   */
  const socket =
    (accept: (port: PeerPort, at: { hostId: string | undefined }) => unknown): Handler =>
    (c) => {
      const env = c.env as Partial<UpgradeEnv> | undefined;
      if (!env?.upgrade) return c.json({ error: protocolError('internal', 'no WebSocket upgrade here') }, 500);
      const from = source(c);
      const hostId = c.req.param('hostId');
      env.upgrade((ws) => accept(new WsPort(ws, from), { hostId }));
      return c.body(null, 204);
    };

  app.get(
    '/relay/host',
    admitSocket,
    socket((port) => deps.relay.acceptHost(port)),
  );
  app.get(
    '/relay/connect/:hostId',
    validHost,
    admitSocket,
    socket((port, at) => deps.relay.acceptDevice(port, at.hostId!)),
  );

  /** Per-address rate first: the cheapest refusal, and every attempt counts, whatever its body. */
  const limitRequests =
    (kind: RequestKind, limiter: AddressLimiter): MiddlewareHandler =>
    async (c, next) => {
      if (deps.isClosing()) return refuse('shutting-down', 'unavailable', 'this relay node is shutting down');
      if (!limiter.allow(source(c))) {
        return refuse(
          kind === 'pair' ? 'pair-rate-limited' : 'call-rate-limited',
          'rate-limited',
          'too many requests from this address',
        );
      }
      await next();
    };

  /** Resolves once `floor` ms have passed since `since` (at once if they have). */
  const notBefore = (since: number) => {
    const wait = since + l.requestAnswerFloorMs - deps.clock.now();
    return wait <= 0 ? Promise.resolve() : new Promise<void>((resolve) => deps.clock.setTimeout(resolve, wait));
  };

  /**
   * A pair request or call, forwarded to the host. What a stranger can learn is the same whether
   * the host uses this relay or not (shared-protocol's relay-answers): a body that no host could
   * open is refused here before the host is looked for; a host id with no host gets the very
   * answer a linked host gives through the relay for a request it cannot open; and no answer
   * leaves before the floor, so the round trip to a host does not show either.
   */
  const forward = (kind: RequestKind, limiter: AddressLimiter, maxBody: number) =>
    [
      validHost,
      limitRequests(kind, limiter),
      bodyLimit({
        maxSize: maxBody,
        onError: () => refuse('body-too-large', 'too-large', `the body is over ${maxBody} bytes`),
      }),
      async (c: Context) => {
        const from = source(c);
        if (kind === 'pair' && !c.req.header('content-type')?.startsWith('application/json')) {
          return refuse('bad-content-type', 'bad-request', 'expected application/json');
        }
        const body = new Uint8Array(await c.req.arrayBuffer());
        const shape = kind === 'pair' ? decodePairRequestBytes(body) : checkCallShape(body);
        if (!shape.ok) {
          deps.metrics.refuse('malformed-request');
          return new Response(JSON.stringify({ error: shape.error }), {
            status: 400,
            headers: { 'Content-Type': 'application/json' },
          });
        }
        const arrived = deps.clock.now();
        const result = await deps.relay.request(kind, c.req.param('hostId')!, from, body, c.req.raw.signal);
        let response: Response;
        if (!result.ok && result.error.code === 'host-offline') {
          deps.metrics.refuse('host-offline');
          response = answer(kind === 'pair' ? NO_SUCH_PAIRING : NO_CALL_TAKER);
        } else if (!result.ok) {
          response = errorResponse(result.error);
        } else {
          const { status, body: reply } = result.value;
          // A pair reply is always JSON; a call's success is the sealed reply, its refusals JSON errors.
          const type = kind === 'call' && status === 200 ? 'application/octet-stream' : 'application/json';
          response = new Response(reply as Uint8Array<ArrayBuffer>, { status, headers: { 'Content-Type': type } });
        }
        await notBefore(arrived);
        return response;
      },
    ] as const;

  app.post('/relay/pair/:hostId', ...forward('pair', pairs, RELAY_MAX_PAIR_BODY));
  // A one-shot call may come from a page on another origin: the app on a host's own page answers a
  // notification through the host's relay when the host's address is out of reach. Any origin may
  // send one and read the answer: a call carries no ambient authority (no cookies; its body is
  // sealed to the host), and a stranger's answer is the same whatever host it names. Pair requests
  // get no such header, on purpose: a browser can then post one here only from this relay's own
  // pages, which is how a host knows that a pairing through its relay was made on the relay's page.
  app.options('/relay/call/:hostId', (c) => {
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Access-Control-Allow-Methods', 'POST');
    c.header('Access-Control-Allow-Headers', 'Content-Type');
    c.header('Access-Control-Max-Age', '600');
    return c.body(null, 204);
  });
  app.use('/relay/call/:hostId', async (c, next) => {
    await next();
    c.res.headers.set('Access-Control-Allow-Origin', '*');
  });
  app.post('/relay/call/:hostId', ...forward('call', calls, RELAY_MAX_CALL_BODY));
  app.all('/relay/*', (c) => c.json({ error: protocolError('not-found', 'no such endpoint') }, 404));

  // Whether this node answers, and nothing else: anyone may ask (load balancers, `tether doctor`),
  // so how many hosts and devices it carries is said only on /metrics, for the operator.
  // 503 while draining, so a load balancer's health check stops sending anyone here.
  app.get('/healthz', (c) => (deps.isClosing() ? c.json({ status: 'shutting-down' }, 503) : c.json({ status: 'ok' })));
  app.get('/metrics', (c) => c.text(deps.metrics.render(), 200, { 'Content-Type': 'text/plain; version=0.0.4' }));

  const files = deps.app;
  if (files === 'forward-only') {
    app.get('*', (c) => c.text('Not found: this relay forwards sealed frames and serves no app.', 404));
  } else if (!files) {
    app.get('*', (c) => c.text('The Tether app is not on this relay (start it with --app-dir).', 404));
  } else {
    // Hashed assets never change; everything else is checked every time (the service worker keeps
    // its own copy for offline use).
    const cacheControl = (file: AppFile) => (file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    app.get('*', serveStatic(appFileOptions(files, cacheControl)), (c) => c.text('Not found', 404));
  }

  return app;
}
