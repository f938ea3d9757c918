import type { Clock, RandomBytes, Result } from '@tether/shared-protocol';
import { PAIRING_NONCE_BYTES, PAIR_REQUEST_ID_BYTES, fail, ok, toBase64Url } from '@tether/shared-protocol';

/** Commits waiting for their reveal at once; more are refused as `busy`. A phone reveals within a
 * round trip of the challenge, so a handful at most are ever waiting honestly. */
export const MAX_PENDING_COMMITS = 32;
/** Milliseconds a commit waits for its reveal: one round trip on a slow mobile network, with a
 * wide margin; far under the 10-minute link lifetime. */
export const PAIR_COMMIT_TTL_MS = 30_000;

export interface Commit<Link> {
  commitment: Uint8Array;
  /** The host's nonce sent in the challenge. */
  hostNonce: Uint8Array;
  /** The link the commit came under. */
  link: Link;
  expiresAt: number;
}

/**
 * Pairing commits waiting for their reveal (docs/protocol.md, "Pairing"), by the request id the
 * challenge gave them. Bounded and expiring; each is taken by one reveal, matching or not.
 */
export class PairCommits<Link> {
  private readonly commits = new Map<string, Commit<Link>>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly random: RandomBytes,
  ) {}

  /** Keeps a commitment; gives the id and the fresh host nonce for its challenge. */
  add(commitment: Uint8Array, link: Link): Result<{ requestId: string; hostNonce: Uint8Array }> {
    this.forgetExpired();
    if (this.commits.size >= MAX_PENDING_COMMITS) {
      return fail('busy', 'too many pairing attempts are under way; try again in a minute');
    }
    const requestId = toBase64Url(this.random(PAIR_REQUEST_ID_BYTES));
    const hostNonce = this.random(PAIRING_NONCE_BYTES);
    this.commits.set(requestId, { commitment, hostNonce, link, expiresAt: this.clock.now() + PAIR_COMMIT_TTL_MS });
    return ok({ requestId, hostNonce });
  }

  /** Takes the commit a reveal names: gone afterwards, so a wrong guess cannot be followed by another. */
  take(requestId: string): Commit<Link> | undefined {
    this.forgetExpired();
    const commit = this.commits.get(requestId);
    this.commits.delete(requestId);
    return commit;
  }

  /** Forgets every commit made under `link` (replaced, or leaked). */
  dropLink(link: Link): void {
    for (const [id, commit] of this.commits) if (commit.link === link) this.commits.delete(id);
  }

  clear(): void {
    this.commits.clear();
  }

  private forgetExpired(): void {
    const now = this.clock.now();
    for (const [id, commit] of this.commits) if (now > commit.expiresAt) this.commits.delete(id);
  }
}
