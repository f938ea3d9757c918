import * as v from 'valibot';
import { MAX_MESSAGE_TEXT } from '../limits.js';
import { MAX_RELAYS, RelayUrlListSchema } from '../relay/relay-list.js';
import { RelayStandingSchema } from '../rpc/relay.js';
import type { MethodName, Methods } from '../rpc/methods.js';
import { METHODS } from '../rpc/methods.js';
import type { TableParams, TableResult } from '../rpc/method-table.js';
import { isTableMethod } from '../rpc/method-table.js';
import { AgentName, AgentSessionId, ListAgentSessionsResult, ListAgentsResult } from '../rpc/agents.js';
import { Count, Empty, Id, Name, Path, Seq, Timestamp } from '../rpc/common.js';
import { DeviceInfoSchema, RevokeDeviceParams } from '../rpc/devices.js';
import { KeepAwakeSchema } from '../rpc/keep-awake.js';
import { Cols, Rows, TerminalInfoSchema } from '../rpc/terminals.js';
import {
  steeringAtStart,
  inWorktree,
  SessionIdParams,
  SessionResult,
  WatchSessionParams,
  SessionSummarySchema,
} from '../rpc/sessions.js';
import {
  CreateTokenParams,
  CreateTokenResult,
  ForgetMachineParams,
  ListMachineDetailsResult,
  ListTokensResult,
  RevokeTokenParams,
  RevokeTokenResult,
} from './machine-control.js';
import {
  TrustListResult,
  TrustRecordSchema,
  TrustRevokeParams,
  TrustRevokeResult,
  TrustSetParams,
  TrustShowParams,
  TrustShowResult,
} from './trust-control.js';
import { PairAllowParams, PairLinkResult, PairRequestSchema } from './pair-control.js';

/**
 * The local control socket: what `tether …` commands ask the running host, over an owner-only
 * Unix socket in the data dir. Same message shapes as the sealed channel (`{t:"req"}`,
 * `{t:"res"}`, `{t:"evt"}`), one JSON object per line, no crypto: the socket's file mode is the
 * access control. Only the person at the computer reaches it, so it can also do what devices
 * never may (allow a pairing, mint tokens).
 */

/** The host's link to a relay (`tether start --relay URL`), as `tether status` shows it. */
export const RelayLinkStatusSchema = v.object({
  /** The relay the link is on now, or dialling. */
  url: v.pipe(v.string(), v.maxLength(2048)),
  /** Every relay the host keeps, in order, when it was given more than one. */
  urls: v.optional(RelayUrlListSchema),
  /** `linked`: devices reach the host through the relay now; `waiting`: relinking after a drop or
   * a refusal; `stopped`: the host stopped its link (it is shutting down). No relay stops it. */
  state: v.picklist(['connecting', 'linked', 'waiting', 'stopped']),
  message: v.pipe(v.string(), v.maxLength(2000)),
  /** When the link reached its current state. */
  since: Timestamp,
  /** Device connections open through the relay now. */
  connections: Count,
  /** Each relay the host keeps, with its own state and why: one relay's refusal holds only it. */
  relays: v.optional(v.pipe(v.array(RelayStandingSchema), v.maxLength(MAX_RELAYS))),
});

export type RelayLinkStatus = v.InferOutput<typeof RelayLinkStatusSchema>;

export const RemoteStatusSchema = v.object({
  /** Whether phones can reach this host now, and if not, why and what would fix it. */
  listening: v.boolean(),
  url: v.nullable(v.pipe(v.string(), v.maxLength(2048))),
  mode: v.nullable(v.picklist(['http', 'https'])),
  message: v.pipe(v.string(), v.maxLength(2000)),
  connectedDevices: Count,
  /** Refused connections, frames and requests, by reason. */
  refused: v.record(v.string(), Count),
  relay: v.optional(RelayLinkStatusSchema),
});

export const HostStatusResult = v.object({
  hostId: Id,
  name: Name,
  version: Name,
  pid: Count,
  dataDir: Path,
  startedAt: Timestamp,
  defaultModel: Name,
  sessions: Count,
  runningSessions: Count,
  pendingApprovals: Count,
  remote: RemoteStatusSchema,
  /** Bugs caught and counted instead of failing what they were part of, by where they happened. */
  failures: v.record(v.string(), Count),
  /** Push notifications: subscriptions kept, and every send's outcome by reason. */
  push: v.optional(v.object({ subscriptions: Count, counters: v.record(v.string(), Count) })),
  /** The sleep inhibitor: held while a run is active or a terminal attached (`--no-keep-awake`: off). */
  keepAwake: v.optional(KeepAwakeSchema),
});

