/**
 * `plugin.json`, the manifest of an Agent Plugin (Agent Plugins 1.0): the plugin's identity and
 * what it says of itself. Closed schema: a field the format does not define rejects the manifest,
 * and with it the plugin, rather than being read past (a misspelt field is a mistake to show, and
 * a field another client acts on is not one this host will quietly ignore).
 */
import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import * as v from 'valibot';
import { describeIssues } from '../schema-issues.js';

/** Bytes of a manifest read at most: a manifest is a few hundred bytes. */
export const MAX_MANIFEST_BYTES = 64 * 1024;
/** The schema a 1.0 manifest may name. */
export const MANIFEST_SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
/** A plugin's name, as the format has it (the same rule as a skill's). */
export const PLUGIN_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

const Text = (max: number) =>
  v.pipe(v.string('must be a string'), v.maxLength(max, `must be at most ${max} characters`));

const Author = v.strictObject({ name: Text(200), email: v.optional(Text(200)), url: v.optional(Text(2048)) }, (issue) =>
  unknownField(issue.input),
);

const ManifestSchema = v.pipe(
  v.custom<unknown>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    'the manifest must hold a JSON object',
  ),
  v.strictObject(
    {
      $schema: v.optional(v.literal(MANIFEST_SCHEMA, `must be ${MANIFEST_SCHEMA}`)),
      name: v.pipe(
        v.string('is required and must be a string'),
        v.regex(PLUGIN_NAME, 'must be lower-case letters, digits and hyphens, 1 to 64 characters'),
      ),
      version: v.optional(Text(64)),
      description: v.optional(Text(1024)),
      author: v.optional(Author),
      homepage: v.optional(Text(2048)),
      repository: v.optional(v.union([Text(2048), v.record(v.string(), Text(2048))], 'must be a string or an object')),
      license: v.optional(Text(128)),
      keywords: v.optional(v.pipe(v.array(Text(64), 'must be an array of strings'), v.maxLength(50))),
      // Client-specific extensions, by reverse-domain name: allowed, and none read by this host.
      extensions: v.optional(v.record(v.string(), v.unknown(), 'must be an object')),
    },
    (issue) => unknownField(issue.input),
  ),
);

export type PluginManifest = v.InferOutput<typeof ManifestSchema>;

/** The strict object's one message: a key it requires is missing, or one it does not know is present. */
function unknownField(input: unknown): string {
  return input === undefined ? 'is required' : 'is a field the format does not define';
}

/** The manifest, or why it rejects the plugin (one line, naming the field). */
export function decodeManifest(text: string): Result<PluginManifest> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return fail('invalid-params', `plugin.json is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = v.safeParse(ManifestSchema, json);
  if (!parsed.success) return fail('invalid-params', `plugin.json: ${describeIssues(parsed.issues)}`);
  return ok(parsed.output);
}
