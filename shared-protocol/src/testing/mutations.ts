/** Every copy of `bytes` with exactly one bit flipped. */
export function* bitFlips(bytes: Uint8Array): Generator<{ index: number; bit: number; mutated: Uint8Array }> {
  for (let index = 0; index < bytes.length; index++) {
    for (let bit = 0; bit < 8; bit++) {
      const mutated = bytes.slice();
      mutated[index]! ^= 1 << bit;
      yield { index, bit, mutated };
    }
  }
}
