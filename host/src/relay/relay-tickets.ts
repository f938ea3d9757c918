import type { Clock, RelayDetails, RelayTicketInfo, SignKeyPair } from '@tether/shared-protocol';
import { RELAY_TICKET_TTL_MS, encodeRelayTicket, signRelayTicket } from '@tether/shared-protocol';

/**
 * Relay tickets the host signs for its devices: the host id, the device id and an expiry, under the
 * host's Ed25519 key. A ticket names no relay, so one is good at every relay the host keeps. The relay checks them against that key and keeps no device list; revocation
 * stays with the host, which refuses a revoked device's handshake whatever ticket it showed.
 */
export class RelayTickets {
  constructor(
    /** The relays' public URLs, as the device will use them, most preferred first. */
    readonly urls: readonly string[],
    private readonly sign: SignKeyPair,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly ttlMs = RELAY_TICKET_TTL_MS,
  ) {}

  /** A fresh ticket for `deviceId`, valid `ttlMs` from now. */
  issue(deviceId: string): RelayTicketInfo {
    const expiresAt = this.clock.now() + this.ttlMs;
    const ticket = encodeRelayTicket(signRelayTicket({ deviceId, expiresAt }, this.sign));
    return { url: this.urls[0]!, ticket, expiresAt, ...this.list() };
  }

  /** A ticket's bytes for `deviceId` that ends at `expiresAt`: a share link's, which ends with the link. */
  until(deviceId: string, expiresAt: number): Uint8Array {
    return signRelayTicket({ deviceId, expiresAt }, this.sign);
  }

  /** What a pairing reply carries. */
  details(deviceId: string): RelayDetails {
    const { url, ticket } = this.issue(deviceId);
    return { url, ticket, ...this.list() };
  }

  /** The list, when there is more than one relay: a host with one says nothing new to older apps. */
  private list(): { urls?: string[] } {
    return this.urls.length > 1 ? { urls: [...this.urls] } : {};
  }
}
