import type {
  Clock,
  DeviceInfo,
  HostIdentity,
  PairCommit,
  PairReplyBody,
  PairReveal,
  RandomBytes,
  RelayDetails,
  Result,
  Scope,
} from '@tether/shared-protocol';
import {
  AddressLimiter,
  MAX_SHOWN_LABEL,
  NO_SUCH_PAIRING,
  PAIRING_LINK_TTL_MS,
  PAIR_ANSWER_WAIT_MS,
  confirmationCode,
  constantTimeEqual,
  decodePairRequestBody,
  fail,
  fingerprint,
  formatPairingLink,
  generateDeviceId,
  ok,
  openPairMessage,
  pairingCommitment,
  sealPairChallenge,
  sealPairReply,
  sharedSecret,
  toBase64Url,
  visibleText,
} from '@tether/shared-protocol';
import type { DeviceStore } from '../store/device-store.js';
import { PairCommits } from './pair-commits.js';
import type { PairChannel, PairRequestInfo } from './pair-request.js';
import { defaultScopes } from './pair-request.js';

export type { PairChannel, PairRequestInfo } from './pair-request.js';

/** Pairing tries per source address per minute; each shows a request (and a code) at the computer. */
export const PAIR_ATTEMPTS_PER_MINUTE = 10;
/** Posts a try takes: the commit, then the reveal. The limiter counts posts. */
const POSTS_PER_ATTEMPT = 2;
/** Requests whose box does not open with the current link before the link is replaced. */
export const FAILED_OPENS_BEFORE_ROTATION = 20;
/** Paired (not revoked) devices at most. */
export const MAX_DEVICES = 16;
/** Pair requests waiting for an answer at once. */
export const MAX_PENDING_PAIR_REQUESTS = 8;

interface Link {
  id: Uint8Array;
  key: Uint8Array;
  expiresAt: number;
}

interface Pending {
  info: PairRequestInfo;
  devicePublicKey: Uint8Array;
  link: Link;
  settle: (result: Result<PairReplyBody>) => void;
}

export interface PairingServiceDeps {
  identity: HostIdentity;
  devices: DeviceStore;
  clock: Clock;
  random: RandomBytes;
  newId: (prefix: string) => string;
  hostName: string;
  /** Relay details for the reply, when the host is linked to a relay. */
  relay?: (deviceId: string) => RelayDetails | undefined;
  /** A request waits for the person: show it at the computer. */
  onRequest: (request: PairRequestInfo) => void;
  /** A request was answered or gave up: take it off the screen. */
  onSettled?: (id: string) => void;
  onWarning: (text: string) => void;
  answerWaitMs?: number;
  /** Pair tries per source address per minute (the fuzzer raises it to reach the decoders). */
  attemptsPerMinute?: number;
}

/**
 * Pairing links and pair requests (docs/protocol.md, "Pairing"). A link is single use and lives
 * 10 minutes. A try is a commit, answered at once with the host's nonce, then a reveal, held open
 * until the person allows or denies it at the computer (never from a device) or ~50 s pass.
 *
 * One key per link: a reveal of a second device key while another is waiting means the link has
 * leaked, so everything on it is cancelled, the link replaced, and the person warned. Tries are
 * rate-limited per source address; repeated boxes that do not open replace the link.
 */
export class PairingService {
  private link: Link | undefined;
  private failedOpens = 0;
  private readonly commits: PairCommits<Link>;
  private readonly pending = new Map<string, Pending>();
  private readonly limiter: AddressLimiter;

  constructor(private readonly deps: PairingServiceDeps) {
    this.commits = new PairCommits(deps.clock, deps.random);
    // A minute's tries at once, then they come back at that rate.
    const posts = (deps.attemptsPerMinute ?? PAIR_ATTEMPTS_PER_MINUTE) * POSTS_PER_ATTEMPT;
    this.limiter = new AddressLimiter(deps.clock, { burst: posts, perSecond: posts / 60 });
  }

  /** The current link for an app served at `base` (a new one if none is valid). */
  currentLink(base: string): { link: string; expiresAt: number } {
    const link = this.valid() ?? this.mint();
    return {
      link: formatPairingLink({
        base,
        hostBoxPublicKey: this.deps.identity.box.publicKey,
        pairingId: link.id,
        pairingKey: link.key,
      }),
      expiresAt: link.expiresAt,
    };
  }

