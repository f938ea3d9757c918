import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import * as v from 'valibot';
import { describeIssues } from '../schema-issues.js';

/** Decodes tool arguments with a schema; the message names each wrong field for the model. */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown): Result<v.InferOutput<S>> {
  const result = v.safeParse(schema, input);
  if (result.success) return ok(result.output);
  return fail('invalid-params', `invalid arguments: ${describeIssues(result.issues, Infinity)}`);
}
