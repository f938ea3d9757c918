import { ERROR_CODES } from '@tether/shared-protocol';
import { Counters, prefixed } from './counters.js';

/**
 * What the host's network side turned away or closed, and why: device connections and their
 * frames, one-shot calls, the HTTP app, the listener's sockets, machine links and the relay link.
 * Shown by `tether status` as the remote counters.
 */

/** Messages a device may not send to the host (they flow the other way). */
const UNEXPECTED_MESSAGES = ['pong', 'res', 'evt', 'bye'] as const;
/** Requests the HTTP app refuses before any route runs. */
const HTTP_REFUSALS = ['bad-host', 'bad-origin', 'too-large', 'bad-content-type', 'bad-json', 'not-found'] as const;
/** WebSocket upgrades the listener refuses. */
const WS_REFUSALS = [
  'not-found',
  'bad-host',
  'bad-origin',
  'too-many-connections',
  'machine-from-browser',
  'too-many-machine-links',
  'dead',
  'text-message',
  'error',
] as const;

/** Names made from an error code (`request:busy`, `call:malformed`) are listed once, through the codes. */
export const HOST_COUNTER_NAMES = [
  'message:undecodable',
  ...prefixed('message:unexpected-', UNEXPECTED_MESSAGES),
  'handshake-timeout',
  'handshake:accepted',
  ...prefixed('handshake:', ERROR_CODES),
  ...prefixed('frame:', ERROR_CODES),
  ...prefixed('request:', ERROR_CODES),
  'send:too-large',
  'closed:slow-consumer',
  'connection:handshake-pool-full',
  'connection:too-many',
  'connection:too-many-handshaking',
  'connection:too-many-established',
  'call:not-recorded',
  'call:method-not-one-shot',
  'call:decision-not-one-shot',
  'call:approve-needs-the-app',
  ...prefixed('call:', ERROR_CODES),
  'pair:answered',
  'pair:allowed',
  ...prefixed('pair:', ERROR_CODES),
  ...prefixed('http:', HTTP_REFUSALS),
  'socket:too-many-from-address',
  'socket:idle',
  ...prefixed('ws:', WS_REFUSALS),
  'machine:too-many-handshaking',
  'machine:handshake-pool-full',
  'machine:register-invalid',
  'machine:registered',
  'machine:request-refused',
  ...prefixed('machine:register-', ERROR_CODES),
  ...prefixed('machine:', ERROR_CODES),
  'relay:open',
  'relay:dead',
  'relay:drain',
  'relay:ready-timeout',
  'relay:frame-too-large',
  'relay:frame-malformed',
  'relay:unknown-frame',
  'relay:unexpected-frame',
  'relay:requests-full',
  'relay:conn-queue-full',
  'relay:link-queue-full',
  'relay:pair:bad-json',
  ...prefixed('relay:encode-', ERROR_CODES),
  // Share links' viewers: let in, turned away (the link ended, a bound was full), cut off behind.
  'viewer:accepted',
  'viewer:revoked',
  'viewer:expired',
  'viewer:too-many',
  'viewer:behind',
] as const;
export type HostCounterName = (typeof HOST_COUNTER_NAMES)[number];
export type HttpRefusal = (typeof HTTP_REFUSALS)[number];
export type WsRefusal = (typeof WS_REFUSALS)[number];

/** The host's network counters, every one at zero. */
export class HostCounters extends Counters<HostCounterName> {
  constructor() {
    super(HOST_COUNTER_NAMES);
  }
}
