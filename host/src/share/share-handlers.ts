import type { Result, ShareExpiry, ShareLinkInfo } from '@tether/shared-protocol';
import { fail, formatShareLink, fromBase64UrlExact, ok } from '@tether/shared-protocol';
import type { ShareLinks } from './share-links.js';

/** Where a link sends its viewer: the host's own page when it listens, and its relay when it has one. */
export interface SharePlace {
  /** The host's page (its listener's URL). */
  direct?: string | undefined;
  relay?:
    | {
        url: string;
        hostSignPublicKey: Uint8Array;
        /** A relay ticket for the link's id, ending when the link does. */
        ticket: (linkId: string, expiresAt: number) => Uint8Array;
      }
    | undefined;
}

export interface ShareHandlerDeps {
  links: ShareLinks;
  hostBoxPublicKey: Uint8Array;
  place: () => SharePlace;
  /** Viewers connected through a link now. */
  viewers: (linkId: string) => number;
}

interface CreateParams {
  sessionId: string;
  expires?: ShareExpiry | undefined;
  name?: string | undefined;
  includePhotos?: boolean | undefined;
}

/**
 * `share.create`, `share.list` and `share.revoke`, for a device with `chat` and for the control
 * socket alike (`createdBy` names who asked). A link's URL is made once, here, from the secret the
 * host then forgets; a host no phone can reach makes none.
 */
export function shareHandlers<C>(deps: ShareHandlerDeps, createdBy: (caller: C) => string) {
  const info = (id: string) => deps.links.info(deps.links.lookup(id)!, deps.viewers(id));
  return {
    'share.create': (
      params: CreateParams,
      caller: C,
    ): Result<{ link: ShareLinkInfo; url: string; relayUrl?: string }> => {
      const place = deps.place();
      if (!place.direct && !place.relay) {
        return fail('unavailable', 'no one can reach this host: it listens on no address and has no relay');
      }
      const made = deps.links.create({ ...params, createdBy: createdBy(caller) });
      if (!made.ok) return made;
      const { record, secret } = made.value;
      const link = {
        hostBoxPublicKey: deps.hostBoxPublicKey,
        linkId: fromBase64UrlExact(record.id, 16)!,
        secret,
        sessionId: record.sessionId,
      };
      const relay = place.relay && {
        url: place.relay.url,
        hostSignPublicKey: place.relay.hostSignPublicKey,
        ticket: place.relay.ticket(record.id, record.expiresAt),
      };
      const onRelay = relay && formatShareLink({ ...link, base: relay.url, relay });
      return ok({
        link: deps.links.info(record, 0),
        url: place.direct ? formatShareLink({ ...link, base: place.direct, ...(relay ? { relay } : {}) }) : onRelay!,
        ...(place.direct && onRelay ? { relayUrl: onRelay } : {}),
      });
    },
    'share.list': ({ sessionId }: { sessionId?: string | undefined }) =>
      ok({ links: deps.links.list(sessionId).map((link) => info(link.id)) }),
    'share.revoke': ({ id }: { id: string }) => {
      const viewers = deps.viewers(id);
      const revoked = deps.links.revoke(id);
      return revoked.ok ? ok({ closedConnections: viewers }) : revoked;
    },
  };
}
