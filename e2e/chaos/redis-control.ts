import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * A redis-server of the chaos rig's own on 127.0.0.1, which the adversary stops (SIGSTOP: it takes
 * connections and answers nothing), kills and starts again empty on the same port, and writes to
 * as any client with access could (`redis-cli`).
 */
export class RedisControl {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  static async start(): Promise<RedisControl> {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const redis = new RedisControl(port);
    await redis.spawn();
    return redis;
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** Gone at once, as a crashed Redis: everything it held is lost. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  }

  /** Back on the same port, empty. */
  async restart(): Promise<void> {
    await this.kill();
    await this.spawn();
  }

  /** One `redis-cli` command; its output. */
  cli(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile('/usr/bin/redis-cli', ['-p', String(this.port), ...args], { timeout: 10_000 }, (error, out) => {
        if (error) reject(new Error(`redis-cli ${args.join(' ')}: ${error.message}`));
        else resolve(out);
      });
    });
  }

  async stop(): Promise<void> {
    await this.kill();
  }

  private async spawn(): Promise<void> {
    const child = spawn(
      '/usr/bin/redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code})`)));
    });
    this.child = child;
  }
}
