import type {
  BackoffOptions,
  Clock,
  HostIdentity,
  ProtocolError,
  RandomBytes,
  ReconnectState,
  Result,
} from '@tether/shared-protocol';
import type { GatewayTransport } from '../gateway/gateway-transport.js';
import type { DialRelay } from './link-socket.js';
import type { LinkProbe } from './relay-probe.js';
import type { RelayEntry } from './relay-roster.js';
import type { RequestGateway } from './relay-requests.js';

export type RelayLinkState =
  | ReconnectState
  | { name: 'linked' }
  /** The host stopped its link (it is shutting down): nothing a relay says ever gets here. */
  | { name: 'stopped'; error: ProtocolError };

/** The device gateway, as a relay link uses it: connections, pair requests and calls. */
export interface LinkGateway extends RequestGateway {
  accept(transport: GatewayTransport): Result<unknown>;
}

export interface RelayLinkOptions {
  /** The relays' public URLs (`https://relay.example.com`), most preferred first: the link is to
   * one at a time, and moves to the next in turn when it drops or a dial fails. */
  urls: readonly string[];
  identity: HostIdentity;
  gateway: LinkGateway;
  clock: Clock;
  random: RandomBytes;
  dial: DialRelay;
  backoff?: BackoffOptions;
  onState?: (state: RelayLinkState) => void;
  /** A relay refused this host and is passed over until `retryAt` (its entry says why). */
  onHeld?: (entry: RelayEntry) => void;
  /** Whether another link for this host is up on the relay at `url` (`probeHostLink`): how a
   * relay's "a newer link took over" is checked when there is no other relay to go to. */
  verify?: (url: string) => Promise<LinkProbe>;
}
