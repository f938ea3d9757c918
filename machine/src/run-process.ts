import { spawn } from 'node:child_process';
import type { ExecError, Result } from '@tether/shared-protocol';
import { execFail } from '@tether/shared-protocol';
import type { ExecOutcome, ExecRequest } from './execution-context.js';
import { HeadTailBuffer } from './output-buffer.js';
import { KILL_GRACE_MS, commandEnvironment, killGroup } from './process-group.js';

/**
 * Runs a shell command in its own process group, with stdin closed, output kept head-and-tail,
 * and the whole group killed on timeout or abort (SIGTERM, then SIGKILL after a grace period),
 * so that nothing it started outlives it.
 */
export function runProcess(
  request: ExecRequest,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Result<ExecOutcome, ExecError<'io'>>> {
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
    const stop = () => {
      killGroup(child.pid, 'SIGTERM');
      killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
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
    const settle = () => {
      if (done) return false;
      done = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      request.signal.removeEventListener('abort', onAbort);
      return true;
    };
    child.on('error', (error) => {
      // Only a failure to start (the shell missing, the folder gone) comes here before 'close'.
      if (settle()) resolve(execFail('io', `the command could not be started: ${error.message}`));
    });
    // When the shell exits, whatever it left running in its group goes too; otherwise a
    // background child holding the output pipes open would keep the command from finishing.
    child.on('exit', () => killGroup(child.pid, 'SIGKILL'));
    child.on('close', (exitCode, signal) => {
      if (!settle()) return;
      resolve({
        ok: true,
        value: {
          exitCode,
          signal,
          output: output.text(),
          droppedBytes: output.dropped,
          timedOut,
          aborted,
          durationMs: Date.now() - started,
        },
      });
    });
  });
}
