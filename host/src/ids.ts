import { secureRandom, toBase64Url } from '@tether/shared-protocol';

/** Ids like `s_3kT9x0aQ1bZc`: a kind prefix and 72 random bits, unguessable and short enough to type. */
export function newId(prefix: string): string {
  return `${prefix}_${toBase64Url(secureRandom(9))}`;
}
