import { spawn } from 'node:child_process';
import type { ExecRequest, ExecResult } from './execution-context.js';
import { HeadTailBuffer } from './output-buffer.js';

/** Milliseconds between SIGTERM and SIGKILL when a command is stopped: time to clean up. */
const KILL_GRACE_MS = 2000;

/** Environment variables a command never sees: the host's own credentials. */
const HIDDEN_ENV = /^(ANTHROPIC_API_KEY|OPENAI_API_KEY|TETHER_.*)$/;

export function commandEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (!HIDDEN_ENV.test(key)) out[key] = value;
  return out;
}

/**
 * Runs a shell command in its own process group, with stdin closed, output kept head-and-tail,
 * and the whole group killed on timeout or abort (SIGTERM, then SIGKILL after a grace period),
 * so that nothing it started outlives it.
 */
export function runProcess(request: ExecRequest, env: NodeJS.ProcessEnv = process.env): Promise<ExecResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const output = new HeadTailBuffer(request.maxOutputBytes);
    let timedOut = false;
    let aborted = request.signal.aborted;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn('/bin/sh', ['-c', request.command], {
      cwd: request.cwd,
      env: commandEnvironment(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    const stop = () => {
      killGroup('SIGTERM');
      killTimer ??= setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, request.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    request.signal.addEventListener('abort', onAbort, { once: true });
    if (aborted) stop();
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    let done = false;
    const finish = (exitCode: number | null, signal: string | null, extra = '') => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      request.signal.removeEventListener('abort', onAbort);
      resolve({
        exitCode,
        signal,
        output: output.text() + extra,
        droppedBytes: output.dropped,
        timedOut,
        aborted,
        durationMs: Date.now() - started,
      });
    };
    child.on('error', (error) => finish(null, null, `failed to start: ${error.message}`));
    // When the shell exits, whatever it left running in its group goes too; otherwise a
    // background child holding the output pipes open would keep the command from finishing.
    child.on('exit', () => killGroup('SIGKILL'));
    child.on('close', (code, signal) => finish(code, signal));
  });
}
