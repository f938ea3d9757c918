import * as v from 'valibot';
import { RelayUrlListSchema } from '../relay/relay-list.js';
import { ScopeSchema } from '../scopes.js';
import { AgentInfoSchema } from './agents.js';
import { Id, Name, Path } from './common.js';
import { ViewGrantSchema } from './share.js';
import { KeepAwakeSchema } from './keep-awake.js';

/** `host.info` and `fs.listDirs`: who the host is, and the folders a session may run in. */

export const HostInfoResult = v.object({
  hostId: Id,
  name: Name,
  version: Name,
  protocolVersion: v.number(),
  deviceId: Id,
  scopes: v.array(ScopeSchema),
  /** Method families this host offers beyond the base set ("machines", "terminals", "push"). */
  features: v.array(Name),
  models: v.array(Name),
  defaultModel: Name,
  roots: v.array(Path),
  /** ACP agents configured on the host, each saying whether it can be started now (absent from older hosts). */
  agents: v.optional(v.array(AgentInfoSchema)),
  /** The relays the host keeps, most preferred first (absent when it has none, and from older
   * hosts): a device learns of a relay added or removed since it paired on every connect. */
  relays: v.optional(RelayUrlListSchema),
  /** To a share link's viewer only: the one session it may follow, and how (absent for a device). */
  view: v.optional(ViewGrantSchema),
  /** Whether the host keeps the computer awake, and why not (absent from older hosts); the
   * `awake.status` host event says each change after. */
  keepAwake: v.optional(KeepAwakeSchema),
});

export const DirEntry = v.object({ name: Name, path: Path });

export const ListDirsParams = v.object({
  /** A folder under one of the host's roots; absent lists the roots themselves. */
  path: v.optional(Path),
});

export const ListDirsResult = v.object({
  path: v.nullable(Path),
  parent: v.nullable(Path),
  dirs: v.array(DirEntry),
  /** True when the folder had more entries than one reply carries. */
  truncated: v.boolean(),
});

export type HostInfo = v.InferOutput<typeof HostInfoResult>;
export type DirListing = v.InferOutput<typeof ListDirsResult>;
