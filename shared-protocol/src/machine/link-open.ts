import type { Clock, TimerHandle } from '../clock.js';
import { CloseCode, closeCodeToError, errorToCloseCode } from '../close-codes.js';
import type { Result } from '../errors.js';
import { fail, ok, protocolError } from '../errors.js';
import type { BoxKeyPair } from '../identity.js';
import type { RandomBytes } from '../random.js';
import type { Transport } from '../client/transport.js';
import { MachineLinkInitiator, acceptMachineHello } from './link-handshake.js';
import type { LinkPeerOptions } from './link-peer.js';
import { LinkPeer } from './link-peer.js';
import { LINK_REGISTER_TIMEOUT_MS } from './machine-limits.js';

type PeerTuning = Pick<LinkPeerOptions, 'pingIntervalMs' | 'pongTimeoutMs' | 'maxPending'>;

export interface OpenLinkOptions extends PeerTuning {
  clock: Clock;
  random: RandomBytes;
  /**
   * Decides on the host's proven static key: the pin the machine keeps. A refusal ends the
   * handshake with that error (a changed key says so, and the machine stops trying).
   */
  checkHostKey: (hostKey: Uint8Array) => Result<void>;
  timeoutMs?: number;
}

/** The machine's side of a fresh transport: the handshake, then an open LinkPeer. */
export function openMachineLink(
  transport: Transport,
  options: OpenLinkOptions,
): Promise<Result<{ peer: LinkPeer; hostKey: Uint8Array }>> {
  return new Promise((resolve) => {
    const initiator = new MachineLinkInitiator(options.random);
    let settled = false;
    const settle = (result: Result<{ peer: LinkPeer; hostKey: Uint8Array }>) => {
      if (settled) return;
      settled = true;
      options.clock.clearTimeout(timer);
      if (!result.ok) transport.close(CloseCode.Normal, result.error.code);
      resolve(result);
    };
    const timer: TimerHandle = options.clock.setTimeout(
      () => settle(fail('timeout', 'the host did not answer the handshake')),
      options.timeoutMs ?? LINK_REGISTER_TIMEOUT_MS,
    );
    transport.onClose = ({ code, reason }) =>
      settle({ ok: false, error: protocolError(closeCodeToError(code), reason || 'closed during the handshake') });
    transport.onMessage = (data) => {
      const welcomed = initiator.acceptWelcome(data);
      if (!welcomed.ok) return settle(welcomed);
      const pinned = options.checkHostKey(welcomed.value.hostKey);
      if (!pinned.ok) return settle(pinned);
      settled = true;
      options.clock.clearTimeout(timer);
      const peer = new LinkPeer({ ...options, transport, keys: welcomed.value.keys });
      resolve(ok({ peer, hostKey: welcomed.value.hostKey }));
    };
    transport.send(initiator.hello());
  });
}

export interface AcceptLinkOptions extends PeerTuning {
  clock: Clock;
  random: RandomBytes;
  hostKeys: BoxKeyPair;
  timeoutMs?: number;
}

/** The host's side: waits for the hello, answers it, and hands back an open LinkPeer. */
export function acceptMachineLink(transport: Transport, options: AcceptLinkOptions): Promise<Result<LinkPeer>> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: Result<LinkPeer>) => {
      if (settled) return;
      settled = true;
      options.clock.clearTimeout(timer);
      if (!result.ok) transport.close(errorToCloseCode(result.error.code), result.error.code);
      resolve(result);
    };
    const timer: TimerHandle = options.clock.setTimeout(
      () => settle(fail('timeout', 'the machine did not say hello in time')),
      options.timeoutMs ?? LINK_REGISTER_TIMEOUT_MS,
    );
    transport.onClose = ({ code, reason }) =>
      settle({ ok: false, error: protocolError(closeCodeToError(code), reason || 'closed during the handshake') });
    transport.onMessage = (data) => {
      const accepted = acceptMachineHello(data, options.hostKeys, options.random);
      if (!accepted.ok) return settle(accepted);
      const peer = new LinkPeer({ ...options, transport, keys: accepted.value.keys });
      transport.send(accepted.value.welcome);
      settle(ok(peer));
    };
  });
}
