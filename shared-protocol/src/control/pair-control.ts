import * as v from 'valibot';
import { Id, Name, Timestamp } from '../rpc/common.js';
import { ScopeSchema } from '../scopes.js';

/** Pairing from the computer (`tether pair`): the link, the requests waiting, and the answer. */

export const PairLinkResult = v.object({
  link: v.pipe(v.string(), v.maxLength(2048)),
  expiresAt: Timestamp,
  /** The same pairing on the relay's origin, for a host with a relay: the app loaded from there
   * pairs and reaches the host through it, from any network. */
  relay: v.optional(
    v.object({ url: v.pipe(v.string(), v.maxLength(2048)), link: v.pipe(v.string(), v.maxLength(2048)) }),
  ),
});

/** An origin as a page's `Origin` header or a relay's URL gives it (`https://relay.example.com:8443`). */
const PageOrigin = v.pipe(v.string(), v.maxLength(300));

/**
 * Where the app that sent a pair request was loaded from, as far as the host can know, and how it
 * knows. Whoever serves the app decides what it does on the phone, so this decides what a device
 * may do when allowed without choosing (docs/security.md, "Who is trusted with what").
 * - `host`: sent straight to the host by a page whose `Origin` (set by the browser) is the host's own.
 * - `other`: sent straight to the host by a page of another origin the host lets call it.
 * - `relay`: came through the relay the host is linked to, at `origin` (its URL as the host was given
 *   it). A browser posts a pair request to a relay only from the relay's own pages (the relay answers
 *   no cross-origin pair request). `app`: the relay said it serves the app, so the app was its page,
 *   or a program holding the pairing link sent the request; without it (a `--no-app` relay, or one
 *   that does not say), no page of that relay sent it: a program holding the link did.
 * - `none`: sent straight to the host with no `Origin`: a program holding the link, not a web page.
 */
export const PairPageSchema = v.variant('from', [
  v.object({ from: v.literal('host'), origin: PageOrigin }),
  v.object({ from: v.literal('other'), origin: PageOrigin }),
  v.object({ from: v.literal('relay'), origin: PageOrigin, app: v.optional(v.boolean()) }),
  v.object({ from: v.literal('none') }),
]);
export type PairPage = v.InferOutput<typeof PairPageSchema>;

export const PairRequestSchema = v.object({
  id: Id,
  label: Name,
  code: v.pipe(v.string(), v.length(6)),
  fingerprint: Name,
  createdAt: Timestamp,
  /** Whether it came over a secure channel (TLS or loopback); over plain HTTP it gets fewer scopes. */
  secure: v.optional(v.boolean()),
  /** What the device may do when allowed without --scopes. */
  scopes: v.optional(v.array(ScopeSchema)),
  /** Where the phone loaded the app from. */
  page: v.optional(PairPageSchema),
});

export const PairAllowParams = v.object({ id: Id, scopes: v.optional(v.array(ScopeSchema)) });
