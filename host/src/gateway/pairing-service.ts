import type {
  Clock,
  DeviceInfo,
  HostIdentity,
  PairReplyBody,
  RandomBytes,
  RelayDetails,
  Result,
  Scope,
} from '@tether/shared-protocol';
import {
  DEFAULT_DEVICE_SCOPES,
  MAX_SHOWN_LABEL,
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
  openPairRequest,
  sealPairReply,
  sharedSecret,
  toBase64Url,
  visibleText,
} from '@tether/shared-protocol';
import type { DeviceStore } from '../store/device-store.js';
import { RateLimiter } from './rate-limiter.js';

/** Pair attempts per source address per minute. */
export const PAIR_ATTEMPTS_PER_MINUTE = 10;
/** Requests whose box does not open with the current link before the link is replaced. */
export const FAILED_OPENS_BEFORE_ROTATION = 20;
/** Paired (not revoked) devices at most. */
export const MAX_DEVICES = 16;
/** Pair requests waiting for an answer at once. */
export const MAX_PENDING_PAIR_REQUESTS = 8;

export interface PairRequestInfo {
  id: string;
  label: string;
  /** The 6-digit confirmation code the phone shows too. */
  code: string;
  /** Of the device's public key. */
  fingerprint: string;
  createdAt: number;
}

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
  /** Pair attempts per source address per minute (the fuzzer raises it to reach the decoders). */
  attemptsPerMinute?: number;
}

/**
 * Pairing links and pair requests. A link is single use and lives 10 minutes; a request is held
 * open until the person allows or denies it at the computer (never from a device), or ~50 s pass.
 * Attempts are rate-limited per source address; repeated boxes that do not open replace the link.
 */
export class PairingService {
  private link: Link | undefined;
  private failedOpens = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly limiter: RateLimiter;

  constructor(private readonly deps: PairingServiceDeps) {
    this.limiter = new RateLimiter(deps.clock, deps.attemptsPerMinute ?? PAIR_ATTEMPTS_PER_MINUTE, 60_000);
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

  /** Replaces the link: the old one stops working at once. */
  mint(): Link {
    this.link = {
      id: this.deps.random(16),
      key: this.deps.random(32),
      expiresAt: this.deps.clock.now() + PAIRING_LINK_TTL_MS,
    };
    this.failedOpens = 0;
    return this.link;
  }

  requests(): PairRequestInfo[] {
    return [...this.pending.values()].map((p) => p.info);
  }

  /** Handles `POST /rc/pair`: resolves when the person answers, or with the reason it failed. */
  pair(body: unknown, source: string, signal: AbortSignal): Promise<Result<PairReplyBody>> {
    if (!this.limiter.allow(source))
      return Promise.resolve(fail('rate-limited', 'too many pairing attempts; wait a minute'));
    const decoded = decodePairRequestBody(body);
    if (!decoded.ok) return Promise.resolve(decoded);
    const link = this.valid();
    if (!link || !constantTimeEqual(link.id, decoded.value.pairingId)) {
      return Promise.resolve(
        fail('pair-expired', 'this pairing link is no longer valid; show a new one with: tether pair'),
      );
    }
    const opened = openPairRequest(decoded.value, link.key);
    if (!opened.ok) {
      if (opened.error.code === 'pair-failed' && ++this.failedOpens >= FAILED_OPENS_BEFORE_ROTATION) {
        this.mint();
        this.deps.onWarning(
          `${FAILED_OPENS_BEFORE_ROTATION} pair requests failed to open: the pairing link was replaced. Someone may be guessing; show a new link with: tether pair`,
        );
      }
      return Promise.resolve(opened);
    }
    const devicePublicKey = opened.value.devicePublicKey;
    if (!sharedSecret(this.deps.identity.box.secretKey, devicePublicKey) || this.deps.devices.hasKey(devicePublicKey)) {
      return Promise.resolve(fail('pair-malformed', 'the device key is not acceptable'));
    }
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
        label: visibleText(opened.value.label, { maxLength: MAX_SHOWN_LABEL }),
        code: confirmationCode(this.deps.identity.box.publicKey, devicePublicKey, link.key),
        fingerprint: fingerprint(devicePublicKey),
        createdAt: this.deps.clock.now(),
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

  /** Allows a waiting request (at the computer only): the device is paired and the link spent. */
  allow(id: string, scopes: readonly Scope[] = DEFAULT_DEVICE_SCOPES): Result<DeviceInfo> {
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
    const device = this.deps.devices.insert({
      id: generateDeviceId(this.deps.random),
      publicKey: request.devicePublicKey,
      label: request.info.label,
      scopes,
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
            scopes: [...scopes],
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
    for (const request of [...this.pending.values()]) request.settle(fail('unavailable', 'the host is stopping'));
  }

  private valid(): Link | undefined {
    return this.link && this.deps.clock.now() <= this.link.expiresAt ? this.link : undefined;
  }
}
