import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { ServerType } from '@hono/node-server';
import { serve } from '@hono/node-server';
import { APP_FIXTURE, APP_FIXTURE_SCRIPT, describeResponse } from '@tether/shared-protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppFiles } from './app-files.js';
import { CONTENT_SECURITY_POLICY, createHttpApp } from './http-app.js';
import { HostCounters } from '../stats/host-counters.js';

const script = APP_FIXTURE_SCRIPT;
const styles = 'body { margin: 0; padding: 0; color: black; }\n'.repeat(50);

let dir: string;
let server: ServerType;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tether-app-serving-'));
  mkdirSync(join(dir, 'assets'));
  for (const [path, text] of Object.entries(APP_FIXTURE)) writeFileSync(join(dir, path), text);
  writeFileSync(join(dir, 'icon.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  writeFileSync(join(dir, 'assets', 'app-1.js.br'), brotliCompressSync(script));
  writeFileSync(join(dir, 'assets', 'app-1.js.gz'), gzipSync(script));
  writeFileSync(join(dir, 'assets', 'app-1.css'), styles);
  writeFileSync(join(dir, 'assets', 'app-1.css.gz'), gzipSync(styles));
  const app = createHttpApp({
    allowedHosts: () => new Set([new URL(base).host]),
    allowedOrigins: () => new Set([base]),
    pair: () => Promise.resolve({ ok: false, error: { code: 'pair-denied', message: 'no' } }),
    oneShot: () => Promise.resolve({ ok: false, error: { code: 'handshake-failed', message: 'no' } }),
    app: loadAppFiles(dir),
    https: true,
    stats: new HostCounters(),
  });
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** What a response says, header by header, and what its body opens to. */
async function get(path: string, acceptEncoding: string, method = 'GET') {
  const r = await fetch(`${base}${path}`, { method, headers: { 'accept-encoding': acceptEncoding } });
  return {
    ...(await describeResponse(r)),
    csp: r.headers.get('content-security-policy') === CONTENT_SECURITY_POLICY,
    nosniff: r.headers.get('x-content-type-options'),
    frame: r.headers.get('x-frame-options'),
  };
}

describe('the app over a real socket', () => {
  it('sends each file with its type, caching and compressed form', async () => {
    const cases: [string, string, Partial<Awaited<ReturnType<typeof get>>>][] = [
      ['/', 'br, gzip', { type: 'text/html; charset=utf-8', cache: 'no-cache', vary: null, encoding: null }],
      ['/index.html', 'identity', { type: 'text/html; charset=utf-8', cache: 'no-cache', encoding: null }],
      ['/sw.js', 'br, gzip', { type: 'text/javascript; charset=utf-8', cache: 'no-cache', vary: null }],
      ['/manifest.webmanifest', 'br', { type: 'application/manifest+json; charset=utf-8', cache: 'no-cache' }],
      ['/icon.png', 'br, gzip', { type: 'image/png', cache: 'no-cache', encoding: null }],
      ['/notes.xyz', 'br, gzip', { type: 'application/octet-stream', cache: 'no-cache', encoding: null }],
      ['/assets/app-1.js', 'br, gzip', { type: 'text/javascript; charset=utf-8', cache: IMMUTABLE, encoding: 'br' }],
      ['/assets/app-1.js', 'gzip', { cache: IMMUTABLE, vary: 'Accept-Encoding', encoding: 'gzip', body: script }],
      ['/assets/app-1.js', 'identity', { vary: 'Accept-Encoding', encoding: null, body: script }],
      ['/assets/app-1.css', 'br, gzip', { type: 'text/css; charset=utf-8', encoding: 'gzip', body: styles }],
      ['/assets/app-1.css', 'br', { vary: 'Accept-Encoding', encoding: null, body: styles }],
    ];
    for (const [path, acceptEncoding, expected] of cases) {
      const r = await get(path, acceptEncoding);
      expect(r, `${path} ${acceptEncoding}`).toMatchObject({
        status: 200,
        csp: true,
        nosniff: 'nosniff',
        frame: 'DENY',
        ...expected,
      });
    }
    expect((await get('/assets/app-1.js', 'br, gzip')).body).toBe(script);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    expect(await get('/assets/app-1.js', 'br, gzip', 'HEAD')).toMatchObject({
      status: 200,
      type: 'text/javascript; charset=utf-8',
      cache: IMMUTABLE,
      vary: 'Accept-Encoding',
      encoding: 'br',
      body: '',
    });
    expect(await get('/', 'identity', 'HEAD')).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
  });

  it('has no fallback page and serves nothing outside the app', async () => {
    for (const path of [
      '/nope',
      '/session/1',
      '/assets/app-1.js.br',
      '/assets/app-1.js.gz',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/assets/..%2findex.html',
      '/assets%2fapp-1.js',
      '//index.html',
      '/index.html/',
    ]) {
      const r = await get(path, 'br, gzip');
      expect(r, path).toMatchObject({ status: 404, body: 'Not found', csp: true, nosniff: 'nosniff' });
    }
  });
});
