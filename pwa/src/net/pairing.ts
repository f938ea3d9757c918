import type { ErrorCode, PairingLink, ProtocolError, RandomBytes, Result } from '@tether/shared-protocol';
import {
  ProtocolErrorSchema,
  confirmationCode,
  constantTimeEqual,
  fail,
  fromBase64UrlExact,
  generateBoxKeyPair,
  hostIdFromSignKey,
  ok,
  openPairReply,
  PAIR_ANSWER_WAIT_MS,
  sealPairRequest,
  secureRandom,
  toBase64Url,
} from '@tether/shared-protocol';
import * as v from 'valibot';
import type { HostRecord } from '../data/records.js';
import { pairUrl } from '../lib/api-urls.js';

/**
 * Pairing from the phone's side: make this device's key pair for the host, show the code both
 * screens share, send the sealed request and wait (the host holds it open up to PAIR_ANSWER_WAIT_MS
 * for the person's answer at the computer), then open the sealed reply into a host record.
 */

/** The wait for the host's answer: its own hold plus 15 s for the network, so the host answers first. */
const PAIR_REQUEST_TIMEOUT_MS = PAIR_ANSWER_WAIT_MS + 15_000;

export interface PairingDeps {
  apiBase: string;
  /** Where to post the request, when not `<apiBase>/rc/pair` (a relay's `/relay/pair/:hostId`). */
  pairUrl?: string;
  label: string;
  fetch: typeof fetch;
  now: () => number;
  random?: RandomBytes;
}

export interface PairingAttempt {
  /** The 6-digit code to compare with the computer's. */
  code: string;
  done: Promise<Result<HostRecord>>;
  cancel(): void;
}

const ErrorBodySchema = v.object({ error: ProtocolErrorSchema });

/** HTTP statuses the host uses for pairing failures, for a body that says nothing usable. */
const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'pair-failed',
  403: 'pair-denied',
  408: 'pair-timeout',
  410: 'pair-expired',
  429: 'rate-limited',
};

export function startPairing(link: PairingLink, deps: PairingDeps): PairingAttempt {
  const random = deps.random ?? secureRandom;
  const keys = generateBoxKeyPair(random);
  const code = confirmationCode(link.hostBoxPublicKey, keys.publicKey, link.pairingKey);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PAIR_REQUEST_TIMEOUT_MS);
  const body = sealPairRequest(
    { pairingId: link.pairingId, devicePublicKey: keys.publicKey, label: deps.label },
    link.pairingKey,
    random,
  );
  const done = (async (): Promise<Result<HostRecord>> => {
    let response: Response;
    try {
      response = await deps.fetch(deps.pairUrl ?? pairUrl(deps.apiBase), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: controller.signal,
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      return controller.signal.aborted
        ? fail('pair-timeout', 'no answer came from the computer in time')
        : fail('unavailable', 'the computer could not be reached');
    } finally {
      clearTimeout(timer);
    }
    const json: unknown = await response.json().catch((): unknown => undefined);
    if (!response.ok) return { ok: false, error: errorFrom(response.status, json) };
    const reply = openPairReply(json, link.pairingKey);
    if (!reply.ok) return reply;
    const hostBox = fromBase64UrlExact(reply.value.hostBoxPublicKey, 32);
    const hostSign = fromBase64UrlExact(reply.value.hostSignPublicKey, 32);
    // The reply must come from the host the link named, and its id must match its signing key.
    if (!hostBox || !constantTimeEqual(hostBox, link.hostBoxPublicKey)) {
      return fail('pair-failed', 'the reply came from a different computer than the link names');
    }
    if (!hostSign || hostIdFromSignKey(hostSign) !== reply.value.hostId) {
      return fail('pair-failed', 'the reply names a host id that does not match its key');
    }
    const record: HostRecord = {
      hostId: reply.value.hostId,
      name: reply.value.hostName,
      apiBase: deps.apiBase,
      deviceId: reply.value.deviceId,
      deviceSecretKey: toBase64Url(keys.secretKey),
      hostBoxPublicKey: reply.value.hostBoxPublicKey,
      hostSignPublicKey: reply.value.hostSignPublicKey,
      scopes: reply.value.scopes,
      pairedAt: deps.now(),
      lastSeenAt: deps.now(),
      recentFolders: [],
      ...(link.relay ? { relayHint: link.relay } : {}),
      ...(reply.value.relay ? { relay: reply.value.relay } : {}),
    };
    return ok(record);
  })();
  return { code, done, cancel: () => controller.abort() };
}

function errorFrom(status: number, json: unknown): ProtocolError {
  const parsed = v.safeParse(ErrorBodySchema, json);
  if (parsed.success) return parsed.output.error;
  return { code: STATUS_CODES[status] ?? 'pair-failed', message: `the computer answered ${status}` };
}

/** What to tell the person, by code; `retry` says whether trying the same link again can help. */
export function describePairingError(error: ProtocolError): { text: string; retry: boolean } {
  switch (error.code) {
    case 'pair-denied':
      return { text: 'The computer said no to this pairing.', retry: true };
    case 'pair-timeout':
      return { text: 'Nobody answered at the computer in time.', retry: true };
    case 'pair-expired':
      return {
        text: 'This pairing link has expired or was already used. Show a new QR code with `tether pair`.',
        retry: false,
      };
    case 'rate-limited':
      return { text: 'Too many pairing attempts. Wait a minute, then try again.', retry: true };
    case 'pair-limit':
      return {
        text: 'This computer already has as many devices as it allows. Revoke one first: at the computer, `tether devices` lists them and `tether devices revoke ID` removes one. Then try again.',
        retry: true,
      };
    case 'unavailable':
      return {
        text: 'The computer could not be reached. Is `tether start` running, and on the same network?',
        retry: true,
      };
    case 'version-unsupported':
      return { text: 'This app and the computer speak different protocol versions: update Tether.', retry: false };
    default:
      return { text: `Pairing failed (${error.code}).`, retry: true };
  }
}
