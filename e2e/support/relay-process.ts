import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built `tether-relay` command, as an operator runs it. */
export const RELAY_BIN = fileURLToPath(new URL('../../relay/bin/tether-relay.js', import.meta.url));

export interface RelayProcess {
  child: ChildProcess;
  url: string;
  node: string;
  /** The port it listens on (its URL may be a load balancer's, with --public-url). */
  port: number;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A mesh key for the nodes of one cluster (TETHER_RELAY_MESH_KEY): 32 random bytes, base64. */
export function newMeshKey(): string {
  return randomBytes(32).toString('base64');
}

/** Starts `tether-relay --json` on 127.0.0.1 and a free port, and waits for its listening line;
 * with `meshKey` (and `--redis`), in its cluster's mesh. */
export async function startRelay(args: string[] = [], options: { meshKey?: string } = {}): Promise<RelayProcess> {
  const child = spawn(process.execPath, [RELAY_BIN, '--json', '--bind', '127.0.0.1', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TETHER_RELAY_MESH_KEY: options.meshKey ?? '' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = await new Promise<{ url: string; node: string; port: number }>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (text) => {
      try {
        const line = JSON.parse(text) as { event?: string; url: string; node: string; port: number };
        if (line.event === 'listening') resolve(line);
      } catch {
        // not a JSON line
      }
    });
    void exited.then((code) => reject(new Error(`tether-relay exited (${code}): ${stderr}`)));
  });
  return {
    child,
    url: listening.url,
    node: listening.node,
    port: listening.port,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface RedisProcess {
  url: string;
  stop(): Promise<void>;
}

/** A redis-server of its own on 127.0.0.1 and a free port, keeping nothing on disk; what it may
 * still write goes to a fresh temporary directory, removed when it exits, never the working one. */
export async function startRedis(): Promise<RedisProcess> {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const dir = mkdtempSync(join(tmpdir(), 'tether-redis-'));
  const child = spawn(
    '/usr/bin/redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code})`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
