import * as v from 'valibot';
import { RelayUrlListSchema } from '../relay/relay-list.js';
import { Timestamp } from './common.js';

/**
 * `relay.ticket`: a fresh relay ticket for the calling device, from a host that is reached through
 * a relay. The app calls it over the sealed channel when its ticket nears expiry (or when it has
 * none and the host says it offers `relay`), by either path; the host answers `unsupported` when it
 * has no relay. Idempotent: each call signs a new ticket, and any of them is as good as another.
 */
export const RelayTicketResult = v.object({
  /** The relay's public URL, as the host links to it. */
  url: v.pipe(v.string(), v.maxLength(2048)),
  /** base64url of the signed ticket (see protocol.md, Relay tickets). */
  ticket: v.pipe(v.string(), v.maxLength(4096)),
  /** Milliseconds since the Unix epoch; the same time the ticket carries. */
  expiresAt: Timestamp,
  /** Every relay the host keeps, `url` among them (absent from hosts with one relay). */
  urls: v.optional(RelayUrlListSchema),
});

export type RelayTicketInfo = v.InferOutput<typeof RelayTicketResult>;
