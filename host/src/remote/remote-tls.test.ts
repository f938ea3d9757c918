import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { get as httpGet } from 'node:http';
import { get as httpsGet, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import type { WebSocketConstructor } from '@tether/shared-protocol';
import {
  DeviceClient,
  fail,
  generateBoxKeyPair,
  ok,
  pairWithHost,
  parsePairingLink,
  fromBase64UrlExact,
  webSocketConnect,
} from '@tether/shared-protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { until } from '../../test/support/remote-device.js';
import type { TestHost } from '../../test/support/test-host.js';
import { startTestHost } from '../../test/support/test-host.js';
import { loadTls } from './tls.js';

let dir: string;
let cert: string;
let key: string;
let t: TestHost | undefined;

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl. */
function selfSigned(name: string): { cert: string; key: string } {
  const c = join(dir, `${name}.crt`);
  const k = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=tether test',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      k,
      '-out',
      c,
    ],
    { stdio: 'ignore' },
  );
  return { cert: c, key: k };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tether-tls-'));
  ({ cert, key } = selfSigned('host'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function httpsJson(url: string, body: unknown, ca: Buffer): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** GET with `Accept-Encoding: br`: the status, headers and raw (still encoded) body. */
function getRaw(url: string, ca: Buffer): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const options = { ca, headers: { 'accept-encoding': 'br' } };
    const done = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    };
    (url.startsWith('https:') ? httpsGet(url, options, done) : httpGet(url, options, done)).on('error', reject);
  });
}

describe('TLS', () => {
  it('lets hashed assets be cached for good over HTTPS only, and sends them compressed either way', async () => {
    const appDir = join(dir, 'app');
    mkdirSync(join(appDir, 'assets'), { recursive: true });
    writeFileSync(join(appDir, 'index.html'), '<!doctype html>app');
    const script = Buffer.from('export const words = ["approve", "deny", "session"];\n'.repeat(100));
    writeFileSync(join(appDir, 'assets', 'app-abc123.js'), script);
    writeFileSync(join(appDir, 'assets', 'app-abc123.js.br'), brotliCompressSync(script));
    const ca = readFileSync(cert);
    for (const tls of [true, false]) {
      t = await startTestHost({
        remote: { bind: '127.0.0.1', port: 0, roots: [], appDir, ...(tls ? { tlsCert: cert, tlsKey: key } : {}) },
      });
      const r = await getRaw(`${t.url}/assets/app-abc123.js`, ca);
      expect(r.status).toBe(200);
      expect(r.headers['cache-control']).toBe(tls ? 'public, max-age=31536000, immutable' : 'no-cache');
      expect(r.headers['content-encoding']).toBe('br');
      expect(r.headers.vary).toBe('Accept-Encoding');
      expect(brotliDecompressSync(r.body)).toEqual(script);
      await t.close();
      t = undefined;
    }
  });

  it('serves HTTPS and WSS with a certificate of its own, and pairs and connects over it', async () => {
    t = await startTestHost({ remote: { bind: '127.0.0.1', port: 0, roots: [], tlsCert: cert, tlsKey: key } });
    const remote = { url: t.url, mode: t.host.parts.reach.listener!.mode, pairing: t.host.parts.gateway.pairing };
    expect(remote.mode).toBe('https');
    expect(remote.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = readFileSync(cert);
    const link = parsePairingLink(t.pairLink());
    if (!link.ok) throw new Error('link');
    const keys = generateBoxKeyPair();
    const paired = pairWithHost({
      link: link.value,
      devicePublicKey: keys.publicKey,
      label: 'tls phone',
      post: async (body) => {
        const response = await httpsJson(`${remote.url}/rc/pair`, body, ca);
        return response.status === 200 ? ok(response.body) : fail('pair-failed', `HTTP ${response.status}`);
      },
      onCode: () => undefined,
    });
    const waiting = await until(() => remote.pairing.requests()[0]);
    // Over TLS the request counts as secure: allowed without choosing, the device gets the full default.
    expect(waiting).toMatchObject({ secure: true, scopes: ['watch', 'approve', 'chat', 'terminal'] });
    remote.pairing.allow(waiting.id);
    const reply = await paired;
    if (!reply.ok) throw new Error(reply.error.message);

    class TrustingWebSocket extends WebSocket {
      constructor(url: string) {
        super(url, { ca });
      }
    }
    const client = new DeviceClient({
      deviceId: reply.value.deviceId,
      deviceKeys: keys,
      hostBoxPublicKey: fromBase64UrlExact(reply.value.hostBoxPublicKey, 32)!,
      connect: webSocketConnect(
        `${remote.url.replace('https', 'wss')}/rc/ws`,
        TrustingWebSocket as unknown as WebSocketConstructor,
      ),
    });
    client.start();
    try {
      const info = await client.call('host.info', {});
      expect(info.ok && info.value.hostId).toBe(t.host.parts.identity.hostId);
    } finally {
      client.stop();
    }
  });

  it('refuses a key that is not the certificate’s, and files that are not PEM', () => {
    const other = selfSigned('other');
    expect(loadTls(cert, other.key, '127.0.0.1')).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('is not the key of') as string },
    });
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    expect(loadTls(junk, key, '127.0.0.1').ok).toBe(false);
    expect(loadTls(join(dir, 'missing.crt'), key, '127.0.0.1').ok).toBe(false);
  });

  it('names the URL after the certificate: the bound address when listed, else its DNS name', () => {
    expect(loadTls(cert, key, '127.0.0.1')).toMatchObject({ ok: true, value: { name: '127.0.0.1' } });
    expect(loadTls(cert, key, '10.1.1.1')).toMatchObject({ ok: true, value: { name: 'localhost' } });
  });

  it('refuses --tls-cert without --tls-key, and a bind to every interface', async () => {
    await expect(startTestHost({ remote: { bind: '127.0.0.1', port: 0, roots: [], tlsCert: cert } })).rejects.toThrow(
      /go together/,
    );
    await expect(startTestHost({ remote: { bind: '0.0.0.0', port: 0, roots: [] } })).rejects.toThrow(/every interface/);
  });
});
