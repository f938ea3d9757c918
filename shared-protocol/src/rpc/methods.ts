import type * as v from 'valibot';
import type { Scope } from '../scopes.js';
import { ContinueSessionParams, ListAgentSessionsParams, ListAgentSessionsResult } from './agents.js';
import { AnswerApprovalParams, AnswerApprovalResult, ListApprovalsParams, ListApprovalsResult } from './approvals.js';
import { GetApprovalParams, GetApprovalResult } from './approvals.js';
import {
  BeginUploadParams,
  BeginUploadResult,
  FinishUploadResult,
  ReadBlobParams,
  ReadBlobResult,
  UploadChunkParams,
  UploadChunkResult,
  UploadIdParams,
} from './blobs.js';
import { BatchOfferResult } from './batch-frame.js';
import { Empty } from './common.js';
import { ListDevicesResult, RevokeDeviceParams } from './devices.js';
import { ChangesParams, ChangesResult, ConfigureSessionParams, HistoryParams, HistoryResult } from './history.js';
import { HostInfoResult, ListDirsParams, ListDirsResult } from './host.js';
import { ListMachinesResult, MachineListDirsParams } from './machines.js';
import { AppVisibilityParams, PushStatusResult, PushSubscribeParams, PushUnsubscribeParams } from './push.js';
import { RelayStatusResult, RelayTicketResult } from './relay.js';
import {
  CreateShareParams,
  CreateShareResult,
  ListSharesParams,
  ListSharesResult,
  RevokeShareParams,
  RevokeShareResult,
} from './share.js';
import {
  ArchiveParams,
  CreateSessionParams,
  ListSessionsParams,
  ListSessionsResult,
  SendParams,
  SendResult,
  SessionIdParams,
  SessionResult,
  WatchSessionParams,
  WatchSessionResult,
} from './sessions.js';
import {
  AgentControlsParams,
  SessionControlsResult,
  SetBudgetParams,
  SetModeParams,
  SetModelParams,
} from './steering.js';
import {
  AckTerminalParams,
  AttachTerminalParams,
  AttachTerminalResult,
  ListTerminalsResult,
  OpenTerminalParams,
  OpenTerminalResult,
  ResizeTerminalParams,
  TerminalIdParams,
  TerminalInputParams,
} from './terminals.js';
import {
  GitCommitParams,
  GitDiffParams,
  GitDiffResult,
  GitPathsParams,
  GitPullRequestResult,
  GitPushParams,
  GitStatusResult,
  GitWriteResult,
} from './git.js';

/**
 * The closed set of methods a device may call over the sealed channel. Each names the scope it
 * needs (`null`: any paired device), its params and its result. A method not in this table is
 * refused with `unknown-method`; a device without the scope gets `forbidden`.
 */

interface MethodSpec {
  scope: Scope | null;
  params: v.GenericSchema;
  result: v.GenericSchema;
  /** Safe to send again after a connection drops before the reply (reads, idempotent writes). */
  idempotent: boolean;
}

function method<P extends v.GenericSchema, R extends v.GenericSchema>(
  scope: Scope | null,
  params: P,
  result: R,
  idempotent: boolean,
) {
  return { scope, params, result, idempotent } satisfies MethodSpec;
}

