import * as v from 'valibot';
import { Count, Id, Name, Path, Timestamp } from '../rpc/common.js';
import { MachineInfoSchema } from '../rpc/machines.js';
import { MACHINE_CAPABILITIES } from '../machine/machine-methods.js';

/**
 * Control-socket methods for tokens and machines: only the person at the host mints a token,
 * sees tokens, revokes one, or forgets a machine. A token is shown once, when it is made; the host
 * keeps only its hash.
 */

export const TOKEN_SCOPES = ['machine'] as const;

export const TokenInfoSchema = v.object({
  id: Id,
  name: Name,
  scope: v.picklist(TOKEN_SCOPES),
  createdAt: Timestamp,
  lastUsedAt: v.nullable(Timestamp),
  revoked: v.boolean(),
});
export type TokenInfo = v.InferOutput<typeof TokenInfoSchema>;

export const CreateTokenParams = v.object({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  scope: v.picklist(TOKEN_SCOPES),
});
export const CreateTokenResult = v.object({
  /** The token itself: shown this once, never again. */
  token: v.pipe(v.string(), v.maxLength(200)),
  id: Id,
  name: Name,
  /** The host's box key (base64url), for `tether machine share --host-key`. */
  hostKey: v.pipe(v.string(), v.length(43)),
});

export const ListTokensResult = v.object({ tokens: v.array(TokenInfoSchema) });
export const RevokeTokenParams = v.object({ id: Id });
export const RevokeTokenResult = v.object({ droppedLinks: Count });

/** What the host knows of a machine, for the person at the host (more than devices see). */
export const MachineDetailSchema = v.object({
  ...MachineInfoSchema.entries,
  tokenId: Id,
  capabilities: v.array(v.picklist(MACHINE_CAPABILITIES)),
  version: Name,
  /** Sessions placed on it. */
  sessions: Count,
});
export type MachineDetail = v.InferOutput<typeof MachineDetailSchema>;

export const ListMachineDetailsResult = v.object({ machines: v.array(MachineDetailSchema) });
export const ForgetMachineParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });
export const MachineRootsSchema = v.array(Path);
