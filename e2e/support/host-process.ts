import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built `tether` command, as a newcomer runs it. */
export const TETHER_BIN = fileURLToPath(new URL('../../host/bin/tether.js', import.meta.url));

export interface HostProcess {
  child: ChildProcess;
  dataDir: string;
  ready: Record<string, unknown>;
  /** Every JSON line the host printed so far. */
  lines: Record<string, unknown>[];
  /** Waits for a JSON line matching `predicate`. */
  waitFor(predicate: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * A test's own folder. The host it starts keeps its data in `hostDataDir(folder)` inside it, beside
 * the folders its sessions work in (`project`, or the folder itself as the root): a data dir is
 * private, so no session may work in it, and the folder picker never offers it.
 */
export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'tether-e2e-'));
}

/** Where the host of a test's folder keeps its data (`--data-dir`). */
export function hostDataDir(dir: string): string {
  return join(dir, '.tether');
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Starts `tether start --json` for a test's folder (its data in `hostDataDir(dataDir)`) and waits
 * for its ready line. It listens on
 * 127.0.0.1 and a free port unless `extraArgs` names a `--bind`: tests never take the LAN address
 * or a fixed port (parallel workers would collide).
 */
export async function startHost(
  dataDir: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
  // A cold start on a loaded 2-core machine took 16 s.
  readyTimeoutMs = 45_000,
): Promise<HostProcess> {
  const bind =
    extraArgs.includes('--bind') || extraArgs.includes('--relay-only') ? [] : ['--bind', '127.0.0.1', '--port', '0'];
  const child = spawn(
    process.execPath,
    [TETHER_BIN, 'start', '--json', '--data-dir', hostDataDir(dataDir), ...bind, ...extraArgs],
    {
      env: { ...cleanEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: Record<string, unknown>[] = [];
  const waiters: {
    predicate: (l: Record<string, unknown>) => boolean;
    resolve: (l: Record<string, unknown>) => void;
  }[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (text) => {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    lines.push(line);
    for (const w of [...waiters]) {
      if (w.predicate(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (predicate: (l: Record<string, unknown>) => boolean, timeoutMs = 15_000) => {
    const found = lines.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`host did not print the expected line; stderr: ${stderr}`)),
        timeoutMs,
      );
      waiters.push({ predicate, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      void exited.then((code) => reject(new Error(`host exited (${code}); stderr: ${stderr}`)));
    });
  };
  // A host that never says it is ready is not left running behind a failed start.
  const ready = await waitFor((l) => l.event === 'ready', readyTimeoutMs).catch((error: unknown) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    throw error;
  });
  return {
    child,
    dataDir,
    ready,
    lines,
    waitFor,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * The environment without keys that would make the host use a real model, and without this
 * repository's `node_modules/.bin` on PATH (npm puts it there): the ACP adapters pinned for the
 * tests live there, and a host should find on PATH only what a person would have installed. Tests
 * of the adapters name them by path.
 */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.ANTHROPIC_API_KEY;
  delete env.OPENAI_API_KEY;
  delete env.TETHER_DATA_DIR;
  if (env.PATH !== undefined) {
    env.PATH = env.PATH.split(delimiter)
      .filter((dir) => !/[\\/]node_modules[\\/]\.bin[\\/]?$/.test(dir))
      .join(delimiter);
  }
  return env;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `tether …` against the host of a test's folder (in that folder unless `cwd` says). The
 * `--data-dir` it adds goes before a `--`, after which every word is an argument.
 */
export function tether(dataDir: string, args: string[], options: { cwd?: string } = {}): Promise<CliResult> {
  const optionsEnd = args.includes('--') ? args.indexOf('--') : args.length;
  const dataDirArgs = args.includes('--data-dir') ? [] : ['--data-dir', hostDataDir(dataDir)];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TETHER_BIN, ...args.slice(0, optionsEnd), ...dataDirArgs, ...args.slice(optionsEnd)],
      { env: cleanEnv(), cwd: options.cwd ?? dataDir, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export async function tetherJson<T>(dataDir: string, args: string[], options: { cwd?: string } = {}): Promise<T> {
  const result = await tether(dataDir, [...args, '--json'], options);
  if (result.code !== 0) throw new Error(`tether ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Polls until `check` returns a value (not undefined or null), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
