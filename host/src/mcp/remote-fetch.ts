import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';

/**
 * The rules for a remote (streamable HTTP) MCP server, and the fetch its SDK transport is given.
 *
 * - The URL is https://, or http:// only to a loopback address; it never carries credentials
 *   (`user:password@`): a token belongs in `headers`, which are not written to logs or URLs.
 * - `localhost` and every name under it are loopback by definition (RFC 6761), and connect to
 *   127.0.0.1 or ::1 without asking a resolver: the system's resolver asks DNS for `mcp.localhost`,
 *   whose answer could send cleartext and the headers to any address.
 * - The configured headers are added by this fetch to requests for the server's own origin only
 *   (scheme, host and port), never handed to the SDK's request options.
 * - Redirects are followed here, by hand (`redirect: 'manual'`): the moment a hop leaves the
 *   origin, the configured headers and every credential header are dropped for the rest of the
 *   chain; a hop to cleartext http:// off loopback, or carrying credentials in its URL, is refused;
 *   more than MAX_REDIRECTS hops is an error (a loop), never an endless chase.
 */

/** The fetch the SDK transport calls (the WHATWG signature, as Node's global fetch). */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Hops followed per request; the next redirect is an error. Browsers allow 20; an MCP endpoint needs one or two. */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that carry credentials whoever set them (the SDK's OAuth, a cookie), dropped off-origin too. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];
/** Ties requests to the server's session: meaningless, and a leak, anywhere else. */
const SESSION_HEADERS = ['mcp-session-id'];

/** A refused or failed hop; its message names the server and never a header's value. */
export class RemoteMcpError extends Error {
  override readonly name = 'RemoteMcpError';
}

/** `localhost` and any name under it (`mcp.localhost`), as a URL's hostname gives it. */
export function isLocalhostName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost');
}

/** `localhost` names, 127.0.0.0/8 and ::1: where cleartext http stays on this computer. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (isLocalhostName(host)) return true;
  if (host === '[::1]' || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Answers every name with the loopback addresses: the lookup of connections to `localhost` names. */
const loopbackLookup: LookupFunction = (_hostname, options, callback) => {
  const addresses = [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ].filter((a) => !options.family || a.family === options.family);
  if (options.all) callback(null, addresses);
  else callback(null, addresses[0]!.address, addresses[0]!.family);
};

let loopbackAgent: Agent | undefined;

/** The connections of requests to `localhost` names: to this computer's loopback, whatever DNS says. */
function loopbackDispatcher(): Agent {
  return (loopbackAgent ??= new Agent({ connect: { lookup: loopbackLookup } }));
}

/** Why a configured server URL is refused, or undefined when it is acceptable. */
export function remoteUrlProblem(text: string): string | undefined {
  if (!URL.canParse(text)) return 'must be an http:// or https:// URL';
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http:// or https:// URL';
  if (url.username !== '' || url.password !== '')
    return 'must not hold credentials (user:password@); put a token in "headers", which go only to this server';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return 'must be https:// (cleartext http:// is accepted only for a loopback address such as 127.0.0.1)';
  return undefined;
}

/** The URL as it may be shown: origin and path, no query or fragment (where tokens hide). */
export function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * A fetch for one server at `serverUrl`: adds `headers` to its own origin's requests only and
 * follows redirects by hand under the rules above. `base` is the network fetch (tests pass none).
 */
export function originPinnedFetch(
  serverUrl: URL,
  headers: Readonly<Record<string, string>>,
  base: FetchLike = fetch,
): FetchLike {
  const origin = serverUrl.origin;
  const dropped = [...CREDENTIAL_HEADERS, ...SESSION_HEADERS, ...Object.keys(headers).map((h) => h.toLowerCase())];
  return async (input, init = {}) => {
    let url = new URL(input instanceof URL ? input.href : input);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    let left = false;
    for (let hop = 0; ; hop++) {
      left ||= url.origin !== origin;
      const sent = new Headers(init.headers);
      if (left) for (const name of dropped) sent.delete(name);
      else for (const [name, value] of Object.entries(headers)) sent.set(name, value);
      if (body === undefined) sent.delete('content-type');
      const response = await base(url, {
        ...init,
        method,
        body: body ?? null,
        headers: sent,
        redirect: 'manual',
        // A `localhost` name is pinned to loopback (the global fetch takes undici's dispatcher).
        ...(isLocalhostName(url.hostname) ? { dispatcher: loopbackDispatcher() } : {}),
      });
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
      if (location === null) return response;
      await response.body?.cancel();
      if (hop >= MAX_REDIRECTS) {
        throw new RemoteMcpError(
          `${shownUrl(serverUrl)} redirected more than ${MAX_REDIRECTS} times (a redirect loop?); not followed further`,
        );
      }
      const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
      if (next === undefined || (next.protocol !== 'https:' && next.protocol !== 'http:')) {
        throw new RemoteMcpError(`${shownUrl(url)} redirected to something that is not an http(s) URL; not followed`);
      }
      if (next.username !== '' || next.password !== '') {
        next.username = next.password = '';
        throw new RemoteMcpError(
          `${shownUrl(url)} redirected to a URL with credentials (${shownUrl(next)}); not followed`,
        );
      }
      if (next.protocol === 'http:' && !isLoopbackHost(next.hostname)) {
        throw new RemoteMcpError(`${shownUrl(url)} redirected to cleartext ${shownUrl(next)}; refused (https only)`);
      }
      // As fetch does: 303 (and 301/302 after a POST) turn into a GET without the body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      url = next;
    }
  };
}
