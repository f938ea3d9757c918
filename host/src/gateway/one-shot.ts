import type { X25519 } from '@tether/shared-protocol';
import type { Clock, HostIdentity, RandomBytes, ReplayCache, Result } from '@tether/shared-protocol';
import {
  ONE_SHOT_METHODS,
  decodeChannelMessage,
  encodeChannelMessage,
  fail,
  isMethodName,
  ok,
  openCall,
  protocolError,
  sealCallReply,
} from '@tether/shared-protocol';
import type { Caller } from '../rpc/caller.js';
import type { Dispatch } from '../rpc/dispatch.js';
import type { DeviceStore } from '../store/device-store.js';
import type { OneShotHorizon } from './one-shot-horizon.js';
import type { HostCounters } from '../stats/host-counters.js';

export interface OneShotDeps {
  identity: HostIdentity;
  devices: DeviceStore;
  clock: Clock;
  random: RandomBytes;
  replay: ReplayCache;
  dispatch: Dispatch<Caller>;
  stats: HostCounters;
  /** When the host started: calls stamped earlier are refused (see openCall's notBefore). */
  startedAt: number;
  /** Each device's newest call taken by an earlier run, and where this run's are kept. */
  horizon: OneShotHorizon;
  /** The X25519 chosen at start; tweetnacl's unless given. */
  x25519?: X25519;
  /**
   * Whether an approval may be approved without opening the app: false when its notification
   * offered only Deny and Open (something in it was masked, or the lock-screen policy holds it),
   * true for an approval the host does not know (the dispatch then answers not-found).
   */
  approvableUnopened: (approvalId: string) => boolean;
}

/**
 * One sealed request, one sealed reply, for a client that cannot hold a socket (the service
 * worker answering a notification action). The same checks as on a connection.
 */
export async function answerOneShot(deps: OneShotDeps, body: Uint8Array): Promise<Result<Uint8Array>> {
  const opened = openCall(body, {
    hostKeys: deps.identity.box,
    lookupDevice: (id) => deps.devices.activeKey(id),
    clock: deps.clock,
    replay: deps.replay,
    notBefore: deps.startedAt,
    takenBefore: (id) => deps.horizon.takenBefore(id),
    ...(deps.x25519 ? { x25519: deps.x25519 } : {}),
  });
  if (!opened.ok) {
    deps.stats.add(`call:${opened.error.code}`);
    return opened;
  }
  const device = deps.devices.get(opened.value.deviceId);
  if (!device || device.revoked) return fail('handshake-failed', 'call refused');
  if (!deps.horizon.record(device.id, opened.value.stampedAt)) {
    deps.stats.add('call:not-recorded');
    return fail('unavailable', 'the host could not record the call; try again');
  }
  const request = decodeChannelMessage(opened.value.body);
  if (!request || request.t !== 'req') {
    deps.stats.add('call:malformed');
    return fail('bad-request', 'a one-shot call carries one request');
  }
  const result = await oneShotDispatch(deps, request.method, request.params, { device });
  deps.devices.touch(device.id, deps.clock.now());
  const reply = encodeChannelMessage(
    result.ok ? { t: 'res', id: request.id, result: result.value } : { t: 'res', id: request.id, error: result.error },
  );
  return ok(sealCallReply(opened.value.replyKey, reply, deps.random));
}

/**
 * A notification's action answers one request, once: allow once or deny. An answer that outlives
 * the request (for this session, or the agent's own "always") is given only where the whole
 * request can be read, so a one-shot call carrying one is refused whatever sent it.
 */
const ONE_SHOT_DECISIONS: ReadonlySet<unknown> = new Set(['allow-once', 'deny']);

/** Dispatches a method a one-shot call may carry; anything else is refused and counted. */
function oneShotDispatch(deps: OneShotDeps, method: string, params: unknown, caller: Caller): Promise<Result<unknown>> {
  if (!isMethodName(method) || !ONE_SHOT_METHODS.has(method)) {
    deps.stats.add('call:method-not-one-shot');
    return refuse(`${method.slice(0, 100)} is not offered as a one-shot call`);
  }
  const decision =
    typeof params === 'object' && params !== null ? (params as { decision?: unknown }).decision : undefined;
  if (!ONE_SHOT_DECISIONS.has(decision)) {
    deps.stats.add('call:decision-not-one-shot');
    return refuse('a one-shot answer allows once or denies; a wider answer is given in the app');
  }
  // What the notification did not offer, the host does not take: a forged or replayed Approve of
  // an action the lock screen could not show whole (or showed masked) is refused here too.
  const id = (params as { id?: unknown }).id;
  if (decision === 'allow-once' && typeof id === 'string' && !deps.approvableUnopened(id)) {
    deps.stats.add('call:approve-needs-the-app');
    return refuse('this approval is approved only in the app, where it is shown whole');
  }
  return deps.dispatch(method, params, caller);
}

function refuse(message: string): Promise<Result<unknown>> {
  return Promise.resolve({ ok: false, error: protocolError('forbidden', message) });
}
