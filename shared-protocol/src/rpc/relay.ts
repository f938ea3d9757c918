import * as v from 'valibot';
import { MAX_RELAYS, MAX_RELAY_URL, RelayUrlListSchema } from '../relay/relay-list.js';
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

/**
 * Where one of the host's relays stands, as `tether status` and the app show it: `linked` (the
 * host is on it now), `connecting`, `standby` (not in use: the host moves to it when its link
 * drops), `failed` (its last dial or link failed; tried again in turn), `held` (it refused this
 * host: passed over until `retryAt`, then asked again; a relay's refusal is about that relay
 * only). `message` says why, in words for a person.
 */
export const RelayStandingSchema = v.object({
  url: v.pipe(v.string(), v.maxLength(MAX_RELAY_URL)),
  state: v.picklist(['standby', 'connecting', 'linked', 'failed', 'held']),
  message: v.pipe(v.string(), v.maxLength(2000)),
  /** When it reached that state. */
  since: Timestamp,
  /** When a held relay is asked again. */
  retryAt: v.optional(Timestamp),
});

export type RelayStandingInfo = v.InferOutput<typeof RelayStandingSchema>;

/** `relay.status`: each of the host's relays, in the order the host keeps them. */
export const RelayStatusResult = v.object({
  relays: v.pipe(v.array(RelayStandingSchema), v.maxLength(MAX_RELAYS)),
});
