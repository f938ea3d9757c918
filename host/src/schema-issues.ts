import type { Result } from '@tether/shared-protocol';
import { describeIssues, fail, ok } from '@tether/shared-protocol';
import * as v from 'valibot';

// Lives in shared-protocol beside the typed dispatch that reports with it.
export { describeIssues } from '@tether/shared-protocol';

/** `text` as JSON, or `invalid-params` saying why it is not JSON. */
export function parseJson(text: string): Result<unknown> {
  try {
    return ok(JSON.parse(text) as unknown);
  } catch (error) {
    return fail('invalid-params', `invalid JSON: ${(error as Error).message}`);
  }
}

/** `text` as JSON decoded with `schema`, or `invalid-params` naming each problem by its field. */
export function decodeJson<S extends v.GenericSchema>(text: string, schema: S): Result<v.InferOutput<S>> {
  const json = parseJson(text);
  if (!json.ok) return json;
  const parsed = v.safeParse(schema, json.value);
  return parsed.success ? ok(parsed.output) : fail('invalid-params', describeIssues(parsed.issues));
}
