import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { APP_SECURITY_HEADERS } from '@tether/shared-protocol';
import { APP_FIXTURE, APP_FIXTURE_SCRIPT, describeResponse } from '@tether/shared-protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppFiles } from './app-files.js';
import { RelayServer } from './relay-server.js';

const script = APP_FIXTURE_SCRIPT;
const IMMUTABLE = 'public, max-age=31536000, immutable';

let dir: string;
let relay: RelayServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'relay-app-serving-'));
  mkdirSync(join(dir, 'assets'));
  for (const [path, text] of Object.entries(APP_FIXTURE)) writeFileSync(join(dir, path), text);
  writeFileSync(join(dir, 'assets', 'app-1.js.br'), brotliCompressSync(script));
  const app = loadAppFiles(dir);
  if (!app || typeof app === 'string') throw new Error('no app');
  const started = await RelayServer.start({ bind: '127.0.0.1', port: 0, app });
  if (!started.ok) throw new Error(started.error.message);
  relay = started.value;
});

afterAll(async () => {
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

async function get(path: string, acceptEncoding: string, method = 'GET') {
  const r = await fetch(`${relay.url}${path}`, { method, headers: { 'accept-encoding': acceptEncoding } });
  return {
    ...(await describeResponse(r)),
    secure: Object.entries(APP_SECURITY_HEADERS).every(([name, value]) => r.headers.get(name) === value),
  };
}

describe('the app from a relay, over a real socket', () => {
  it('sends each file with its type and caching, compressed at build time where it can be, with the security headers', async () => {
    const cases: [string, string, Partial<Awaited<ReturnType<typeof get>>>][] = [
      [
        '/',
        'br, gzip',
        { type: 'text/html; charset=utf-8', cache: 'no-cache', body: '<!doctype html><title>Tether</title>' },
      ],
      ['/index.html', 'identity', { type: 'text/html; charset=utf-8', cache: 'no-cache' }],
      ['/sw.js', 'br, gzip', { type: 'text/javascript; charset=utf-8', cache: 'no-cache' }],
      ['/manifest.webmanifest', 'identity', { type: 'application/manifest+json; charset=utf-8', cache: 'no-cache' }],
      ['/notes.xyz', 'br, gzip', { type: 'application/octet-stream', cache: 'no-cache', body: 'plain' }],
    ];
    const js = { type: 'text/javascript; charset=utf-8', cache: IMMUTABLE, body: script, vary: 'Accept-Encoding' };
    for (const [path, acceptEncoding, expected] of cases) {
      expect(await get(path, acceptEncoding), `${path} ${acceptEncoding}`).toMatchObject({
        status: 200,
        secure: true,
        encoding: null,
        vary: null,
        ...expected,
      });
    }
    // The build's brotli form goes to a browser that takes it, the bytes as they are to one that doesn't.
    expect(await get('/assets/app-1.js', 'br, gzip')).toMatchObject({
      status: 200,
      secure: true,
      encoding: 'br',
      ...js,
    });
    expect(await get('/assets/app-1.js', 'identity')).toMatchObject({
      status: 200,
      secure: true,
      encoding: null,
      ...js,
    });
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    expect(await get('/assets/app-1.js', 'br, gzip', 'HEAD')).toMatchObject({
      status: 200,
      type: 'text/javascript; charset=utf-8',
      cache: IMMUTABLE,
      body: '',
    });
  });

  it('has no fallback page and serves nothing outside the app', async () => {
    for (const path of [
      '/nope',
      '/session/1',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/assets/..%2findex.html',
      '//index.html',
      '/assets/app-1.js.br',
    ]) {
      expect(await get(path, 'br, gzip'), path).toMatchObject({
        status: 404,
        body: 'Not found',
        cache: 'no-store',
        secure: true,
      });
    }
  });
});