export const METHODS = {
  'host.info': method(null, Empty, HostInfoResult, true),
  'fs.listDirs': method('chat', ListDirsParams, ListDirsResult, true),

  'sessions.list': method('watch', ListSessionsParams, ListSessionsResult, true),
  'sessions.create': method('chat', CreateSessionParams, SessionResult, false),
  'sessions.watch': method('watch', WatchSessionParams, WatchSessionResult, true),
  'sessions.unwatch': method('watch', SessionIdParams, Empty, true),
  'sessions.send': method('chat', SendParams, SendResult, false),
  'sessions.interrupt': method('chat', SessionIdParams, Empty, true),
  'sessions.archive': method('chat', ArchiveParams, Empty, true),
  'sessions.history': method('watch', HistoryParams, HistoryResult, true),
  'sessions.changes': method('watch', ChangesParams, ChangesResult, true),
  'sessions.configure': method('chat', ConfigureSessionParams, SessionResult, true),
  // Continuing the same agent session again answers the Tether session that continues it already.
  'sessions.continue': method('chat', ContinueSessionParams, SessionResult, true),

  // Attachments: uploaded in chunks for one session, then named by a `sessions.send`. A chunk sent
  // again after a drop is refused as `conflict` (the upload is dropped and begun again).
  'blobs.begin': method('chat', BeginUploadParams, BeginUploadResult, false),
  'blobs.chunk': method('chat', UploadChunkParams, UploadChunkResult, false),
  'blobs.finish': method('chat', UploadIdParams, FinishUploadResult, false),
  'blobs.cancel': method('chat', UploadIdParams, Empty, true),
  'blobs.read': method('watch', ReadBlobParams, ReadBlobResult, true),

  // An agent's own sessions name the work done at the computer: as much as browsing its folders.
  'agents.sessions': method('chat', ListAgentSessionsParams, ListAgentSessionsResult, true),

  'approvals.list': method('watch', ListApprovalsParams, ListApprovalsResult, true),
  'approvals.answer': method('approve', AnswerApprovalParams, AnswerApprovalResult, true),

  // One approval, answered or not: the card a tapped notification opens on (notifications.md).
  'approvals.get': method('watch', GetApprovalParams, GetApprovalResult, true),

  'machines.list': method('watch', Empty, ListMachinesResult, true),
  'machines.listDirs': method('chat', MachineListDirsParams, ListDirsResult, true),

  'terminals.open': method('terminal', OpenTerminalParams, OpenTerminalResult, false),
  'terminals.attach': method('terminal', AttachTerminalParams, AttachTerminalResult, true),
  'terminals.input': method('terminal', TerminalInputParams, Empty, false),
  'terminals.resize': method('terminal', ResizeTerminalParams, Empty, true),
  'terminals.close': method('terminal', TerminalIdParams, Empty, true),
  'terminals.list': method('terminal', Empty, ListTerminalsResult, true),
  'terminals.ack': method('terminal', AckTerminalParams, Empty, true),
  'terminals.detach': method('terminal', TerminalIdParams, Empty, true),

  'push.subscribe': method('watch', PushSubscribeParams, Empty, true),
  'push.unsubscribe': method('watch', PushUnsubscribeParams, Empty, true),
  'push.status': method('watch', Empty, PushStatusResult, true),
  'app.visibility': method('watch', AppVisibilityParams, Empty, true),

  // A device may always revoke itself (unpair); revoking another needs `admin` (checked by the host).
  'devices.list': method('admin', Empty, ListDevicesResult, true),
  'devices.revoke': method(null, RevokeDeviceParams, Empty, true),

  // Any paired device may renew its own relay ticket: the ticket names the caller, nobody else.
  'relay.ticket': method(null, Empty, RelayTicketResult, true),

  // Share links (read-only, one session): making one shows the session to whoever holds it, as much
  // as sending it a message would reach; a link's viewer gets none of these (share.ts, VIEW_METHODS).
  'share.create': method('chat', CreateShareParams, CreateShareResult, false),
  'share.list': method('chat', ListSharesParams, ListSharesResult, true),
  'share.revoke': method('chat', RevokeShareParams, RevokeShareResult, true),
  // Steering a session: its slash commands, modes and models (read as a watcher may read the
  // transcript), switching them and its budget (as sending a message does).
  'sessions.controls': method('watch', SessionIdParams, SessionControlsResult, true),
  'sessions.setMode': method('chat', SetModeParams, SessionResult, true),
  'sessions.setModel': method('chat', SetModelParams, SessionResult, true),
  'sessions.setBudget': method('chat', SetBudgetParams, SessionResult, true),
  // For New session: an agent's modes and models as it offered them last (as much as agents.sessions).
  'agents.controls': method('chat', AgentControlsParams, SessionControlsResult, true),
  // Where each of the host's relays stands, and why: what the host's row in the app shows.
  'relay.status': method('watch', Empty, RelayStatusResult, true),

  // Git in the session's folder (git.ts): reading it shows the code as the Changes view does, and
  // every write changes the person's repository (and a push, their remote) as a message may.
  'git.status': method('chat', SessionIdParams, GitStatusResult, true),
  'git.diff': method('chat', GitDiffParams, GitDiffResult, true),
  'git.stage': method('chat', GitPathsParams, GitWriteResult, true),
  'git.unstage': method('chat', GitPathsParams, GitWriteResult, true),
  'git.commit': method('chat', GitCommitParams, GitWriteResult, false),
  'git.push': method('chat', GitPushParams, GitWriteResult, false),
  'git.pullRequest': method('chat', SessionIdParams, GitPullRequestResult, false),

  // The device takes batches (batch-frame.ts) on this connection from now on: it asks nothing of
  // the host's data, so any paired device may say it. An older host answers `unknown-method`.
  'channel.batch': method(null, Empty, BatchOfferResult, true),
} as const;

export type Methods = typeof METHODS;
export type MethodName = keyof Methods;
export type MethodParams<M extends MethodName> = v.InferInput<Methods[M]['params']>;
export type MethodResult<M extends MethodName> = v.InferOutput<Methods[M]['result']>;

/**
 * Methods a one-shot call may carry: only what a notification action does (answer an approval).
 * A one-shot call needs no connection, so it must not be a way around one: anything else that a
 * captured call could repeat (start a session, revoke a device) is refused.
 */
export const ONE_SHOT_METHODS: ReadonlySet<MethodName> = new Set<MethodName>(['approvals.answer']);

export function isMethodName(name: string): name is MethodName {
  return Object.prototype.hasOwnProperty.call(METHODS, name);
}
