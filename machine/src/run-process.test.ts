import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandEnvironment } from './process-group.js';
import { runProcess } from './run-process.js';

async function run(
  command: string,
  options: { timeoutMs?: number; maxOutputBytes?: number; signal?: AbortSignal; cwd?: string } = {},
) {
  const result = await runProcess({
    command,
    cwd: options.cwd ?? '/tmp',
    timeoutMs: options.timeoutMs ?? 10_000,
    maxOutputBytes: options.maxOutputBytes ?? 10_000,
    signal: options.signal ?? new AbortController().signal,
  });
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** Running, not a zombie waiting to be reaped (a container's init may never reap it). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('runProcess', () => {
  it('returns output and exit code', async () => {
    const r = await run('echo out; echo err >&2; exit 3');
    expect(r.exitCode).toBe(3);
    expect(r.output).toContain('out');
    expect(r.output).toContain('err');
  });

  it('keeps the head and tail of long output', async () => {
    const r = await run('seq 1 100000', { maxOutputBytes: 1000 });
    expect(r.droppedBytes).toBeGreaterThan(500_000);
    expect(r.output.startsWith('1\n2\n')).toBe(true);
    expect(r.output.trimEnd().endsWith('100000')).toBe(true);
    expect(r.output).toContain('bytes of output omitted');
  });

  it('kills the whole process group on timeout, background children included', async () => {
    const r = await run('sleep 30 & echo $!; wait', { timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    const child = Number(r.output.trim().split('\n')[0]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(child)).toBe(false);
  });

  it('does not wait for a background child the command left behind', async () => {
    const started = Date.now();
    const r = await run('sleep 30 & echo started');
    expect(r.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('stops on abort', async () => {
    const controller = new AbortController();
    const pending = run('sleep 30', { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const r = await pending;
    expect(r.aborted).toBe(true);
    expect(r.exitCode).toBeNull();
  });

  it('says when the command could not be started at all', async () => {
    const result = await runProcess({
      command: 'true',
      cwd: '/nonexistent-folder',
      timeoutMs: 10_000,
      maxOutputBytes: 100,
      signal: new AbortController().signal,
    });
    expect(!result.ok && result.error.code).toBe('io');
  });

  it('hides the host credentials from commands', () => {
    const env = commandEnvironment({
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'k',
      OPENAI_API_KEY: 'k',
      TETHER_DATA_DIR: '/x',
    });
    expect(env).toEqual({ PATH: '/bin' });
  });
});
