import type { ProcessHandle } from '@tether/machine';
import { describe, expect, it } from 'vitest';
import { processStreams } from './acp-stream.js';

describe('an agent process as web streams', () => {
  it('drops output that arrives after the reader cancelled, instead of throwing', async () => {
    let emit: (stream: 'stdout' | 'stderr', chunk: Uint8Array) => void = () => undefined;
    let killed = 0;
    const handle = {
      onOutput: (listener: typeof emit) => ((emit = listener), () => undefined),
      exited: new Promise(() => undefined),
      pause: () => undefined,
      resume: () => undefined,
      kill: () => void killed++,
    } as unknown as ProcessHandle;
    const { readable } = processStreams(handle, () => undefined);
    await readable.cancel();
    expect(killed).toBe(1);
    // The process has not exited yet: what it still writes must not reach a closed stream.
    expect(() => emit('stdout', Uint8Array.of(1))).not.toThrow();
  });
});
