// Runs a command from node_modules/.bin (or any command) with inherited output; exits on failure.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

export function bin(name) {
  const local = join(root, 'node_modules', '.bin', name);
  return existsSync(local) ? local : name;
}

/** Runs and returns the exit status (never throws for a failing command). */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.error) {
    console.error(`${command}: ${result.error.message}`);
    return 1;
  }
  return result.status ?? 1;
}

export function runOrExit(command, args, options) {
  const status = run(command, args, options);
  if (status !== 0) process.exit(status);
}
