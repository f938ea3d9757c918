import { describe, expect, it } from 'vitest';
import type { TranscriptSize } from './app-db.js';
import { evictions } from './app-db.js';

const row = (key: string, bytes: number, savedAt: number): TranscriptSize => ({ key, hostId: 'h', bytes, savedAt });

describe('transcript cache eviction', () => {
  it('evicts the least recently saved until both the count and the size fit', () => {
    const rows = [row('a', 10, 3), row('b', 10, 1), row('c', 10, 2), row('d', 10, 4)];
    expect(evictions(rows, 'd', 3, 1000)).toEqual(['b']);
    expect(evictions(rows, 'd', 10, 25)).toEqual(['b', 'c']);
    expect(evictions(rows, 'd', 10, 1000)).toEqual([]);
  });

  it('never evicts the transcript just written, even when it alone is over', () => {
    const rows = [row('old', 5, 1), row('big', 100, 2)];
    expect(evictions(rows, 'big', 10, 50)).toEqual(['old']);
  });
});
