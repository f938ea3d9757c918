import type { Clock } from '../clock.js';
import { closeCodeToError, errorToCloseCode } from '../close-codes.js';
import type { Result } from '../errors.js';
import { ok, protocolError } from '../errors.js';
import type { BoxKeyPair } from '../identity.js';
import type { RandomBytes } from '../random.js';
import type { Transport } from '../link/transport.js';
import { MACHINE_LINK_VERSION, MachineLinkInitiator, acceptMachineHello } from './link-handshake.js';
import type { LinkPeerOptions } from './link-peer.js';
import { LinkPeer } from './link-peer.js';
import { handshakeWithDeadline } from '../link/handshake-deadline.js';
import { LINK_REGISTER_TIMEOUT_MS } from './machine-limits.js';

type PeerTuning = Pick<LinkPeerOptions, 'aead' | 'pingIntervalMs' | 'pongTimeoutMs' | 'maxPending'>;

export interface OpenLinkOptions extends PeerTuning {
  clock: Clock;
  random: RandomBytes;
  /**
   * Decides on the host's proven static key: the pin the machine keeps. A refusal ends the
   * handshake with that error (a changed key says so; the machine sends it nothing and dials again
   * later).
   */
  checkHostKey: (hostKey: Uint8Array) => Result<void>;
  timeoutMs?: number;
}

/** What a machine says when its hello was closed with the version code (4005). A close code is not
 * sealed: the host may speak another version, or something on the path may say so. */
const VERSION_REFUSED =
  `the link was closed during the handshake with 4005 (the host does not speak machine-link version ${MACHINE_LINK_VERSION}?): ` +
  'if the host runs another release, update it and this machine to the same one';

/** The machine's side of a fresh transport: the handshake, then an open LinkPeer. */
export function openMachineLink(
  transport: Transport,
  options: OpenLinkOptions,
): Promise<Result<{ peer: LinkPeer; hostKey: Uint8Array }>> {
  const initiator = new MachineLinkInitiator(options.random);
  return handshakeWithDeadline(transport, {
    clock: options.clock,
    timeoutMs: options.timeoutMs ?? LINK_REGISTER_TIMEOUT_MS,
    timeoutMessage: 'the host did not answer the handshake',
    closed: ({ code, reason }) => {
      const error = closeCodeToError(code);
      return error === 'version-unsupported'
        ? protocolError(error, VERSION_REFUSED)
        : protocolError(error, `${reason || 'closed during the handshake'} (${code})`);
    },
    hello: initiator.hello(),
    receive: (data) => {
      const welcomed = initiator.acceptWelcome(data);
      if (!welcomed.ok) return welcomed;
      const pinned = options.checkHostKey(welcomed.value.hostKey);
      if (!pinned.ok) return pinned;
      const peer = new LinkPeer({ ...options, transport, keys: welcomed.value.keys });
      return ok({ peer, hostKey: welcomed.value.hostKey });
    },
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
  return handshakeWithDeadline(transport, {
    clock: options.clock,
    timeoutMs: options.timeoutMs ?? LINK_REGISTER_TIMEOUT_MS,
    timeoutMessage: 'the machine did not say hello in time',
    closed: ({ code, reason }) => protocolError(closeCodeToError(code), reason || 'closed during the handshake'),
    closeCode: (error) => errorToCloseCode(error.code),
    receive: (data) => {
      const accepted = acceptMachineHello(data, options.hostKeys, options.random);
      if (!accepted.ok) return accepted;
      const peer = new LinkPeer({ ...options, transport, keys: accepted.value.keys });
      transport.send(accepted.value.welcome);
      return ok(peer);
    },
  });
}
