import type { HostIdentity } from '@tether/shared-protocol';
import {
  answerRelayChallenge,
  concatBytes,
  decodeRelayFrame,
  RelayFrameType,
  utf8Encode,
} from '@tether/shared-protocol';
import type { Attempt, FuzzHost, InFlight } from './relay-model.js';
import { frame, hex, mayOpen } from './relay-model.js';
import { count, failure, mutate, pick, random, randomBytes } from './relay-run.js';
import { board, checkReason, clock, identities, newPort, ORIGIN } from './relay-world.js';

/**
 * The two hosts of the relay fuzz run, linked again whenever their link closes, and the host's
 * side of every frame the relay writes to one: each checked against the model as it is written
 * (a device the host was never told of, bytes nobody sent, a request it was not sent), and each
 * forwarded request answered as a host might, well or badly.
 */

/** The live link of each of the two identities, by index. */
export const hosts: FuzzHost[] = [];
/** HTTP requests waiting for their answer, for a host to match what the relay forwards to it. */
export const inFlight = new Map<number, InFlight>();
let attempt: Attempt | undefined;

/** The connect request a device is presenting now, which the relay may open (`undefined` once it is done). */
export function presenting(now: Attempt | undefined): void {
  attempt = now;
}

/** Bytes before each frame type's variable part: version, type, then connId, or reqId and status. */
export const FIXED_BYTES: Partial<Record<number, number>> = {
  [RelayFrameType.Data]: 6,
  [RelayFrameType.Reply]: 8,
};

/** `seed` with its first `keep` bytes as they are and the rest mutated. */
export function mutateFrom(seed: Uint8Array, keep: number): Uint8Array {
  return concatBytes(seed.subarray(0, keep), mutate(seed.subarray(keep)));
}

export const STATUSES = [200, 201, 299, 400, 403, 404, 409, 429, 500, 503, 599];

/** Links `identity` as a host, answering its challenge; the link replaces any older one. */
export function linkHost(identity: HostIdentity): FuzzHost {
  count('host:linked');
  const port = newPort('198.51.100.1');
  const host: FuzzHost = { identity, port, link: undefined!, conns: new Map(), devices: [] };
  let challenge: Uint8Array | undefined;
  port.onSent = (bytes) => (challenge ??= bytes);
  host.link = board.acceptHost(port);
  port.onSent = (bytes) => fromRelayToHost(host, bytes);
  const answer = challenge && answerRelayChallenge(challenge, identity.sign, { relayUrl: ORIGIN, clock });
  if (!answer?.ok) throw new Error('the relay sent no challenge that can be answered');
  port.deliver(answer.value);
  if (board.local(identity.hostId) !== host.link) failure('a real host answer was refused');
  return host;
}

/** The host's side of what the relay writes to it: each frame checked against the model. */
function fromRelayToHost(host: FuzzHost, bytes: Uint8Array): void {
  const decoded = decodeRelayFrame(bytes);
  if (!decoded.ok) return failure(`the relay sent a host a frame its decoder refuses: ${decoded.error.message}`);
  const f = decoded.value;
  switch (f.type) {
    case 'ready':
      if (f.hostId !== host.identity.hostId) failure('the relay said ready for another host id');
      return;
    case 'about':
      // The fuzzed node serves no app (the switchboard's default): it must not say otherwise.
      if (f.servesApp) failure('a relay that serves no app said it does');
      return;
    case 'open': {
      const a = attempt;
      if (!a || a.hostId !== host.identity.hostId || a.device.deviceId !== f.deviceId) {
        return failure('a host was told of a device that never presented a ticket for it');
      }
      if (!mayOpen(a)) return failure('a forged, expired or foreign ticket was let through');
      if (host.conns.has(f.connId)) failure('a connection id was used twice on one link');
      a.device.connId = f.connId;
      host.conns.set(f.connId, a.device);
      count('device:opened');
      return;
    }
    case 'data': {
      const device = host.conns.get(f.connId);
      if (!device) return failure('a host got data for a connection it was never told of');
      if (!device.toHost.take(f.payload)) failure('a host got bytes its device never sent');
      return;
    }
    case 'close':
      if (!host.conns.delete(f.connId)) failure('a host was told of the close of a connection it never had');
      return;
    case 'pair-request':
    case 'call-request': {
      const kind = f.type === 'pair-request' ? 'pair' : 'call';
      const request = [...inFlight.values()].find(
        (r) => !r.reached && r.kind === kind && r.hostId === host.identity.hostId && r.body === hex(f.body),
      );
      if (!request) return failure(`a ${kind} request reached a host it was not sent to`);
      request.reached = true;
      queueMicrotask(() => answerRequest(host, request, f.reqId));
      return;
    }
    case 'ping':
      queueMicrotask(() => host.port.deliver(frame({ type: 'pong', nonce: f.nonce })));
      return;
    case 'pong':
      return;
    default:
      failure(`the relay sent a host a ${f.type} frame`);
  }
}

/**
 * The host answers a forwarded request: well, with another body, or not at all; seldom with a
 * changed header or garbage, which ends its link.
 */
function answerRequest(host: FuzzHost, request: InFlight, reqId: number): void {
  const roll = random();
  if (roll < 0.05) return;
  const valid = frame({ type: 'reply', reqId, status: pick(STATUSES), body: utf8Encode(`{"r":${reqId}}`) });
  const bytes =
    roll < 0.75
      ? valid
      : roll < 0.99
        ? mutateFrom(valid, FIXED_BYTES[RelayFrameType.Reply]!)
        : roll < 0.997
          ? mutate(valid)
          : randomBytes(40);
  const sent = decodeRelayFrame(bytes);
  if (sent.ok && sent.value.type === 'reply' && sent.value.reqId === reqId) {
    request.reply = { status: sent.value.status, body: sent.value.body.slice() };
  }
  host.port.deliver(bytes);
}

/** The live link for host `i`, linked again when the last one closed. */
export function liveHost(i: number): FuzzHost {
  const current = hosts[i];
  if (current && !current.port.isClosed) return current;
  if (current) hostGone(current);
  const host = linkHost(identities[i]!);
  hosts[i] = host;
  return host;
}

/** A host's link closed: each of its devices must have been closed with it. */
export function hostGone(host: FuzzHost): void {
  checkReason(host.port);
  for (const device of host.devices) {
    if (device.connId !== undefined && !device.port.isClosed) failure('a device outlived its host link');
  }
  host.devices = [];
}
