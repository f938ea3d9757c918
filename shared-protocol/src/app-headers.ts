/**
 * The headers every server that serves the app (the host's remote-control listener, a relay) sends
 * with each response. One copy, so that the app gets the same protection wherever it loads from.
 */

/** The one inline style the policy allows: the empty one (the hash is the empty text's, so no
 * text can match it). The terminal's emulator adds `<style>` elements whose rules the app keeps
 * out of them and applies as constructed sheets (pwa/src/terminal/xterm-view.ts); an empty element
 * is still checked, and without this refused with an error in the console. */
export const EMPTY_STYLE_HASH = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='";

/** The strict policy every page gets: only its own origin, no inline script or style, no framing.
 * `connect-src 'self'` covers the same origin's WebSockets (`wss:` on an `https:` page). */
export const APP_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  `style-src 'self' ${EMPTY_STYLE_HASH}`,
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "media-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const APP_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': APP_CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(self), microphone=(), geolocation=()',
};

/** The Content-Type of each kind of file the built app holds; anything else is `application/octet-stream`. */
export const APP_FILE_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** What `appHeaders` needs of a request's context (a Hono `Context` has it): its path and response. */
interface HeadersContext {
  req: { path: string };
  res: { headers: { set(name: string, value: string): void; has(name: string): boolean } };
}

/**
 * A Hono middleware, used by every server of the app: once a route or a refusal has made the
 * response, it puts `headers(path)` on it, and `cacheDefault` as its Cache-Control when it says
 * nothing about caching (only the app's files do).
 */
export function appHeaders(headers: (path: string) => Readonly<Record<string, string>>, cacheDefault?: string) {
  return async (c: HeadersContext, next: () => Promise<void>): Promise<void> => {
    await next();
    for (const [name, value] of Object.entries(headers(c.req.path))) c.res.headers.set(name, value);
    if (cacheDefault !== undefined && !c.res.headers.has('Cache-Control')) {
      c.res.headers.set('Cache-Control', cacheDefault);
    }
  };
}
