import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { AppFile } from '@tether/shared-protocol';
import { CONTENT_SECURITY_POLICY, createHttpApp } from './http-app.js';
import { HostCounters } from '../stats/host-counters.js';

const HOST = '10.0.0.2:7420';
const ORIGIN = `http://${HOST}`;

/** A script big enough to be precompressed, with its brotli and gzip forms as the build makes them. */
const SCRIPT = 'export const words = ["approve", "deny", "session"];\n'.repeat(100);
const scriptBytes = new TextEncoder().encode(SCRIPT);

function app(options: { app?: boolean; https?: boolean } = {}) {
  const stats = new HostCounters();
  const files = new Map<string, AppFile>([
    [
      '/index.html',
      { body: new TextEncoder().encode('<!doctype html>app'), type: 'text/html; charset=utf-8', immutable: false },
    ],
    [
      '/assets/app-abc123.js',
      { body: new TextEncoder().encode('console.log(1)'), type: 'text/javascript; charset=utf-8', immutable: true },
    ],
    [
      '/assets/big-def456.js',
      {
        body: scriptBytes,
        type: 'text/javascript; charset=utf-8',
        immutable: true,
        encoded: { br: brotliCompressSync(scriptBytes), gzip: gzipSync(scriptBytes) },
      },
    ],
  ]);
  const pairs: unknown[] = [];
  const hono = createHttpApp({
    allowedHosts: () => new Set([HOST]),
    allowedOrigins: () => new Set([ORIGIN]),
    pair: (body) => {
      pairs.push(body);
      return Promise.resolve({ ok: false, error: { code: 'pair-denied', message: 'no' } });
    },
    oneShot: () => Promise.resolve({ ok: false, error: { code: 'handshake-failed', message: 'call refused' } }),
    app: options.app === false ? undefined : files,
    https: options.https ?? false,
    stats,
  });
  const request = (path: string, init: RequestInit & { host?: string } = {}) =>
    hono.request(path, { ...init, headers: { host: init.host ?? HOST, ...(init.headers as Record<string, string>) } });
  return { request, stats, pairs };
}

describe('HTTP routes', () => {
  it('serves the app with strict headers and sensible caching', async () => {
    const { request } = app();
    const index = await request('/');
    expect(index.status).toBe(200);
    expect(await index.text()).toBe('<!doctype html>app');
    expect(index.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(index.headers.get('x-frame-options')).toBe('DENY');
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect((await request('/../../etc/passwd')).status).toBe(404);
    expect((await request('/nope.js')).status).toBe(404);
  });

  it('caches hashed assets for good over HTTPS only', async () => {
    const https = app({ https: true });
    const secure = await https.request('/assets/app-abc123.js');
    expect(secure.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await https.request('/')).headers.get('cache-control')).toBe('no-cache');
    // Over plain HTTP a response may have been swapped on the way: it must not be kept for a year.
    const plain = app({ https: false });
    for (const path of ['/assets/app-abc123.js', '/assets/big-def456.js', '/']) {
      const r = await plain.request(path);
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(r.headers.get('etag')).toBeNull();
      expect(r.headers.get('last-modified')).toBeNull();
    }
  });

  it('sends brotli, else gzip, whichever the client accepts (q=0 refuses a coding)', async () => {
    const { request } = app();
    const get = (acceptEncoding?: string) =>
      request(
        '/assets/big-def456.js',
        acceptEncoding === undefined ? {} : { headers: { 'accept-encoding': acceptEncoding } },
      );
    const cases: [string | undefined, string | null][] = [
      ['gzip, deflate, br, zstd', 'br'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip;q=1.0, br;q=0.5', 'br'],
      ['br;q=0.8, gzip;q=0.8', 'br'],
      ['br;q=0, gzip', 'gzip'],
      ['*;q=0, gzip', 'gzip'],
      ['gzip, br;q=0', 'gzip'],
      ['br;q=0, gzip;q=0', null],
      ['*;q=0', null],
      ['*', null],
      ['identity', null],
      ['deflate, zstd', null],
      ['', null],
      [undefined, null],
    ];
    for (const [acceptEncoding, expected] of cases) {
      const r = await get(acceptEncoding);
      expect(r.status, String(acceptEncoding)).toBe(200);
      expect(r.headers.get('content-encoding'), String(acceptEncoding)).toBe(expected);
      expect(r.headers.get('vary'), String(acceptEncoding)).toBe('Accept-Encoding');
      expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      const bytes = new Uint8Array(await r.arrayBuffer());
      const opened = expected === 'br' ? brotliDecompressSync(bytes) : expected === 'gzip' ? gunzipSync(bytes) : bytes;
      expect(new TextDecoder().decode(opened), String(acceptEncoding)).toBe(SCRIPT);
      if (expected) expect(bytes.length).toBeLessThan(scriptBytes.length / 5);
    }
  });

  it('sends a file that has no compressed form as it is, without Vary', async () => {
    const { request } = app();
    const r = await request('/assets/app-abc123.js', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(r.headers.get('content-encoding')).toBeNull();
    expect(r.headers.get('vary')).toBeNull();
    expect(await r.text()).toBe('console.log(1)');
  });

  it('says so when the app is not built', async () => {
    const { request } = app({ app: false });
    const r = await request('/');
    expect(r.status).toBe(503);
    expect(await r.text()).toContain('npm run build');
  });

  it('refuses another Host (DNS rebinding) everywhere, with headers still set', async () => {
    const { request, stats } = app();
    for (const path of ['/', '/rc/pair']) {
      const r = await request(path, { host: 'evil.example' });
      expect(r.status).toBe(403);
      expect(r.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    }
    expect(stats.get('http:bad-host')).toBe(2);
  });

  it('refuses /rc calls from another Origin, and never caches /rc answers', async () => {
    const { request, pairs } = app();
    const evil = await request('/rc/pair', {
      method: 'POST',
      body: '{}',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
    });
    expect(evil.status).toBe(403);
    expect(pairs).toHaveLength(0);
    const same = await request('/rc/pair', {
      method: 'POST',
      body: '{}',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
    });
    expect(same.status).toBe(403);
    expect(await same.json()).toEqual({ error: { code: 'pair-denied', message: 'no' } });
    expect(same.headers.get('cache-control')).toBe('no-store');
    expect(pairs).toHaveLength(1);
  });

  it('caps bodies and checks content types', async () => {
    const { request } = app();
    const big = await request('/rc/pair', {
      method: 'POST',
      body: 'x'.repeat(20_000),
      headers: { 'content-type': 'application/json' },
    });
    expect(big.status).toBe(413);
    const text = await request('/rc/pair', { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
    const call = await request('/rc/call', { method: 'POST', body: new Uint8Array(70_000) });
    expect(call.status).toBe(413);
    const refused = await request('/rc/call', { method: 'POST', body: new Uint8Array(100) });
    expect(refused.status).toBe(401);
    expect((await request('/rc/unknown')).status).toBe(404);
  });
});