export const ControlCreateSessionParams = v.object({
  cwd: Path,
  text: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_MESSAGE_TEXT)),
  model: v.optional(Name),
  /** The machine it runs on (its name); this computer when absent. */
  machine: v.optional(Name),
  /** An ACP agent by its configured name, instead of Tether's own loop; not with `model`. */
  agent: v.optional(AgentName),
  ...steeringAtStart(),
  ...inWorktree(),
});

/** `tether agents sessions NAME`: an agent's own sessions in a folder. */
export const ControlListAgentSessionsParams = v.object({
  agent: AgentName,
  cwd: Path,
  /** The machine the folder is on (its name); this computer when absent. */
  machine: v.optional(Name),
});

/** `tether agents continue NAME ID`: a Tether session that continues one of them. */
export const ControlContinueSessionParams = v.object({
  agent: AgentName,
  id: AgentSessionId,
  cwd: Path,
  machine: v.optional(Name),
  title: v.optional(Name),
});

export const SessionEventsParams = v.object({
  id: Id,
  after: Seq,
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5000))),
});

export const SessionEventsResult = v.object({
  /** Decoded by the caller with decodeEvent: an unknown type is skipped, not fatal. */
  events: v.array(v.unknown()),
  lastSeq: Seq,
});

/** Variables a wrapped program is given from the caller's environment: at most 1024, 256 KiB. */
export const MAX_RUN_ENV = 1024;
const EnvName = v.pipe(v.string(), v.minLength(1), v.maxLength(256), v.regex(/^[^=\0]+$/));
const EnvValue = v.pipe(v.string(), v.maxLength(32 * 1024));

/** `tether run`: a program in a terminal the host owns, followed as a `terminal` session. */
export const RunTerminalParams = v.object({
  /** Unique among the wrapped programs running now; the program's name when absent. */
  name: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/))),
  cwd: Path,
  /** The program and its arguments, run without a shell. */
  command: v.pipe(v.array(v.pipe(v.string(), v.maxLength(4096))), v.minLength(1), v.maxLength(256)),
  /** The caller's environment, which the program runs with (the host's credentials taken out). */
  env: v.optional(
    v.pipe(
      v.record(EnvName, EnvValue),
      v.check((env) => Object.keys(env).length <= MAX_RUN_ENV, `at most ${MAX_RUN_ENV} variables`),
    ),
  ),
  cols: Cols,
  rows: Rows,
});
export const RunTerminalResult = v.object({ session: SessionSummarySchema, terminal: TerminalInfoSchema });

export const AutoApproveParams = v.object({ id: Id, enabled: v.boolean() });

function control<P extends v.GenericSchema, R extends v.GenericSchema>(params: P, result: R) {
  return { params, result };
}

/** A method that takes and answers the same as a device's method of that name. */
function asDevice<M extends MethodName>(name: M): Pick<Methods[M], 'params' | 'result'> {
  return control(METHODS[name].params, METHODS[name].result);
}

