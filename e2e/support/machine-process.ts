import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TETHER_BIN, makeDataDir, removeDataDir, tetherJson } from './host-process.js';

/** A `tether machine share` process lending a folder of its own to a host, as a person runs it. */
export interface MachineProcess {
  child: ChildProcess;
  /** The shared folder (a real path). */
  root: string;
  /** Everything it printed so far. */
  output(): string;
  /** Its exit code, once it has exited (undefined while it runs). */
  exitCode(): number | null | undefined;
  stop(): Promise<void>;
}

/**
 * Makes a machine token on the host at `hostDataDir` (CLI), writes it to an owner-only file, and
 * starts `tether machine share --host hostUrl --service` with its own HOME and data dir, sharing
 * one fresh folder. `hostUrl` may be a path in front of the host (a proxy).
 */
export async function startMachine(
  hostDataDir: string,
  hostUrl: string,
  name = 'laptop',
  files: Record<string, string> = {},
): Promise<MachineProcess> {
  const created = await tetherJson<{ token: string; hostKey: string }>(hostDataDir, [
    'token',
    'create',
    '--scope',
    'machine',
    '--name',
    name,
  ]);
  const base = realpathSync(makeDataDir());
  const root = join(base, 'code');
  mkdirSync(root);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(root, file), text);
  const tokenFile = join(base, 'token');
  writeFileSync(tokenFile, `${created.token}\n`, { mode: 0o600 });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: base };
  delete env.TETHER_DATA_DIR;
  delete env.TETHER_MACHINE_DIR;
  const child = spawn(
    process.execPath,
    [
      TETHER_BIN,
      'machine',
      'share',
      '--host',
      hostUrl,
      '--token-file',
      tokenFile,
      '--name',
      name,
      '--root',
      root,
      '--host-key',
      created.hostKey,
      '--machine-dir',
      join(base, 'machine-data'),
      '--service',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let exit: number | null | undefined;
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exit = code;
      resolve();
    }),
  );
  return {
    child,
    root,
    output: () => out,
    exitCode: () => exit,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      removeDataDir(base);
    },
  };
}
