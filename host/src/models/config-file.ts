import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { readFileSync, statSync } from 'node:fs';
import * as v from 'valibot';
import { describeIssues, parseJson } from '../schema-issues.js';

/** A config file of the data dir is a few lines; anything past this is not one. */
const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * The text of a small JSON config file (`what` names it in errors: "price config"), or undefined
 * when there is none; a file too large or unreadable is an error naming it.
 */
export function readConfigFile(path: string, what: string): Result<string | undefined> {
  try {
    const size = statSync(path).size;
    if (size > MAX_CONFIG_BYTES) return fail('invalid-params', `${what} ${path} is too large (${size} bytes)`);
    return ok(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return fail('invalid-params', `${what} ${path} cannot be read: ${(error as Error).message}`);
  }
}

/** A config file's JSON object, decoded with `schema` (each problem named by its field). */
export function decodeConfig<S extends v.GenericSchema>(text: string, schema: S): Result<v.InferOutput<S>> {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  const json = parsed.value;
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return fail('invalid-params', 'the file must hold a JSON object');
  const decoded = v.safeParse(schema, json);
  return decoded.success ? ok(decoded.output) : fail('invalid-params', describeIssues(decoded.issues));
}
