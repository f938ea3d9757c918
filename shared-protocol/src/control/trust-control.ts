import * as v from 'valibot';
import { MAX_ACTION_TEXT } from '../limits.js';
import { Count, Name, Path, Timestamp } from '../rpc/common.js';

/**
 * `tether trust`: folder trust at the computer, over the control socket. A folder's own agent
 * configuration (hooks, MCP servers, plugins) loads only once trusted, pinned to its content:
 * `trust.show` reads it as a session there would, `trust.set` trusts exactly what was shown (a
 * fingerprint per agent; one that changed meanwhile is refused), `trust.list` and
 * `trust.revoke` keep the list.
 */

export const TRUST_FAMILY_NAMES = ['claude-code', 'codex', 'gemini', 'tether'] as const;
export const TrustFamilySchema = v.picklist(TRUST_FAMILY_NAMES);
/** Whose configuration: the three adapters Tether knows, and its own loop. */
export type TrustFamily = (typeof TRUST_FAMILY_NAMES)[number];

const Fingerprint = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));
const Action = v.pipe(v.string(), v.maxLength(8 * MAX_ACTION_TEXT));

/** One agent's configuration in a folder, as a session there would load it. */
export const TrustConfigSchema = v.object({
  family: TrustFamilySchema,
  /** Who loads it: "Claude Code", "Tether's own loop". */
  agent: Name,
  /** Where it is trusted: the folder, or for the own loop its repository root. */
  folder: Path,
  /** Whether the folder has any (none: nothing to trust, it needs no question). */
  present: v.boolean(),
  /** What the person is shown: what it runs and takes, and the files it is pinned to. */
  action: Action,
  fingerprint: Fingerprint,
  /** Trusted as it is now. */
  trusted: v.boolean(),
  /** Why it cannot be trusted as it is (part of it cannot be read whole). */
  untrustable: v.optional(v.pipe(v.string(), v.maxLength(64 * 1024))),
});

export const TrustRecordSchema = v.object({
  place: Name,
  folder: Path,
  family: TrustFamilySchema,
  fingerprint: Fingerprint,
  action: Action,
  trustedAt: Timestamp,
  trustedBy: Name,
});

export const TrustShowParams = v.object({ folder: Path });
export const TrustShowResult = v.object({ folder: Path, configs: v.array(TrustConfigSchema) });
export const TrustSetParams = v.object({
  folder: Path,
  /** Exactly what was shown, per agent. */
  fingerprints: v.pipe(v.array(v.object({ family: TrustFamilySchema, fingerprint: Fingerprint })), v.maxLength(4)),
});
export const TrustListResult = v.object({ records: v.array(TrustRecordSchema) });
/** Without `family`, what was trusted for every agent in the folder. */
export const TrustRevokeParams = v.object({ folder: Path, family: v.optional(TrustFamilySchema) });
export const TrustRevokeResult = v.object({ folder: Path, revoked: Count });

export type TrustConfig = v.InferOutput<typeof TrustConfigSchema>;
export type TrustRecordInfo = v.InferOutput<typeof TrustRecordSchema>;