  /** Replaces the link: the old one stops working at once, with its commits. */
  mint(): Link {
    this.link = {
      id: this.deps.random(16),
      key: this.deps.random(32),
      expiresAt: this.deps.clock.now() + PAIRING_LINK_TTL_MS,
    };
    this.failedOpens = 0;
    this.commits.clear();
    return this.link;
  }

  requests(): PairRequestInfo[] {
    return [...this.pending.values()].map((p) => p.info);
  }

  /**
   * Handles `POST /rc/pair`: a commit is answered at once with a challenge; a reveal resolves when
   * the person answers, or with the reason it failed.
   */
  pair(body: unknown, source: string, signal: AbortSignal, channel: PairChannel): Promise<Result<PairReplyBody>> {
    const decoded = decodePairRequestBody(body);
    if (!decoded.ok) return Promise.resolve(decoded);
    const link = this.valid();
    // The answer a relay gives for a host it does not have, word for word (relay-answers): through
    // a relay, a stranger who knows this host's id must not learn that it is there. So before the
    // rate limit, which would answer otherwise once several relay nodes let more tries through
    // than the host allows; a try without the link guesses nothing, so it need not be counted.
    if (!link || !constantTimeEqual(link.id, decoded.value.pairingId)) {
      return Promise.resolve({ ok: false, error: NO_SUCH_PAIRING.error });
    }
    if (!this.limiter.allow(source))
      return Promise.resolve(fail('rate-limited', 'too many pairing attempts; wait a minute'));
    const opened = openPairMessage(decoded.value, link.key);
    if (!opened.ok) {
      if (opened.error.code === 'pair-failed' && ++this.failedOpens >= FAILED_OPENS_BEFORE_ROTATION) {
        this.mint();
        this.deps.onWarning(
          `${FAILED_OPENS_BEFORE_ROTATION} pair requests failed to open: the pairing link was replaced. Someone may be guessing; show a new link with: tether pair`,
        );
      }
      return Promise.resolve(opened);
    }
    return opened.value.type === 'pair-commit'
      ? Promise.resolve(this.commit(opened.value, link))
      : this.reveal(opened.value, link, signal, channel);
  }

  /** Step 1: remember the commitment and answer with a fresh nonce and an id for the attempt. */
  private commit(commit: PairCommit, link: Link): Result<PairReplyBody> {
    const challenge = this.commits.add(commit.commitment, link);
    return challenge.ok ? ok(sealPairChallenge(challenge.value, link.key, this.deps.random)) : challenge;
  }

  /** Step 2: check the reveal against its commitment, then show the request at the computer. */
  private reveal(
    reveal: PairReveal,
    link: Link,
    signal: AbortSignal,
    channel: PairChannel,
  ): Promise<Result<PairReplyBody>> {
    const commit = this.commits.take(reveal.requestId);
    if (!commit || commit.link !== link) {
      return Promise.resolve(
        fail('pair-failed', 'no pairing attempt with that id is waiting (it expired or was used); start again'),
      );
    }
    const devicePublicKey = reveal.devicePublicKey;
    if (!constantTimeEqual(pairingCommitment(devicePublicKey, reveal.deviceNonce), commit.commitment)) {
      return Promise.resolve(fail('pair-failed', 'the reveal does not match its commitment'));
    }
    if (!sharedSecret(this.deps.identity.box.secretKey, devicePublicKey) || this.deps.devices.hasKey(devicePublicKey)) {
      return Promise.resolve(fail('pair-malformed', 'the device key is not acceptable'));
    }
    const onLink = [...this.pending.values()].filter((p) => p.link === link);
    if (onLink.some((p) => !constantTimeEqual(p.devicePublicKey, devicePublicKey))) {
      this.leaked(link);
      return Promise.resolve(
        fail('pair-expired', 'another device answered this pairing link too, so it was replaced; scan the new one'),
      );
    }
    // The same key again: the phone retried. Its newer attempt (new nonces, new code) replaces the old.
    for (const earlier of onLink)
      earlier.settle(fail('conflict', 'a newer attempt from this device replaced this one'));
    if (this.deps.devices.activeCount() >= MAX_DEVICES) {
      return Promise.resolve(
        fail('pair-limit', `already ${MAX_DEVICES} devices are paired; revoke one first (tether devices revoke ID)`),
      );
    }
    if (this.pending.size >= MAX_PENDING_PAIR_REQUESTS)
      return Promise.resolve(fail('busy', 'too many pair requests are waiting'));

    return new Promise((resolve) => {
      const id = this.deps.newId('p');
      const info: PairRequestInfo = {
        id,
        label: visibleText(reveal.label, { maxLength: MAX_SHOWN_LABEL }),
        code: confirmationCode({
          hostBoxPublicKey: this.deps.identity.box.publicKey,
          devicePublicKey,
          pairingKey: link.key,
          deviceNonce: reveal.deviceNonce,
          hostNonce: commit.hostNonce,
        }),
        fingerprint: fingerprint(devicePublicKey),
        createdAt: this.deps.clock.now(),
        secure: channel.secure,
        page: channel.page,
        scopes: [...defaultScopes(channel)],
      };
      const timer = this.deps.clock.setTimeout(
        () => settle(fail('pair-timeout', 'nobody answered at the computer in time; try again')),
        this.deps.answerWaitMs ?? PAIR_ANSWER_WAIT_MS,
      );
      const onAbort = () => settle(fail('pair-timeout', 'the phone stopped waiting'));
      const settle = (result: Result<PairReplyBody>) => {
        if (!this.pending.delete(id)) return;
        this.deps.clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.deps.onSettled?.(id);
        resolve(result);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { info, devicePublicKey, link, settle });
      this.deps.onRequest(info);
    });
  }

