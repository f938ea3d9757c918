import type {
  ErrorCode,
  PairRequestBody,
  PairingLink,
  ProtocolError,
  RandomBytes,
  Result,
} from '@tether/shared-protocol';
import {
  PAIR_ANSWER_WAIT_MS,
  ProtocolErrorSchema,
  fail,
  ok,
  pairWithHost,
  secureRandom,
  toBase64Url,
} from '@tether/shared-protocol';
import * as v from 'valibot';
import type { HostRecord } from '../data/records.js';
import type { NotKept } from '../data/storage-health.js';
import { pairUrl } from '../lib/api-urls.js';
import type { NewDeviceKey, StorageRoundTrip } from './device-key.js';
import { makeDeviceKey, platformSubtle } from './device-key.js';

/**
 * Pairing from the phone's side: make this device's key for the host, commit to it, show the code
 * both screens share once the host's nonce is in, reveal, and wait (the host holds the reveal open
 * up to PAIR_ANSWER_WAIT_MS for the person's answer at the computer); then open the sealed reply
 * into a host record. The steps themselves are the protocol's (pairWithHost).
 *
 * The key is made before anything is sent, kept the way this browser's storage really keeps it
 * (net/device-key.ts): where it keeps nothing, no pairing starts that would be forgotten.
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
  /** The code to compare with the computer's, once there is one (after the host's nonce). */
  onCode: (code: string) => void;
  /** Writes a value to the app's storage and reads it back (AppDb.roundTrip), to learn how the
   * device key can be kept. */
  roundTrip: StorageRoundTrip;
  /** Makes this device's key (makeDeviceKey by default); tests inject their own. */
  makeKey?: () => Promise<Result<NewDeviceKey, NotKept>>;
  random?: RandomBytes;
}

export type { StorageRoundTrip };

/** Why a pairing did not happen: the computer's answer, or this browser's storage. */
export type PairingError = ProtocolError | NotKept;

export interface PairingAttempt {
  done: Promise<Result<HostRecord, PairingError>>;
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

/**
 * The key made for the link being paired. "Try again" on the same link reveals the same key, so
 * at the computer it replaces this phone's own earlier request instead of looking like a second
 * device under the link (which cancels everything on it as leaked). One link at a time.
 */
let linkKey: { pairingId: string; key: Promise<Result<NewDeviceKey, NotKept>> } | undefined;

async function keyForLink(
  link: PairingLink,
  make: () => Promise<Result<NewDeviceKey, NotKept>>,
): Promise<Result<NewDeviceKey, NotKept>> {
  const pairingId = toBase64Url(link.pairingId);
  if (linkKey?.pairingId !== pairingId) linkKey = { pairingId, key: make() };
  const key = await linkKey.key;
  // No key was made (the storage kept nothing): "Try again" asks the storage again.
  if (!key.ok && linkKey?.pairingId === pairingId) linkKey = undefined;
  return key;
}

export function startPairing(link: PairingLink, deps: PairingDeps): PairingAttempt {
  const random = deps.random ?? secureRandom;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PAIR_REQUEST_TIMEOUT_MS);
  const post = async (body: PairRequestBody): Promise<Result<unknown>> => {
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
    }
    const json: unknown = await response.json().catch((): unknown => undefined);
    return response.ok ? ok(json) : { ok: false, error: errorFrom(response.status, json) };
  };
  const done = (async (): Promise<Result<HostRecord, PairingError>> => {
    try {
      const made = await keyForLink(
        link,
        deps.makeKey ?? (() => makeDeviceKey(platformSubtle(), deps.roundTrip, random)),
      );
      if (!made.ok) return made;
      const key = made.value;
      const reply = await pairWithHost({
        link,
        devicePublicKey: key.publicKey,
        label: deps.label,
        post,
        onCode: (code) => {
          if (!controller.signal.aborted) deps.onCode(code);
        },
        random,
      });
      if (!reply.ok) return reply;
      const record: HostRecord = {
        hostId: reply.value.hostId,
        name: reply.value.hostName,
        apiBase: deps.apiBase,
        deviceId: reply.value.deviceId,
        ...key.record,
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
    } finally {
      clearTimeout(timer);
    }
  })();
  return { done, cancel: () => controller.abort() };
}

function errorFrom(status: number, json: unknown): ProtocolError {
  const parsed = v.safeParse(ErrorBodySchema, json);
  if (parsed.success) return parsed.output.error;
  return { code: STATUS_CODES[status] ?? 'pair-failed', message: `the computer answered ${status}` };
}

/** What to tell the person, by code; `retry` says whether trying the same link again can help. */
export function describePairingError(error: PairingError): { text: string; retry: boolean } {
  switch (error.code) {
    case 'storage-failed':
      return describeNotKept(error);
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

/** Why a pairing was not kept, and what became of the device at the computer. */
function describeNotKept(error: NotKept): { text: string; retry: boolean } {
  const why =
    'This browser did not let the app save the pairing (its storage is full or blocked, as in some private windows), so it would be forgotten when this page closes.';
  const after = error.afterPairing;
  if (!after)
    return {
      text: `${why} Nothing was paired. Free some space or leave private browsing, then try again.`,
      retry: true,
    };
  // The link is spent once the computer allowed the device: a new one is needed either way. An id
  // that starts with a dash goes after `--`, or the command would take it for an option.
  const id = `${after.deviceId.startsWith('-') ? '-- ' : ''}${after.deviceId}`;
  return {
    text: after.revoked
      ? `${why} The computer was told to forget this device. Free some space or leave private browsing, then pair again with a new code (\`tether pair\`).`
      : `${why} The computer still lists this device: at the computer, \`tether devices revoke ${id}\` removes it. Then pair again with a new code (\`tether pair\`).`,
    retry: false,
  };
}
