import type { AppEncoding } from './app-files.js';
import { APP_ENCODINGS } from './app-files.js';

/** Entries of `Accept-Encoding` read at most; browsers send about five. */
const MAX_ENTRIES = 32;
/** A qvalue: 0 to 1 with at most three decimals. */
const WEIGHT = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The content coding to send, of those `available`, for a request's `Accept-Encoding` (RFC 9110
 * §12.5.3): the one with the highest weight, ties going to the order of `APP_ENCODINGS` (brotli,
 * then gzip). A coding the header does not name takes the weight of `*`, if present, else is not
 * acceptable; `q=0` means "not acceptable". `undefined`: send the bytes as they are. (A client that
 * refuses even `identity` gets them too: that is what it would get from a server without the
 * compressed forms, and better than a 406 for a page.)
 */
export function chooseEncoding(
  header: string | undefined,
  available: Partial<Record<AppEncoding, unknown>> | undefined,
): AppEncoding | undefined {
  if (!header || !available) return undefined;
  const weights = new Map<string, number>();
  for (const entry of header.split(',').slice(0, MAX_ENTRIES)) {
    const [coding, ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
    if (!coding) continue;
    let weight = 1;
    for (const param of params) {
      const [name, value = ''] = param.split('=').map((part) => part.trim());
      // A malformed weight makes the entry unusable, never more acceptable than the client meant.
      if (name === 'q') weight = WEIGHT.test(value) ? Number(value) : 0;
    }
    weights.set(coding, weight);
  }
  let best: AppEncoding | undefined;
  let bestWeight = 0;
  for (const encoding of APP_ENCODINGS) {
    if (available[encoding] === undefined) continue;
    const weight = weights.get(encoding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) {
      best = encoding;
      bestWeight = weight;
    }
  }
  return best;
}
