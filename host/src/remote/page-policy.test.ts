import { createHash } from 'node:crypto';
import { EMPTY_STYLE_HASH } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from './http-app.js';

describe('the app page policy', () => {
  it('allows no inline style but the empty one', () => {
    const empty = createHash('sha256').update('').digest('base64');
    expect(EMPTY_STYLE_HASH).toBe(`'sha256-${empty}'`);
    const styleSrc = CONTENT_SECURITY_POLICY.split('; ').find((d) => d.startsWith('style-src '));
    expect(styleSrc).toBe(`style-src 'self' ${EMPTY_STYLE_HASH}`);
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe');
  });
});
