import type { BoxKeyPair, PairReply, PairRequestBody, PairingLink, Result } from '@tether/shared-protocol';
import { fail, generateBoxKeyPair, isErrorCode, ok, pairWithHost } from '@tether/shared-protocol';

export interface NodePairing {
  keys: BoxKeyPair;
  /** The code this client would show, once the host answered its commit. */
  code: Promise<string>;
  /** The host's reply once the person answered at the computer (or why not). */
  done: Promise<Result<PairReply>>;
}

/** A device pairing from Node over real HTTP, with the protocol's own steps (pairWithHost). */
export function pairFromNode(baseUrl: string, link: PairingLink, label: string): NodePairing {
  const keys = generateBoxKeyPair();
  let shown: (code: string) => void = () => undefined;
  const code = new Promise<string>((resolve) => (shown = resolve));
  const done = pairWithHost({
    link,
    devicePublicKey: keys.publicKey,
    label,
    onCode: (c) => shown(c),
    post: postPairBody(`${baseUrl}/rc/pair`),
  });
  return { keys, code, done };
}

/** Posts one pairing body to `url` (the host's `/rc/pair` or a relay's pair URL) as pairWithHost wants. */
export function postPairBody(url: string): (body: PairRequestBody) => Promise<Result<unknown>> {
  return async (body) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json: unknown = await response.json().catch((): unknown => undefined);
    if (response.ok) return ok(json);
    const error = (json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    return isErrorCode(error?.code)
      ? fail(error.code, typeof error.message === 'string' ? error.message : '')
      : fail('pair-failed', `HTTP ${response.status}`);
  };
}
