import type { Methods } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { Caller } from '../rpc/caller.js';
import type { Handlers } from '../rpc/dispatch.js';
import type { HostRelay } from './host-relay.js';
import type { RelayTickets } from './relay-tickets.js';

/**
 * `relay.ticket`: a fresh ticket for the calling device, and only for it (the ticket names the
 * caller's own id). A host without a relay answers `unsupported`, which the app takes as "no relay
 * path here" rather than as a failure.
 */
export function relayHandlers(
  tickets: () => RelayTickets | undefined,
  relay: () => HostRelay | undefined,
): Partial<Handlers<Methods, Caller>> {
  return {
    /** Each relay's state and why, for the host's row in the app: what `tether status` shows. */
    'relay.status': () => {
      const link = relay();
      return link ? ok({ relays: link.standings() }) : fail('unsupported', 'this host is not reached through a relay');
    },
    'relay.ticket': (_params, caller) => {
      const issuer = tickets();
      return issuer
        ? ok(issuer.issue(caller.device.id))
        : fail('unsupported', 'this host is not reached through a relay');
    },
  };
}
