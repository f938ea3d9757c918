import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OutputStream, ProcessHandle, SpawnRequest } from './execution-context.js';
import { LocalContext, MAX_LIVE_PROCESSES } from './local-context.js';
import { MAX_PENDING_INPUT_BYTES } from './spawn-process.js';

let base: string;
let root: string;
const context = new LocalContext({ env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'host-secret' } });
const started: ProcessHandle[] = [];

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'tether-spawn-'));
  root = join(base, 'project');
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(root, 'file.txt'), 'x');
});

afterEach(async () => {
  for (const handle of started.splice(0)) {
    handle.kill('SIGKILL');
    // Drained, or a process whose output nobody read would never be done.
    handle.onOutput(() => undefined);
    handle.resume();
    await handle.exited;
  }
  rmSync(base, { recursive: true, force: true });
});

async function spawn(request: Partial<SpawnRequest> & Pick<SpawnRequest, 'command'>): Promise<ProcessHandle> {
  const result = await context.spawn({ cwd: root, ...request });
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  started.push(result.value);
  return result.value;
}

function collect(handle: ProcessHandle) {
  const chunks: Record<OutputStream, Buffer[]> = { stdout: [], stderr: [] };
  handle.onOutput((stream, chunk) => chunks[stream].push(Buffer.from(chunk)));
  return {
    text: (stream: OutputStream) => Buffer.concat(chunks[stream]).toString('utf8'),
    bytes: (stream: OutputStream) => chunks[stream].reduce((sum, c) => sum + c.length, 0),
  };
}

/** Polls `check` every 10 ms until it holds; fails after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Running, not a zombie waiting to be reaped (a container's init may never reap it). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Bytes a process has written so far, as the kernel counts them. */
function bytesWritten(pid: number): number {
  return Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
}