export const CONTROL_METHODS = {
  'host.status': control(Empty, HostStatusResult),
  'sessions.list': asDevice('sessions.list'),
  'sessions.create': control(ControlCreateSessionParams, SessionResult),
  'sessions.get': control(SessionIdParams, SessionResult),
  'sessions.events': control(SessionEventsParams, SessionEventsResult),
  /** Replays events after `after`, then streams live ones as `{t:"evt"}` lines. */
  'sessions.follow': control(WatchSessionParams, SessionResult),
  'sessions.send': asDevice('sessions.send'),
  /** `tether sessions send --attach FILE`: the same chunked upload a device makes. */
  'blobs.begin': asDevice('blobs.begin'),
  'blobs.chunk': asDevice('blobs.chunk'),
  'blobs.finish': asDevice('blobs.finish'),
  'blobs.cancel': asDevice('blobs.cancel'),
  'sessions.interrupt': asDevice('sessions.interrupt'),
  'sessions.archive': asDevice('sessions.archive'),
  'sessions.autoApprove': control(AutoApproveParams, Empty),
  'sessions.configure': asDevice('sessions.configure'),
  /** Loads an agent's own session into a new Tether session (or answers the one that continues it). */
  'sessions.continue': control(ControlContinueSessionParams, SessionResult),
  /** Every configured ACP agent, whether it can be started now and why not. */
  'agents.list': control(Empty, ListAgentsResult),
  /** An agent's own earlier sessions in a folder, newest first. */
  'agents.sessions': control(ControlListAgentSessionsParams, ListAgentSessionsResult),
  'approvals.list': asDevice('approvals.list'),
  'approvals.answer': asDevice('approvals.answer'),
  /** Mints a new pairing link (the old one stops working). */
  'pair.create': control(Empty, PairLinkResult),
  'pair.requests': control(Empty, v.object({ requests: v.array(PairRequestSchema) })),
  'pair.allow': control(PairAllowParams, v.object({ device: DeviceInfoSchema })),
  'pair.deny': control(v.object({ id: Id }), Empty),
  'devices.list': asDevice('devices.list'),
  'devices.revoke': control(RevokeDeviceParams, v.object({ closedConnections: Count })),
  'tokens.create': control(CreateTokenParams, CreateTokenResult),
  'tokens.list': control(Empty, ListTokensResult),
  /** Revokes a token; the machines linked with it are dropped at once. */
  'tokens.revoke': control(RevokeTokenParams, RevokeTokenResult),
  'machines.list': control(Empty, ListMachineDetailsResult),
  'machines.forget': control(ForgetMachineParams, Empty),
  'terminals.list': asDevice('terminals.list'),
  /** Starts a wrapped program (`tether run`); attach to follow it. */
  'terminals.run': control(RunTerminalParams, RunTerminalResult),
  /** Streams a terminal's output to this client as `terminal.*` events, acknowledged like a device's. */
  'terminals.attach': asDevice('terminals.attach'),
  'terminals.detach': asDevice('terminals.detach'),
  'terminals.ack': asDevice('terminals.ack'),
  'terminals.input': asDevice('terminals.input'),
  'terminals.resize': asDevice('terminals.resize'),

  // Share links (`tether share`): read-only links to one session, the same as a device's `share.*`.
  'share.create': asDevice('share.create'),
  'share.list': asDevice('share.list'),
  /** Revokes a link; its viewers are cut off at once. */
  'share.revoke': asDevice('share.revoke'),

  /** Folder trust (`tether trust`): a folder's own agent configuration as a session there would load it. */
  'trust.show': control(TrustShowParams, TrustShowResult),
  /** Trusts exactly what `trust.show` gave (refused when it changed meanwhile). */
  'trust.set': control(TrustSetParams, v.object({ records: v.array(TrustRecordSchema) })),
  'trust.list': control(Empty, TrustListResult),
  'trust.revoke': control(TrustRevokeParams, TrustRevokeResult),

  // `tether sessions commands|mode|model|budget`: the same steering a device has.
  'sessions.controls': asDevice('sessions.controls'),
  'sessions.setMode': asDevice('sessions.setMode'),
  'sessions.setModel': asDevice('sessions.setModel'),
  'sessions.setBudget': asDevice('sessions.setBudget'),

  // `tether sessions git ID …`: the same git a device has.
  'git.status': asDevice('git.status'),
  'git.diff': asDevice('git.diff'),
  'git.stage': asDevice('git.stage'),
  'git.unstage': asDevice('git.unstage'),
  'git.commit': asDevice('git.commit'),
  'git.push': asDevice('git.push'),
  'git.pullRequest': asDevice('git.pullRequest'),
} as const;

export type ControlMethods = typeof CONTROL_METHODS;
export type ControlMethodName = keyof ControlMethods;
export type ControlParams<M extends ControlMethodName> = TableParams<ControlMethods, M>;
export type ControlResult<M extends ControlMethodName> = TableResult<ControlMethods, M>;

export const isControlMethod = (name: string): name is ControlMethodName => isTableMethod(CONTROL_METHODS, name);

/** Bytes of one line on the control socket: a frame's worth plus room for the envelope. */
export const MAX_CONTROL_LINE = 2 * 1024 * 1024;
