import * as v from 'valibot';
import { describeIssues } from '../schema-issues.js';
import type { Parsed } from './tool.js';

/** Decodes tool arguments with a schema; the message names each wrong field for the model. */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown): Parsed<v.InferOutput<S>> {
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.output };
  return { ok: false, message: `invalid arguments: ${describeIssues(result.issues, Infinity)}` };
}
