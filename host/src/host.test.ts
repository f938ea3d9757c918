import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_REMOTE, startTestHost } from '../test/support/test-host.js';
import type { HostOptions } from './host.js';
import { Host } from './host.js';

/** Every part a host with a listener and a relay link opens, in the order it is closed. */
const CLOSE_ORDER = [
  'control-events',
  'subscriptions',
  'keep-awake',
  'terminals',
  'gateway',
  'shares',
  'push',
  'mcp-notices',
  'uploads',
  'machines',
  'transports/relay',
  'transports/listener',
  'transports',
  'sessions',
  'acp',
  'control/control',
  'control',
  'plugins',
  'mcp',
  'db',
];

/** What a build that fails at push has opened, in the order it is closed. */
const BUILT_BEFORE_PUSH = CLOSE_ORDER.slice(CLOSE_ORDER.indexOf('mcp-notices')).filter((n) => !n.includes('/'));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder, and the data dir inside it. */
function folders(): { root: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), 'tether-teardown-'));
  dirs.push(root);
  return { root, dir: join(root, 'data') };
}

function start(options: Partial<HostOptions> & { dataDir: string }) {
  return Host.start({ demoDelayMs: 0, keepAwake: { enabled: false }, env: {}, ...options });
}

/** A loopback port nothing listens on (bound, then let go), or held by `keep` until it is closed. */
async function loopbackPort(keep = false): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const { port } = server.address() as AddressInfo;
  if (!keep) await close();
  return { port, close };
}

/** Whether something accepts connections at a TCP port on 127.0.0.1 or at a Unix socket path. */
function accepts(where: number | string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = typeof where === 'number' ? connect(where, '127.0.0.1') : connect(where);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The store is closed: its last connection gone, SQLite has folded the WAL back and removed it. */
function storeClosed(dir: string): boolean {
  return existsSync(join(dir, 'tether.db')) && !existsSync(join(dir, 'tether.db-wal'));
}

describe('closing a host', () => {
  it('closes every part it opened exactly once, newest first', async () => {
    const closed: string[] = [];
    const relay = await loopbackPort();
    const t = await startTestHost({
      remote: LOCAL_REMOTE,
      relay: { urls: [`http://127.0.0.1:${relay.port}`] },
      onPartClosed: (part) => closed.push(part),
    });
    const { parts } = t.host;
    const port = Number(new URL(t.url).port);
    const registered = parts.closing.all.names;
    expect(await accepts(port)).toBe(true);
    expect(await accepts(parts.paths.controlSocket)).toBe(true);

    await Promise.all([t.host.close(), t.host.close()]);
    await t.host.close();

    expect(closed).toEqual(CLOSE_ORDER);
    expect(closed.filter((name) => !name.includes('/'))).toEqual([...registered].reverse());
    expect(parts.db.open).toBe(false);
    expect(storeClosed(parts.paths.dir)).toBe(true);
    expect(await accepts(port)).toBe(false);
    expect(await accepts(parts.paths.controlSocket)).toBe(false);
    await t.close();
  });

  it('closes what a build opened when a later part cannot be built', async () => {
    const closed: string[] = [];
    const { dir } = folders();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Push is built after the store, the sessions and the machines: its config is read then.
    writeFileSync(join(dir, 'notifications.json'), '{ not json');
    const started = await start({ dataDir: dir, onPartClosed: (part) => closed.push(part) });

    expect(started.ok).toBe(false);
    expect(!started.ok && started.error.message).toMatch(/notifications\.json is not valid JSON/);
    expect(closed).toEqual(BUILT_BEFORE_PUSH);
    expect(storeClosed(dir)).toBe(true);
  });

  it('closes everything built and opened when its listen address is taken', async () => {
    const closed: string[] = [];
    const { root, dir } = folders();
    const taken = await loopbackPort(true);
    try {
      const started = await start({
        dataDir: dir,
        remote: { ...LOCAL_REMOTE, port: taken.port, roots: [root] },
        onPartClosed: (part) => closed.push(part),
      });
      expect(started.ok).toBe(false);
      expect(!started.ok && started.error.message).toMatch(/EADDRINUSE|in use/);
    } finally {
      await taken.close();
    }
    // Everything but what was never started: the listener and the relay link.
    expect(closed).toEqual(CLOSE_ORDER.filter((name) => name !== 'transports/relay' && name !== 'transports/listener'));
    expect(storeClosed(dir)).toBe(true);
    expect(await accepts(join(dir, 'control.sock'))).toBe(false);
  });
});