describe('LocalContext.spawn', () => {
  it('echoes stdin to stdout and exits with 0', async () => {
    const cat = await spawn({ command: { program: 'cat', args: [] } });
    const out = collect(cat);
    expect((await cat.write('hello\n')).ok).toBe(true);
    expect((await cat.write(new Uint8Array([0xe2, 0x9c, 0x93, 0x0a]))).ok).toBe(true);
    cat.closeInput();
    expect(await cat.exited).toEqual({ ok: true, value: { code: 0, signal: null } });
    expect(out.text('stdout')).toBe('hello\n✓\n');
    expect(out.text('stderr')).toBe('');
  });

  it('keeps stderr apart from stdout and reports the exit code', async () => {
    const sh = await spawn({ command: { shell: 'echo out; echo err >&2; exit 3' } });
    const out = collect(sh);
    expect(await sh.exited).toEqual({ ok: true, value: { code: 3, signal: null } });
    expect(out.text('stdout')).toBe('out\n');
    expect(out.text('stderr')).toBe('err\n');
  });

  it('loses nothing written before anyone listened', async () => {
    const sh = await spawn({ command: { shell: 'echo early' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const out = collect(sh);
    await sh.exited;
    expect(out.text('stdout')).toBe('early\n');
  });

  it('keeps a pause even when the process exits meanwhile', async () => {
    const sh = await spawn({ command: { shell: 'echo data' } });
    sh.pause();
    const out = collect(sh);
    let exited = false;
    void sh.exited.then(() => (exited = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(out.text('stdout')).toBe('');
    expect(exited).toBe(false);
    sh.resume();
    await sh.exited;
    expect(out.text('stdout')).toBe('data\n');
  });

  it('kills the whole process group, grandchildren included', async () => {
    // The shell starts a shell that starts sleep: sleep is the grandchild, and says its pid.
    const sh = await spawn({ command: { shell: "sh -c 'sleep 30 & echo $!; wait' & wait" } });
    const out = collect(sh);
    await until(() => out.text('stdout').includes('\n'), 'the grandchild pid');
    const grandchild = Number(out.text('stdout').trim());
    expect(alive(grandchild)).toBe(true);
    sh.kill();
    expect(await sh.exited).toEqual({ ok: true, value: { code: null, signal: 'SIGTERM' } });
    await until(() => !alive(grandchild), 'the grandchild to be gone');
  });

  it('holds a fast writer back while paused, so output waiting here stays bounded', async () => {
    const total = 32 * 1024 * 1024;
    const writer = await spawn({ command: { shell: `echo $$ >&2; exec head -c ${total} /dev/zero` } });
    const out = collect(writer);
    await until(() => out.text('stderr').includes('\n') && out.bytes('stdout') > 0, 'the first output');
    const pid = Number(out.text('stderr').trim());
    writer.pause();
    const delivered = out.bytes('stdout');
    // The writer blocks once the pipe and the stream's buffer are full: its count stops moving.
    let last = -1;
    await until(() => {
      const now = bytesWritten(pid);
      const settled = now === last;
      last = now;
      return settled;
    }, 'the writer to block');
    expect(out.bytes('stdout')).toBe(delivered);
    // Written by the child but not delivered: the pipe (64 KiB) plus the stream's small buffer.
    expect(last - delivered).toBeLessThan(1024 * 1024);
    expect(last).toBeLessThan(total);
    writer.resume();
    expect(await writer.exited).toEqual({ ok: true, value: { code: 0, signal: null } });
    expect(out.bytes('stdout')).toBe(total);
  });

  it('refuses a working folder outside the root, or one that is not a folder', async () => {
    const code = async (request: Partial<SpawnRequest>) => {
      const result = await context.spawn({ command: { program: 'true', args: [] }, cwd: root, ...request });
      if (result.ok) started.push(result.value);
      return result.ok ? 'ok' : result.error.code;
    };
    expect(await code({ root, cwd: '..' })).toBe('outside-root');
    expect(await code({ root, cwd: base })).toBe('outside-root');
    expect(await code({ root, cwd: 'file.txt' })).toBe('not-a-folder');
    expect(await code({ root, cwd: 'missing' })).toBe('not-found');
    expect(await code({ root, cwd: 'sub' })).toBe('ok');
    expect(await code({ cwd: join(base, 'missing') })).toBe('not-found');
    expect(await code({ command: { program: 'no-such-program-here', args: [] } })).toBe('not-found');
  });

  it('runs in the folder it was given, with the environment it was given and without the host credentials', async () => {
    const sh = await spawn({
      command: { shell: 'pwd; echo "$EXTRA"; echo "${ANTHROPIC_API_KEY:-hidden}"' },
      root,
      cwd: 'sub',
      env: { EXTRA: 'added' },
    });
    const out = collect(sh);
    await sh.exited;
    expect(out.text('stdout')).toBe(`${join(root, 'sub')}\nadded\nhidden\n`);
  });

  it('refuses invalid requests with invalid-params', async () => {
    const code = async (request: Partial<SpawnRequest>) => {
      const result = await context.spawn({ command: { program: 'true', args: [] }, cwd: root, ...request });
      return result.ok ? 'ok' : result.error.code;
    };
    expect(await code({ env: { 'BAD=NAME': 'x' } })).toBe('invalid-params');
    expect(await code({ env: { OK: 'nul\0' } })).toBe('invalid-params');
    expect(await code({ command: { program: '', args: [] } })).toBe('invalid-params');
    expect(await code({ command: { shell: 'x'.repeat(300 * 1024) } })).toBe('invalid-params');
  });

  it('refuses input beyond its bound, and input to a process that is gone', async () => {
    // sleep never reads its stdin: the pipe fills, then the stream's own queue.
    const sleeper = await spawn({ command: { program: 'sleep', args: ['30'] } });
    const chunk = new Uint8Array(MAX_PENDING_INPUT_BYTES / 2 + 1);
    void sleeper.write(chunk);
    const refused = await sleeper.write(chunk);
    expect(!refused.ok && refused.error.code).toBe('busy');
    sleeper.kill('SIGKILL');
    await sleeper.exited;
    const after = await sleeper.write('late');
    expect(!after.ok && after.error.code).toBe('channel-closed');
  });

  it(`refuses a process beyond ${MAX_LIVE_PROCESSES} at once with busy, and takes one again after one ends`, async () => {
    const sleepers: ProcessHandle[] = [];
    for (let i = 0; i < MAX_LIVE_PROCESSES; i++)
      sleepers.push(await spawn({ command: { program: 'sleep', args: ['30'] } }));
    const refused = await context.spawn({ command: { program: 'true', args: [] }, cwd: root });
    expect(!refused.ok && refused.error.code).toBe('busy');
    sleepers[0]!.kill('SIGKILL');
    await sleepers[0]!.exited;
    await spawn({ command: { program: 'true', args: [] } });
  });
});
