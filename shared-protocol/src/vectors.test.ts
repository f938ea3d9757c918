import { describe, expect, it } from 'vitest';
import vectorsFile from '../test-vectors/vectors.json' with { type: 'json' };
import type { Vectors } from './testing/vectors.js';
import { checkVectors } from './testing/check-vectors.js';

// The same file is checked in Chromium by e2e/protocol-vectors.spec.ts.
const vectors = vectorsFile as Vectors;

describe('fixed vectors (Node)', () => {
  const checks = checkVectors(vectors);
  it('cover every codec', () => {
    expect(checks.length).toBeGreaterThan(15);
  });
  for (const check of checks) {
    it(check.name, () => {
      expect(check.ok, check.detail).toBe(true);
    });
  }

  it('catch a changed byte', () => {
    const broken = JSON.parse(JSON.stringify(vectors)) as Vectors;
    broken.frames.frames[1] = broken.frames.frames[1]!.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    expect(
      checkVectors(broken)
        .filter((c) => !c.ok)
        .map((c) => c.name),
    ).toEqual(['frames', 'frames open']);
  });
});
