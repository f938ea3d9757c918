import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Result } from '@tether/shared-protocol';
import { Id, fail, fromBase64UrlExact, ok, parseJson, secureRandom, toBase64Url } from '@tether/shared-protocol';
import * as v from 'valibot';
import { writeSecretFile } from '../secret-file.js';

/**
 * A machine's own data dir (owner-only): its stable machine id, the host keys it pinned, its
 * background task logs, the share lock and the status `tether machine status` reads. It is never
 * reachable by the host, even when a shared root contains it.
 *
 * Chosen from `--machine-dir`, else `TETHER_MACHINE_DIR`, else `$XDG_DATA_HOME/tether-machine`,
 * else `~/.local/share/tether-machine`.
 */
export function resolveMachineDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return resolve(flag);
  if (env.TETHER_MACHINE_DIR) return resolve(env.TETHER_MACHINE_DIR);
  const xdg = env.XDG_DATA_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'tether-machine');
  return join(env.HOME ?? homedir(), '.local', 'share', 'tether-machine');
}

export function machinePaths(dir: string) {
  return {
    dir,
    machineId: join(dir, 'machine-id'),
    hostKeys: join(dir, 'host-keys.json'),
    status: join(dir, 'status.json'),
    lock: join(dir, 'share.lock'),
    tasks: join(dir, 'tasks'),
  };
}

export type MachinePaths = ReturnType<typeof machinePaths>;

/** Creates the dir 0700, or checks an existing one is a folder of this user (and tightens it). */
export function prepareMachineDir(dir: string): Result<void> {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    return ok(undefined);
  }
  const info = statSync(dir);
  if (!info.isDirectory()) return fail('invalid-params', `${dir} exists and is not a folder`);
  if (typeof process.getuid === 'function' && info.uid !== process.getuid()) {
    return fail('forbidden', `${dir} belongs to another user`);
  }
  if ((info.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return ok(undefined);
}

/** The machine's stable id, made once (`m_` and 12 random bytes) and kept in the data dir. */
export function loadOrCreateMachineId(paths: MachinePaths): Result<string> {
  if (existsSync(paths.machineId)) {
    const text = readFileSync(paths.machineId, 'utf8').trim();
    return v.is(Id, text) ? ok(text) : fail('malformed', `${paths.machineId} does not hold a machine id; move it away`);
  }
  const id = `m_${toBase64Url(secureRandom(12))}`;
  writeSecretFile(paths.machineId, `${id}\n`);
  return ok(id);
}

const PinsSchema = v.record(v.pipe(v.string(), v.maxLength(2048)), v.pipe(v.string(), v.length(43)));

/** The host keys this machine pinned, by host URL (its origin). */
export class HostKeyPins {
  constructor(private readonly path: string) {}

  get(hostUrl: string): Uint8Array | undefined {
    const text = this.read()[originOf(hostUrl)];
    return text === undefined ? undefined : fromBase64UrlExact(text, 32);
  }

  set(hostUrl: string, key: Uint8Array): void {
    writeSecretFile(
      this.path,
      `${JSON.stringify({ ...this.read(), [originOf(hostUrl)]: toBase64Url(key) }, null, 2)}\n`,
    );
  }

  private read(): Record<string, string> {
    if (!existsSync(this.path)) return {};
    const json = parseJson(readFileSync(this.path, 'utf8'));
    const parsed = json && v.safeParse(PinsSchema, json.value);
    // A damaged pin file pins nothing new silently: it is refused where it is read.
    if (!parsed?.success) throw new Error(`${this.path} is damaged; move it away and give --host-key`);
    return parsed.output;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

export const ShareStatusSchema = v.object({
  pid: v.pipe(v.number(), v.integer()),
  machineId: v.string(),
  name: v.string(),
  host: v.string(),
  state: v.picklist(['connecting', 'linked', 'retrying', 'stopped']),
  since: v.number(),
  message: v.string(),
});
export type ShareStatus = v.InferOutput<typeof ShareStatusSchema>;

export function writeShareStatus(paths: MachinePaths, status: ShareStatus): void {
  writeSecretFile(paths.status, `${JSON.stringify(status, null, 2)}\n`);
}

export function readShareStatus(paths: MachinePaths): ShareStatus | undefined {
  if (!existsSync(paths.status)) return undefined;
  const json = parseJson(readFileSync(paths.status, 'utf8'));
  const parsed = json && v.safeParse(ShareStatusSchema, json.value);
  return parsed?.success ? parsed.output : undefined;
}
