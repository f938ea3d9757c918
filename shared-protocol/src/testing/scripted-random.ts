import type { RandomBytes } from '../random.js';

/** Hands out the given byte strings in order, for fixed vectors; throws when the script and the
 * caller disagree, since that means the vector no longer describes the code. */
export function scriptedRandom(script: readonly Uint8Array[]): RandomBytes {
  let next = 0;
  return (length) => {
    const bytes = script[next++];
    if (!bytes || bytes.length !== length) {
      throw new Error(
        `random script step ${next - 1}: asked for ${length} bytes, script has ${bytes?.length ?? 'none'}`,
      );
    }
    return bytes.slice();
  };
}
