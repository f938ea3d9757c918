import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * The data dir holds the host's keys, its SQLite database and its control socket. It is created
 * owner-only (0700); key and token files inside are 0600.
 *
 * Chosen from `--data-dir`, else `TETHER_DATA_DIR`, else `$XDG_DATA_HOME/tether`, else
 * `~/.local/share/tether`.
 */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return resolve(flag);
  if (env.TETHER_DATA_DIR) return resolve(env.TETHER_DATA_DIR);
  const xdg = env.XDG_DATA_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'tether');
  return join(env.HOME ?? homedir(), '.local', 'share', 'tether');
}

/** Creates the data dir (0700) or checks an existing one; tightens a too-open mode it owns. */
export function prepareDataDir(dir: string): Result<{ created: boolean }> {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    return ok({ created: true });
  }
  const stat = statSync(dir);
  if (!stat.isDirectory()) return fail('unavailable', `${dir} exists and is not a folder`);
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
    return fail('unavailable', `${dir} belongs to another user; refusing to keep keys there`);
  }
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return ok({ created: false });
}

/** Paths of the files in a data dir. */
export function dataPaths(dir: string) {
  return {
    dir,
    identity: join(dir, 'host-key.json'),
    database: join(dir, 'tether.db'),
    controlSocket: join(dir, 'control.sock'),
    mcpConfig: join(dir, 'mcp.json'),
    /** What the host knows of a model beyond its name: its context window (model-config.ts). */
    models: join(dir, 'models.json'),
    /** What models cost, over Tether's own dated table (price-config.ts). */
    prices: join(dir, 'prices.json'),
    /** Plugins disabled, and project plugin servers allowed to start (plugin-state.ts). */
    plugins: join(dir, 'plugins.json'),
    /** This computer's own instructions for Tether's agent loop, after the project's. */
    instructions: join(dir, 'AGENTS.md'),
    vapidKeys: join(dir, 'vapid-key.json'),
    notificationsConfig: join(dir, 'notifications.json'),
    lock: join(dir, 'host.lock'),
    /** Attachments, one file per SHA-256 (owner-only, like the rest of the data dir). */
    blobs: join(dir, 'blobs'),
  };
}

export type DataPaths = ReturnType<typeof dataPaths>;
