/**
 * What the person decided about plugins, kept in `<data-dir>/plugins.json` (owner-only): which
 * plugins are disabled (by name, wherever found). Whether a repository's own plugins may load is
 * folder trust (sessions/trust/folder-trust.ts), pinned to their content; the `allowed` list an earlier
 * version kept here (by command line only) is still read but no longer counts: such a repository
 * asks again.
 *
 * Written only at the computer (`tether plugins …`); a session only reads it.
 */
import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { chmodSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import * as v from 'valibot';
import { describeIssues } from '../schema-issues.js';

/** Entries of the old `allowed` list read (and ignored). */
const MAX_ALLOWED = 1000;
/** Disabled names kept. */
export const MAX_DISABLED = 1000;
const MAX_STATE_BYTES = 1024 * 1024;

const Allowed = v.strictObject({
  root: v.string(),
  plugin: v.string(),
  server: v.string(),
  command: v.string(),
});

const StateSchema = v.strictObject({
  disabled: v.pipe(v.array(v.string()), v.maxLength(MAX_DISABLED)),
  /** Kept by an earlier version; ignored. */
  allowed: v.optional(v.pipe(v.array(Allowed), v.maxLength(MAX_ALLOWED))),
});

export type PluginState = v.InferOutput<typeof StateSchema>;

export const EMPTY_STATE: PluginState = { disabled: [] };

/** The state; a missing file is the empty state, a bad one an error naming the file. */
export function loadPluginState(path: string): Result<PluginState> {
  let text: string;
  try {
    if (statSync(path).size > MAX_STATE_BYTES) return fail('invalid-params', `${path} is too large`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(EMPTY_STATE);
    return fail('invalid-params', `${path} cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return fail('invalid-params', `${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = v.safeParse(StateSchema, json);
  return parsed.success ? ok(parsed.output) : fail('invalid-params', `${path}: ${describeIssues(parsed.issues)}`);
}

/** Writes the state whole (a temporary file renamed over it), owner-only. */
export function savePluginState(path: string, state: PluginState): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

export function setDisabled(state: PluginState, name: string, disabled: boolean): PluginState {
  const others = state.disabled.filter((n) => n !== name);
  return { disabled: disabled ? [...others, name].slice(-MAX_DISABLED) : others };
}
