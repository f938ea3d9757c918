import { generateHostIdentity } from '@tether/shared-protocol';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { main, redactUrl } from './cli.js';
import type { RelayServer } from './relay-server.js';
import { FakeHost } from './testing/clients.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tether-relay-cli-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `main` until `stop` resolves; collects what it prints. */
function run(argv: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  let stop!: () => void;
  let listening!: (relay: RelayServer) => void;
  const relay = new Promise<RelayServer>((resolve) => (listening = resolve));
  const status = main(argv, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    stop: new Promise<void>((resolve) => (stop = resolve)),
    onListening: listening,
    env,
  });
  return { out, err, status, relay, stop: () => stop() };
}

describe('tether-relay', () => {
  it('prints one listening event with --json, serves, and stops cleanly with status 0', async () => {
    const r = run(['--port', '0', '--json', '--app-dir', join(dir, 'nowhere')]);
    const relay = await r.relay;
    const event = JSON.parse(r.out[0]!) as { event: string; url: string; port: number };
    expect(event).toMatchObject({ event: 'listening', url: `http://127.0.0.1:${relay.port}` });
    expect(r.out).toHaveLength(1);
    expect(r.err.join('\n')).toContain('no built app');
    expect(r.err.join('\n')).toContain('loopback');
    expect((await fetch(`${event.url}/healthz`)).status).toBe(200);
    r.stop();
    expect(await r.status).toBe(0);
  });

  it('--no-app serves no page even where the app is built, and says so', async () => {
    const r = run(['--port', '0', '--json', '--no-app']);
    const relay = await r.relay;
    expect(JSON.parse(r.out[0]!)).toMatchObject({ event: 'listening', app: 'none' });
    expect(r.err.join('\n')).toContain('forward only');
    for (const path of ['/', '/index.html', '/sw.js', '/manifest.webmanifest']) {
      const res = await fetch(`${relay.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).not.toContain('<script');
    }
    r.stop();
    expect(await r.status).toBe(0);
  });

  it('refuses to listen on every interface, and other mistakes, with status 2', async () => {
    for (const argv of [
      ['--bind', '0.0.0.0'],
      ['--bind', '::'],
      ['--bind', '0:0:0::0'],
    ]) {
      const r = run(argv);
      expect(await r.status, argv.join(' ')).toBe(2);
      expect(r.err[0]).toContain('every interface');
    }
    const cases: [string[], string][] = [
      [['--port', '70000'], 'not a port'],
      [['--tls-cert', 'x'], 'go together'],
      [['--redis', 'http://x'], 'redis://'],
      [['--redis', 'redis+sentinel://127.0.0.1:26379'], 'redis+sentinel://host:port[,host:port…]/<master name>'],
      [['--redis', 'redis+sentinel://127.0.0.1:99999/tether'], 'is not a Sentinel host:port'],
      [['--redis', 'redis+cluster://127.0.0.1:7000'], 'redis+sentinel://'],
      [['--public-url', 'ftp://x'], 'not an http(s) URL'],
      [['--trust-proxy', 'lb'], 'not an IP address'],
      [['--bogus'], 'unknown option'],
      [['--port'], 'needs a value'],
      [['--no-app', '--app-dir', 'x'], '--app-dir does not apply'],
    ];
    for (const [argv, text] of cases) {
      const r = run(argv);
      expect(await r.status, argv.join(' ')).toBe(2);
      expect(r.err[0], argv.join(' ')).toContain(text);
    }
    const help = run(['--help']);
    expect(await help.status).toBe(0);
    expect(help.out[0]).toContain('--public-url');
  });

  it('says so and exits 1 when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = run(['--port', String(port)]);
      expect(await r.status).toBe(1);
      expect(r.err.at(-1)).toContain('in use');
    } finally {
      blocker.close();
    }
  });

  it('starts and serves when Redis cannot be reached, outside the cluster until it can', async () => {
    const r = run(['--port', '0', '--json', '--no-app', '--redis', 'redis://127.0.0.1:1']);
    const relay = await r.relay;
    expect(JSON.parse(r.out[0]!)).toMatchObject({ event: 'listening' });
    expect(relay.cluster?.isUp).toBe(false);
    expect((await fetch(`${relay.url}/healthz`)).status).toBe(200);
    r.stop();
    expect(await r.status).toBe(0);
  });

  it('takes the mesh key from a file or the environment, never prints it, and refuses a short one', async () => {
    const key = 'k'.repeat(20) + 'secret-mesh-key-text-0123456789';
    const file = join(dir, 'mesh.key');
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    const r = run(['--port', '0', '--no-app', '--redis', 'redis://127.0.0.1:1', '--mesh-key-file', file]);
    const relay = await r.relay;
    expect(relay.cluster?.meshAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(r.out).toContain(`  mesh: ${relay.cluster!.meshAddress}`);
    r.stop();
    expect(await r.status).toBe(0);
    expect([...r.out, ...r.err].join('\n')).not.toContain('secret-mesh-key');

    const short = run(['--port', '0', '--no-app', '--redis', 'redis://127.0.0.1:1'], {
      TETHER_RELAY_MESH_KEY: 'secret-mesh-key',
    });
    expect(await short.status).toBe(1);
    expect(short.err).toEqual([
      'tether-relay: the mesh key is 15 bytes; it needs at least 32 (openssl rand -base64 32)',
    ]);
    const alone = run(['--port', '0', '--no-app'], { TETHER_RELAY_MESH_KEY: key });
    expect(await alone.status).toBe(2);
    expect(alone.err).toEqual(['tether-relay: the mesh joins nodes of a cluster: give --redis too']);
  });

  it('serves HTTPS with a certificate, and hosts link in over wss with the public origin', async () => {
    const cert = join(dir, 'relay.crt');
    const key = join(dir, 'relay.key');
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
        '/CN=tether relay test',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    chmodSync(key, 0o644);
    const r = run(['--port', '0', '--tls-cert', cert, '--tls-key', key]);
    const relay = await r.relay;
    expect(relay.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(r.err.join('\n')).toContain('chmod 600');
    // A host trusting this certificate links in; the challenge names the https origin.
    class Trusting extends WebSocket {
      constructor(url: string) {
        super(url, { ca: readFileSync(cert) });
      }
    }
    const original = FakeHost.WebSocketImpl;
    FakeHost.WebSocketImpl = Trusting;
    try {
      const host = await FakeHost.connect(relay.url, generateHostIdentity());
      expect(relay.switchboard.hostCount).toBe(1);
      host.close();
    } finally {
      FakeHost.WebSocketImpl = original;
    }
    r.stop();
    expect(await r.status).toBe(0);
  });

  it('never prints a Redis password', () => {
    expect(redactUrl('redis://user:s3cret@redis.internal:6379/0')).not.toContain('s3cret');
  });
});
