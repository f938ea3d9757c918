import type { Clock, Decision, RandomBytes } from '@tether/shared-protocol';
import {
  AnswerApprovalResult,
  decodeChannelMessage,
  encodeChannelMessage,
  fromBase64UrlExact,
  openCallReply,
  relayCallUrl,
  relayOrigin,
  sealCall,
  visibleText,
} from '@tether/shared-protocol';
import * as v from 'valibot';
import type { HostRecord } from '../data/records.js';
import { deviceKeyFor } from '../net/device-key.js';
import type { AnswerOutcome } from './notification-view.js';

/** Milliseconds one attempt of a one-shot answer may take; a notification action should not hang. */
export const ONE_SHOT_TIMEOUT_MS = 15_000;

export interface OneShotDeps {
  fetch: typeof fetch;
  subtle: SubtleCrypto | undefined;
  clock: Pick<Clock, 'now'>;
  random: RandomBytes;
  /** The service worker's own origin: an `http:` host cannot be called from an `https:` one. */
  origin: string;
}

/**
 * Where a one-shot call to the host of `record` can go, best first: the host's own origin
 * (`apiBase`, the direct path), then its relay when it has one. Adding a path is one more entry.
 */
export function callTargets(record: Pick<HostRecord, 'apiBase' | 'relay' | 'hostId'>, origin: string): string[] {
  const targets: string[] = [];
  const mixed = origin.startsWith('https:') && record.apiBase.startsWith('http:');
  // Paired through a relay, the address the app knows is the relay's own: no host answers there.
  const pairedViaRelay = record.relay !== undefined && relayOrigin(record.relay.url) === relayOrigin(record.apiBase);
  if (!mixed && !pairedViaRelay) targets.push(`${record.apiBase}/rc/call`);
  const relay = record.relay && relayCallUrl(record.relay.url, record.hostId);
  if (relay) targets.push(relay);
  return targets;
}

/**
 * Answers an approval with one sealed one-shot call (`approvals.answer`), the device key read from
 * IndexedDB, without opening the app. Each target is tried in turn while the call could not be
 * delivered; once a host has answered (even with an error) that answer stands.
 */
export async function answerByOneShot(
  record: HostRecord,
  approvalId: string,
  decision: Decision,
  deps: OneShotDeps,
): Promise<AnswerOutcome> {
  const hostKey = fromBase64UrlExact(record.hostBoxPublicKey, 32);
  if (!hostKey) return { kind: 'failed', message: 'This device has no valid key for that computer.' };
  let deviceKey;
  try {
    deviceKey = await deviceKeyFor(record, deps.subtle);
  } catch {
    return { kind: 'failed', message: 'This device cannot use its key for that computer here.' };
  }
  const request = encodeChannelMessage({
    t: 'req',
    id: 1,
    method: 'approvals.answer',
    params: { id: approvalId, decision },
  });
  let lastProblem = 'The computer could not be reached.';
  for (const url of callTargets(record, deps.origin)) {
    // A fresh call per attempt: the host refuses a call it has already seen.
    const call = sealCall(
      {
        deviceId: record.deviceId,
        deviceKeys: deviceKey,
        hostBoxPublicKey: hostKey,
        clock: deps.clock,
        random: deps.random,
      },
      request,
    );
    let response: Response;
    try {
      response = await deps.fetch(url, {
        method: 'POST',
        body: new Uint8Array(call.message),
        headers: { 'content-type': 'application/octet-stream' },
        signal: AbortSignal.timeout(ONE_SHOT_TIMEOUT_MS),
      });
    } catch {
      continue; // not delivered: the next path may work
    }
    if (response.status === 502 || response.status === 503 || response.status === 504) {
      lastProblem = `The computer did not answer (HTTP ${response.status}).`;
      continue;
    }
    if (response.status !== 200)
      return { kind: 'failed', message: `The computer refused the answer (HTTP ${response.status}).` };
    const opened = openCallReply(new Uint8Array(await response.arrayBuffer()), call.replyKey);
    if (!opened.ok) return { kind: 'failed', message: 'The reply did not open: it did not come from that computer.' };
    const reply = decodeChannelMessage(opened.value);
    if (!reply || reply.t !== 'res')
      return { kind: 'failed', message: 'The computer sent a reply this app cannot read.' };
    if ('error' in reply) {
      const message = visibleText(reply.error.message, { maxLength: 200 });
      if (reply.error.code === 'already-resolved') return { kind: 'already-answered', message };
      return { kind: 'failed', message };
    }
    const result = v.safeParse(AnswerApprovalResult, reply.result);
    if (!result.success) return { kind: 'failed', message: 'The computer sent a reply this app cannot read.' };
    return result.output.approval.status === 'denied' ? { kind: 'denied' } : { kind: 'approved' };
  }
  return { kind: 'failed', message: lastProblem };
}