  /**
   * Allows a waiting request (at the computer only): the device is paired and the link spent.
   * Without `scopes`, the device gets the request's default (`defaultScopes`: less over plain HTTP
   * or from a page this host did not serve).
   */
  allow(id: string, scopes?: readonly Scope[]): Result<DeviceInfo> {
    const request = this.pending.get(id);
    if (!request) return fail('not-found', `no pair request ${id} is waiting`);
    if (this.link !== request.link || this.deps.clock.now() > request.link.expiresAt) {
      request.settle(fail('pair-expired', 'the pairing link was used or replaced meanwhile; scan the new one'));
      return fail('pair-expired', 'the link of that request was already used or replaced');
    }
    if (this.deps.devices.activeCount() >= MAX_DEVICES) {
      request.settle(fail('pair-limit', 'too many devices'));
      return fail('pair-limit', `already ${MAX_DEVICES} devices are paired`);
    }
    const granted = scopes ?? request.info.scopes;
    const device = this.deps.devices.insert({
      id: generateDeviceId(this.deps.random),
      publicKey: request.devicePublicKey,
      label: request.info.label,
      scopes: granted,
      createdAt: this.deps.clock.now(),
    });
    this.mint();
    const relay = this.deps.relay?.(device.id);
    request.settle(
      ok(
        sealPairReply(
          {
            deviceId: device.id,
            hostId: this.deps.identity.hostId,
            hostName: this.deps.hostName,
            hostBoxPublicKey: toBase64Url(this.deps.identity.box.publicKey),
            hostSignPublicKey: toBase64Url(this.deps.identity.sign.publicKey),
            scopes: [...granted],
            ...(relay ? { relay } : {}),
          },
          request.link.key,
          this.deps.random,
        ),
      ),
    );
    const { publicKey: _key, ...info } = device;
    return ok(info);
  }

  deny(id: string): Result<Record<string, never>> {
    const request = this.pending.get(id);
    if (!request) return fail('not-found', `no pair request ${id} is waiting`);
    request.settle(fail('pair-denied', 'the pairing was denied at the computer'));
    return ok({});
  }

  /** Ends every waiting request (the host is stopping). */
  close(): void {
    this.commits.clear();
    for (const request of [...this.pending.values()]) request.settle(fail('unavailable', 'the host is stopping'));
  }

  /** Two device keys answered one link: someone else has it. Nothing on it may be allowed. */
  private leaked(link: Link): void {
    for (const request of [...this.pending.values()]) {
      if (request.link === link) {
        request.settle(fail('pair-expired', 'another device answered this pairing link too; scan a new one'));
      }
    }
    if (this.link === link) this.mint();
    else this.commits.dropLink(link);
    this.deps.onWarning(
      'Two different devices answered the same pairing link: someone else has it (seen over a shoulder, in a screenshot or on a shared screen?). Every request under it was cancelled and the link replaced. Show a new one with: tether pair',
    );
  }

  private valid(): Link | undefined {
    return this.link && this.deps.clock.now() <= this.link.expiresAt ? this.link : undefined;
  }
}
