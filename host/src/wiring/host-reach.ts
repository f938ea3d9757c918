import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { PairingService } from '../gateway/pairing-service.js';
import type { HostRelay } from '../relay/host-relay.js';
import type { LanListener } from '../remote/lan-listener.js';
import type { Reach } from '../rpc/control-handlers.js';
import type { SharePlace } from '../share/share-handlers.js';

/**
 * Whether and where phones reach a host: its relay (known when it is built), its LAN or
 * Tailscale listener (once started), and why, in words for the person.
 */
export class HostReach {
  /** The LAN or Tailscale listener, when phones can reach this host directly. */
  listener: LanListener | undefined;
  /** Why phones can or cannot reach this host, in words for the person. */
  message = 'remote control is off';

  constructor(
    private readonly pairing: Pick<PairingService, 'currentLink'>,
    readonly relay: HostRelay | undefined,
    /** The host's signing key, which a share link's viewer shows the relay with its ticket. */
    private readonly hostSignPublicKey: Uint8Array,
  ) {}

  /** Where a new share link sends its viewer: the host's own page, and the relay now in use. */
  sharePlace(): SharePlace {
    const relay = this.relay;
    return {
      direct: this.listener?.url,
      relay: relay && {
        url: relay.url,
        hostSignPublicKey: this.hostSignPublicKey,
        ticket: (linkId, expiresAt) => relay.tickets.until(linkId, expiresAt),
      },
    };
  }

  reach(): Reach {
    return {
      listening: this.listener !== undefined,
      url: this.listener?.url ?? null,
      mode: this.listener?.mode ?? null,
      message: this.message,
      ...(this.relay ? { relay: this.relay.status() } : {}),
    };
  }

  /** The current pairing link, on the origin phones load the app from. */
  pairLink(): Result<{ link: string; expiresAt: number; relay?: { url: string; link: string } }> {
    const relay = this.relay && this.relay.pairLink((base) => this.pairing.currentLink(base));
    const withRelay = relay && { relay: { url: this.relay.url, link: relay.link } };
    if (this.listener) {
      const direct = this.pairing.currentLink(this.listener.url);
      return ok({
        link: this.relay ? this.relay.withHint(direct.link) : direct.link,
        expiresAt: direct.expiresAt,
        ...withRelay,
      });
    }
    if (relay) return ok({ ...relay, ...withRelay });
    return fail('unavailable', `no phone can reach this host: ${this.message}`);
  }
}
