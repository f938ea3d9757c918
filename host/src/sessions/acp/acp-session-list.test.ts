import { MAX_AGENT_SESSION_TITLE } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { oneLine, sameFolder } from './acp-session-list.js';

describe("an agent's word about its sessions", () => {
  it('a title is one line, cut to its bound, never through a character pair', () => {
    expect(oneLine('  Fix\nthe\t\ttest  ')).toBe('Fix the test');
    const cut = oneLine(`${'a'.repeat(MAX_AGENT_SESSION_TITLE - 2)}😀😀😀`);
    expect(cut.length).toBeLessThanOrEqual(MAX_AGENT_SESSION_TITLE);
    expect(cut.endsWith('a…')).toBe(true);
    expect(oneLine('x'.repeat(1_000_000))).toHaveLength(MAX_AGENT_SESSION_TITLE);
  });

  it('a session belongs to the folder asked about only when it names that very folder', () => {
    expect(sameFolder('/home/me/app', '/home/me/app')).toBe(true);
    expect(sameFolder('/home/me/app', '/home/me/app/')).toBe(true);
    expect(sameFolder('/home/me/app', '/home/me/app/link')).toBe(false);
    expect(sameFolder('/home/me/app', '/home/me/app/../secret')).toBe(false);
    expect(sameFolder('/home/me/app', 'home/me/app')).toBe(false);
  });
});
