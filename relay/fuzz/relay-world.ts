import type { HostIdentity } from '@tether/shared-protocol';
import {
  encodeConnectRequest,
  generateBoxKeyPair,
  generateDeviceId,
  generateHostIdentity,
  PROTOCOL_VERSION,
  sealCall,
  signRelayTicket,
  toBase64Url,
  utf8Encode,
} from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { createRelayApp } from '../src/http-app.js';
import type { RelayLimits } from '../src/limits.js';
import { DEFAULT_LIMITS } from '../src/limits.js';
import { DROP_REASONS, REFUSAL_REASONS, RelayMetrics } from '../src/metrics.js';
import { Switchboard } from '../src/switchboard.js';
import { FuzzPort } from './fuzz-port.js';
import { failure, pick, seededBytes } from './relay-run.js';

/**
 * The relay the fuzz run works against, in-process: a real Switchboard with small bounds and its
 * HTTP app, two host identities with tickets made ahead for each (some expired), stranger host
 * ids, sealed call bodies, and every port the run opens, for the census to count.
 */

/** Small bounds, so a run reaches every one of them often. */
export const LIMITS: RelayLimits = {
  ...DEFAULT_LIMITS,
  requestAnswerFloorMs: 0,
  maxDeviceConnsPerHost: 6,
  deviceOutboxBytes: 16 * 1024,
  deviceOutboxFrames: 16,
  hostOutboxBytes: 64 * 1024,
  hostOutboxFrames: 64,
  hostShareBytes: 16 * 1024,
  hostShareFrames: 16,
  nodeQueuedBytes: 96 * 1024,
  maxPendingRequestsPerHost: 4,
  maxPendingRequests: 6,
  attachBufferFrames: 4,
  maxTrackedAddresses: 32,
  maxPendingAuth: 24,
};
export const ORIGIN = 'https://relay.fuzz';
export const SOURCES = ['203.0.113.7', '198.51.100.9', '2001:db8::1', '2001:db8::2', '2001:db8:0:1::1', '192.0.2.44'];
const NAMED_REASONS = new Set<string>([...REFUSAL_REASONS, ...DROP_REASONS]);

export const clock = new ManualClock();
export const metrics = new RelayMetrics();
export const board = new Switchboard({ clock, random: seededBytes, limits: LIMITS, metrics, origin: ORIGIN });
export const app = createRelayApp({
  relay: board,
  limits: LIMITS,
  metrics,
  clock,
  trustedProxies: new Set(['192.0.2.44']),
  app: undefined,
  isClosing: () => false,
});

/** Every port made, until it is closed: what the census must count. */
export const ports = new Set<FuzzPort>();
/** Ports that never authenticated and were left open (silent sockets for the auth deadline). */
export const silent: { port: FuzzPort; authenticated: () => boolean }[] = [];
export const identities: HostIdentity[] = [generateHostIdentity(seededBytes), generateHostIdentity(seededBytes)];

/**
 * Signed and sealed seeds, made once: Ed25519 and X25519 in plain JavaScript take milliseconds
 * each, and the relay's own checks of what they sign are what the run should spend its time on.
 * Valid tickets expire long after any time the manual clock reaches; expired ones, before it starts.
 */
const TICKETS_PER_HOST = 24;
export const tickets = new Map(
  identities.map((identity) => [
    identity.hostId,
    Array.from({ length: TICKETS_PER_HOST }, (_, i) => {
      const deviceId = generateDeviceId(seededBytes);
      const expired = i % 8 === 0;
      const expiresAt = clock.now() + (expired ? -10 * 60_000 : 100 * 365 * 24 * 3_600_000);
      const ticket = signRelayTicket({ deviceId, expiresAt }, identity.sign);
      const request = encodeConnectRequest(identity.sign.publicKey, ticket);
      if (!request.ok) throw new Error(request.error.message);
      return { identity, deviceId, expired, ticket, request: request.value };
    }),
  ]),
);
export const strangerHostIds = Array.from({ length: 4 }, () => generateHostIdentity(seededBytes).hostId);
/** Well-formed one-shot calls that open nowhere: what a stranger who knows a host id can send. */
export const callBodies = Array.from(
  { length: 16 },
  () =>
    sealCall(
      {
        deviceId: generateDeviceId(seededBytes),
        deviceKeys: generateBoxKeyPair(seededBytes),
        hostBoxPublicKey: generateBoxKeyPair(seededBytes).publicKey,
        clock,
        random: seededBytes,
      },
      Uint8Array.of(1, 2, 3),
    ).message,
);
/** A well-formed pair request no host can open. */
export const pairBody = () =>
  utf8Encode(
    JSON.stringify({
      v: PROTOCOL_VERSION,
      pairingId: toBase64Url(seededBytes(16)),
      nonce: toBase64Url(seededBytes(24)),
      box: toBase64Url(seededBytes(48)),
    }),
  );

export function newPort(source = pick(SOURCES)): FuzzPort {
  const port = new FuzzPort(source, (what) => failure(what));
  ports.add(port);
  return port;
}

/** A closed port's reason must be one the relay names, unless it passes on what the host said. */
export function checkReason(port: FuzzPort, passedOn?: { code: number; reason: string }): void {
  const closed = port.closedWith;
  if (!closed) return;
  if (passedOn && closed.code === passedOn.code && closed.reason === passedOn.reason) return;
  if (!NAMED_REASONS.has(closed.reason)) failure(`closed with an unnamed reason: ${closed.code} ${closed.reason}`);
}
