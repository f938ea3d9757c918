import type { Clock, RandomBytes, Result, ShareExpiry, ShareLinkInfo, TimerHandle } from '@tether/shared-protocol';
import {
  DEFAULT_SHARE_EXPIRY,
  DEVICE_ID_BYTES,
  KEY_BYTES,
  MAX_SHARE_LINKS_PER_SESSION,
  MAX_SHOWN_LABEL,
  SHARE_EXPIRY_MS,
  fail,
  ok,
  toBase64Url,
  viewScope,
  viewerKeyPair,
  visibleText,
} from '@tether/shared-protocol';
import type { ShareLinkRecord, ShareStore } from '../store/share-store.js';
import { linkWorks } from '../store/share-store.js';

/** Milliseconds a link is kept after it ended (expired or revoked), for `tether share --list`. */
export const ENDED_LINKS_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
/** Longest wait (ms) between two looks for links that ended: timers this long are exact in Node,
 * and a clock that jumps is caught within it. */
const MAX_EXPIRY_WAIT_MS = 60 * 60 * 1000;

/** Why a link stopped working. */
export type LinkEnd = 'revoked' | 'expired';

export interface ShareLinksDeps {
  store: ShareStore;
  sessionExists: (sessionId: string) => boolean;
  /** True when a paired device already has this id (a link's id is a device id on the wire). */
  deviceIdTaken: (id: string) => boolean;
  clock: Clock;
  random: RandomBytes;
}

export interface NewShareLink {
  sessionId: string;
  expires?: ShareExpiry | undefined;
  name?: string | undefined;
  includePhotos?: boolean | undefined;
  /** `this computer`, or the label of the device that asked. */
  createdBy: string;
}

/**
 * The host's share links: making one (a fresh secret, of which only the derived public key is
 * kept), listing, revoking, and noticing the moment one expires. Whoever holds the gateway's
 * viewer connections listens with `onEnded` and cuts them off; a link that ended never opens a
 * connection again (the gateway asks `lookup` at every handshake).
 */
export class ShareLinks {
  private readonly listeners = new Set<(id: string, why: LinkEnd) => void>();
  private timer: TimerHandle | undefined;
  /** Expiries up to this time have been told. */
  private toldUntil: number;
  private closed = false;

  constructor(private readonly deps: ShareLinksDeps) {
    this.toldUntil = deps.clock.now();
    deps.store.prune(this.toldUntil - ENDED_LINKS_KEPT_MS);
    this.schedule();
  }

  /** A new link: its record, and the secret that goes into its URL (and nowhere else). */
  create(request: NewShareLink): Result<{ record: ShareLinkRecord; secret: Uint8Array }> {
    const now = this.deps.clock.now();
    if (!this.deps.sessionExists(request.sessionId)) return fail('not-found', `no session ${request.sessionId}`);
    if (this.deps.store.workingCount(request.sessionId, now) >= MAX_SHARE_LINKS_PER_SESSION) {
      return fail(
        'busy',
        `a session has at most ${MAX_SHARE_LINKS_PER_SESSION} working links: revoke one first (tether share --list)`,
      );
    }
    let id: string;
    do id = toBase64Url(this.deps.random(DEVICE_ID_BYTES));
    while (this.deps.deviceIdTaken(id) || this.deps.store.get(id));
    const secret = this.deps.random(KEY_BYTES);
    const record = this.deps.store.insert({
      id,
      sessionId: request.sessionId,
      publicKey: viewerKeyPair(secret).publicKey,
      name: visibleText(request.name?.trim() ?? '', { maxLength: MAX_SHOWN_LABEL }),
      includePhotos: request.includePhotos ?? false,
      createdBy: request.createdBy,
      createdAt: now,
      expiresAt: now + SHARE_EXPIRY_MS[request.expires ?? DEFAULT_SHARE_EXPIRY],
    });
    this.schedule();
    return ok({ record, secret });
  }

  /** The link a handshake names, whatever its state (the gateway says why it no longer works). */
  lookup(id: string): ShareLinkRecord | undefined {
    return this.deps.store.get(id);
  }

  list(sessionId?: string): ShareLinkRecord[] {
    return this.deps.store.list(sessionId);
  }

  /** Ends a link for good and tells the listeners (its viewers are cut off). Revoking twice is fine. */
  revoke(id: string): Result<ShareLinkRecord> {
    const link = this.deps.store.get(id);
    if (!link) return fail('not-found', `no share link ${id}`);
    if (this.deps.store.revoke(id, this.deps.clock.now())) this.tell(id, 'revoked');
    return ok(this.deps.store.get(id)!);
  }

  touch(id: string, at: number): void {
    this.deps.store.touch(id, at);
  }

  /** Called with each link that stops working, the moment it does. */
  onEnded(listener: (id: string, why: LinkEnd) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** As `share.list` shows a link, with the viewers connected through it now. */
  info(link: ShareLinkRecord, viewers: number): ShareLinkInfo {
    const now = this.deps.clock.now();
    return {
      id: link.id,
      sessionId: link.sessionId,
      scope: viewScope(link.sessionId),
      name: link.name,
      includePhotos: link.includePhotos,
      createdBy: link.createdBy,
      createdAt: link.createdAt,
      expiresAt: link.expiresAt,
      revokedAt: link.revokedAt,
      lastSeenAt: link.lastSeenAt,
      viewers,
      state: link.revokedAt !== null ? 'revoked' : linkWorks(link, now) ? 'active' : 'expired',
    };
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Waits for the next end of a working link, then tells it (and any others due by then). */
  private schedule(): void {
    if (this.closed) return;
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.deps.clock.now();
    const next = this.deps.store.nextExpiry(this.toldUntil);
    if (next === undefined) return;
    this.timer = this.deps.clock.setTimeout(
      () => {
        this.timer = undefined;
        const at = this.deps.clock.now();
        const ended = this.deps.store.expiredBetween(this.toldUntil, at);
        this.toldUntil = at;
        for (const id of ended) this.tell(id, 'expired');
        this.schedule();
      },
      Math.min(Math.max(0, next - now), MAX_EXPIRY_WAIT_MS),
    );
  }

  private tell(id: string, why: LinkEnd): void {
    for (const listener of this.listeners) listener(id, why);
  }
}
