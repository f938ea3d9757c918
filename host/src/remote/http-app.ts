import type { AppFile, AppFiles, ErrorCode, PairReplyBody, ProtocolError, Result } from '@tether/shared-protocol';
import {
  APP_CONTENT_SECURITY_POLICY,
  APP_SECURITY_HEADERS,
  MAX_ONE_SHOT_BODY,
  MAX_PAIR_BODY,
  appFileOptions,
  appHeaders,
  httpStatusFor,
} from '@tether/shared-protocol';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { serveStatic } from 'hono/serve-static';
import type { HostCounters, HttpRefusal } from '../stats/host-counters.js';

/** The strict policy every page gets (one copy for every server of the app: shared-protocol). */
export const CONTENT_SECURITY_POLICY = APP_CONTENT_SECURITY_POLICY;

/**
 * The policy with more places the page may connect to: the host's relay, so that the app loaded
 * from the host can fall back to the relay when the host's own address is out of reach (an
 * installed app opened away from home). Only origins the host itself configured are ever added.
 */
export function contentSecurityPolicy(connectSources: readonly string[]): string {
  const extra = connectSources.filter((s) => /^(https?|wss?):\/\/[^\s;,'"]+$/.test(s));
  return extra.length === 0
    ? CONTENT_SECURITY_POLICY
    : CONTENT_SECURITY_POLICY.replace("connect-src 'self'", `connect-src 'self' ${extra.join(' ')}`);
}

export interface HttpAppDeps {
  /** `Host` header values this server answers to (lowercase `host:port`). */
  allowedHosts: () => ReadonlySet<string>;
  /** `Origin` values allowed to call `/rc/*`: this server's own origin, and configured ones. */
  allowedOrigins: () => ReadonlySet<string>;
  /** `origin`: the request's `Origin` header, already one of `allowedOrigins` (or none at all). */
  pair: (
    body: unknown,
    source: string,
    signal: AbortSignal,
    origin: string | undefined,
  ) => Promise<Result<PairReplyBody>>;
  oneShot: (body: Uint8Array, source: string) => Promise<Result<Uint8Array>>;
  app: AppFiles | undefined;
  /**
   * Whether this server is reached over HTTPS. Only then are hashed assets cached for good: over
   * plain HTTP a response may have been altered on the way, and must not outlive the visit.
   */
  https: boolean;
  stats: HostCounters;
  /** Origins the page may also connect to (the host's relay, as https: and wss:). */
  connectSources?: () => readonly string[];
}

/** A year, in seconds: hashed assets over HTTPS never change under their name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

function errorResponse(error: ProtocolError): Response {
  return new Response(JSON.stringify({ error }), {
    status: httpStatusFor(error.code),
    headers: { 'Content-Type': 'application/json' },
  });
}

function sourceOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The remote-control HTTP routes: the app's files, `POST /rc/pair` and `POST /rc/call`. Every
 * response carries strict security headers; `/rc/*` answers are never cached; a request for
 * another Host (DNS rebinding) or from another Origin is refused before any route runs.
 */
export function createHttpApp(deps: HttpAppDeps): Hono {
  const app = new Hono();
  const refuse = (reason: HttpRefusal, code: ErrorCode, message: string) => {
    deps.stats.add(`http:${reason}`);
    return errorResponse({ code, message });
  };

  const rc = (path: string) => path.startsWith('/rc/');
  app.use(
    '*',
    appHeaders((path) => ({
      ...APP_SECURITY_HEADERS,
      'Content-Security-Policy': contentSecurityPolicy(deps.connectSources?.() ?? []),
      ...(rc(path) ? { 'Cache-Control': 'no-store' } : {}),
    })),
  );
  // DNS rebinding: a page on another name that resolves here; and `/rc/*` from another page.
  app.use('*', async (c, next) => {
    const host = c.req.header('host')?.toLowerCase();
    const origin = c.req.header('origin');
    if (!host || !deps.allowedHosts().has(host)) {
      return refuse('bad-host', 'forbidden', 'this server does not answer to that host name');
    }
    if (origin !== undefined && rc(c.req.path) && !deps.allowedOrigins().has(origin)) {
      return refuse('bad-origin', 'forbidden', 'requests from that origin are not allowed');
    }
    await next();
  });

  const limit = (maxSize: number) =>
    bodyLimit({ maxSize, onError: () => refuse('too-large', 'too-large', `the body is over ${maxSize} bytes`) });

  app.post('/rc/pair', limit(MAX_PAIR_BODY), async (c) => {
    if (!c.req.header('content-type')?.startsWith('application/json')) {
      return refuse('bad-content-type', 'bad-request', 'expected application/json');
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return refuse('bad-json', 'pair-malformed', 'the body is not JSON');
    }
    const result = await deps.pair(body, sourceOf(c), c.req.raw.signal, c.req.header('origin'));
    if (!result.ok) {
      deps.stats.add(`pair:${result.error.code}`);
      return errorResponse(result.error);
    }
    deps.stats.add('pair:answered');
    return c.json(result.value);
  });

  app.post('/rc/call', limit(MAX_ONE_SHOT_BODY), async (c) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    const result = await deps.oneShot(body, sourceOf(c));
    if (!result.ok) return errorResponse(result.error);
    return c.body(result.value as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'application/octet-stream' });
  });

  app.all('/rc/*', () => refuse('not-found', 'not-found', 'no such endpoint'));

  const files = deps.app;
  if (!files) {
    app.get('*', (c) => c.text('The Tether app is not built. In the Tether repository run: npm run build', 503));
    return app;
  }
  // Over HTTPS hashed assets never change; everything else, and everything over plain HTTP, is
  // fetched again each time (no validators, so a response altered on the way cannot be revalidated
  // into staying). The service worker keeps its own copy for offline use.
  const cacheControl = (file: AppFile) => (file.immutable && deps.https ? IMMUTABLE : 'no-cache');
  app.get('*', serveStatic(appFileOptions(files, cacheControl)), (c) => c.text('Not found', 404));

  return app;
}
