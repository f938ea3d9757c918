import type { ExecutionContext } from '@tether/machine';
import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';

/**
 * Runs one `git` (or `gh`) in a session's place through its execution context: the program and an
 * argument array, never a shell, so a file name is one argument whatever it holds. Local sessions
 * run it on this computer; a machine's session runs it there, over the machine's channel.
 */

/** Milliseconds a git command may take: a push over a slow link, well under the RPC's own timeout. */
export const GIT_TIMEOUT_MS = 60_000;
/** Bytes of each of stdout and stderr kept (the rest is dropped and said so). */
export const MAX_GIT_OUTPUT = 1024 * 1024;

/**
 * Set for every run: git never waits for a password on a terminal nobody sees (it fails and says
 * why), never pages, and speaks English so that its refusals read the same to everyone.
 */
const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: '',
  SSH_ASKPASS: '',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GH_PROMPT_DISABLED: '1',
  GH_NO_UPDATE_NOTIFIER: '1',
  LC_ALL: 'C',
  LANGUAGE: 'C',
};

/**
 * Before every git's own arguments: the repository's hooks never run (they are programs from the
 * folder, which nobody was shown: `.git/hooks`, or a `core.hooksPath` into the files), nor a
 * program named as its file-system monitor. Its other settings that name programs are refused
 * before git runs (git-settings.ts). Part of the command line shown, since it is part of what ran.
 */
export const GIT_GUARD: readonly string[] = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

export interface GitRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Output past MAX_GIT_OUTPUT was dropped. */
  truncated: boolean;
  timedOut: boolean;
}

export interface GitRunOptions {
  program?: 'git' | 'gh';
  timeoutMs?: number;
}

export async function runGit(
  context: ExecutionContext,
  cwd: string,
  args: readonly string[],
  options: GitRunOptions = {},
): Promise<Result<GitRun>> {
  const program = options.program ?? 'git';
  const full = program === 'git' ? [...GIT_GUARD, ...args] : [...args];
  const spawned = await context.spawn({ command: { program, args: full }, cwd, env: GIT_ENV });
  if (!spawned.ok) {
    const { code, message } = spawned.error;
    if (code === 'not-found') return fail('not-found', `${cwd}: ${message}`);
    if (code === 'unreachable') return fail('unavailable', message);
    if (code === 'busy') return fail('busy', message);
    return fail('unavailable', `${program} could not be started: ${message}`);
  }
  const child = spawned.value;
  child.closeInput();
  const out: Uint8Array[] = [];
  const err: Uint8Array[] = [];
  const sizes = { stdout: 0, stderr: 0 };
  let truncated = false;
  child.onOutput((stream, chunk) => {
    const room = MAX_GIT_OUTPUT - sizes[stream];
    if (chunk.length > room) truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    sizes[stream] += kept.length;
    (stream === 'stdout' ? out : err).push(kept);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? GIT_TIMEOUT_MS);
  const exited = await child.exited;
  clearTimeout(timer);
  if (!exited.ok) return fail('unavailable', exited.error.message);
  if (exited.value.code === 127 && sizes.stdout === 0) {
    return fail('unavailable', `${program} is not installed where this session runs`);
  }
  const decoder = new TextDecoder();
  return ok({
    code: exited.value.code,
    stdout: decoder.decode(concat(out)),
    stderr: decoder.decode(concat(err)),
    truncated,
    timedOut,
  });
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    whole.set(c, at);
    at += c.length;
  }
  return whole;
}

/** A command line as a person would type it: each argument that needs it single-quoted. */
export function commandLine(program: 'git' | 'gh', args: readonly string[]): string {
  return [program, ...(program === 'git' ? GIT_GUARD : []), ...args].map(quoteArg).join(' ');
}

function quoteArg(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
