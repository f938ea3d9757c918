import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A free TCP port on 127.0.0.1 (free when asked; a test takes it at once). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A redis-server on 127.0.0.1:`port` keeping nothing on disk, once it accepts connections
 * (`extra`: more options, e.g. `--replicaof 127.0.0.1 <port>`). A replica still writes the copy it
 * loads from its master (dump.rdb), so its directory is a fresh one under the system's temporary
 * one, removed when it exits, never the working directory. */
export async function spawnRedis(port: number, extra: string[] = []): Promise<ChildProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'tether-redis-'));
  const child = spawn(
    '/usr/bin/redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
  return child;
}

export async function stopRedis(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * A Sentinel (`redis-server … --sentinel`) on 127.0.0.1:`port` watching the master on
 * `masterPort` as `name`, once it has started monitoring it. Its config file (a Sentinel rewrites
 * its own) is in a fresh directory under the system's temporary one.
 */
export async function spawnSentinel(port: number, masterPort: number, name: string): Promise<ChildProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'tether-sentinel-'));
  const config = join(dir, 'sentinel.conf');
  writeFileSync(
    config,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${masterPort} 1`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      '',
    ].join('\n'),
  );
  const child = spawn('/usr/bin/redis-server', [config, '--sentinel'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('+monitor master')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server --sentinel exited (${code}): ${out}`)));
  });
  return child;
}
