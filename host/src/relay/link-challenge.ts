import type { Clock, ProtocolError, SignKeyPair } from '@tether/shared-protocol';
import { answerRelayChallenge, protocolError, relayOrigin } from '@tether/shared-protocol';

/** What the host does with a relay's challenge: answer it, refuse this relay, or drop and retry. */
export type ChallengeStep =
  | { kind: 'answer'; bytes: Uint8Array }
  | { kind: 'refuse'; error: ProtocolError }
  | { kind: 'drop'; error: ProtocolError };

/**
 * Answers a relay's challenge only when it names the origin the host was given (`url`) and a time
 * within 2 minutes of this computer's. A relay naming another origin is refused: signing its
 * challenge would vouch for the wrong relay (a wrong --public-url, or something in between). A
 * clock that is off is a drop, retried: it may be this computer's.
 */
export function challengeStep(
  bytes: Uint8Array,
  challenge: { origin: string; time: number },
  url: string,
  sign: SignKeyPair,
  clock: Clock,
): ChallengeStep {
  const answer = answerRelayChallenge(bytes, sign, { relayUrl: url, clock });
  if (answer.ok) return { kind: 'answer', bytes: answer.value };
  if (answer.error.code === 'handshake-failed') {
    return {
      kind: 'refuse',
      error: protocolError(
        'handshake-failed',
        `the relay at ${url} names itself ${challenge.origin}, not ${relayOrigin(url) ?? '?'}: check the URL, or the relay's --public-url`,
      ),
    };
  }
  if (answer.error.code !== 'handshake-stale') return { kind: 'drop', error: answer.error };
  const skew = challenge.time - clock.now();
  return {
    kind: 'drop',
    error: protocolError(
      'handshake-stale',
      `the relay's clock is ${Math.round(Math.abs(skew) / 1000)} s ${skew > 0 ? 'ahead of' : 'behind'} this computer's: check the time here`,
    ),
  };
}
