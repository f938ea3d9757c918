import type { Approval } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { actionView, approvalAnswers, approvalOutcome, approvalQuestion, linesBadge } from './approval-text.js';

const base: Approval = {
  id: 'a',
  sessionId: 's',
  toolCallId: 't',
  tool: 'shell',
  kind: 'shell',
  action: 'ls',
  cwd: '/w',
  place: 'local',
  createdAt: 0,
  status: 'pending',
};

describe('approval text', () => {
  it('says who answered and how', () => {
    expect(approvalQuestion(base)).toBe('Run this command?');
    const byPhone: Approval = {
      ...base,
      status: 'allowed',
      decision: 'allow-once',
      answeredBy: { kind: 'device', id: 'd1', label: 'iPhone · Safari' },
    };
    expect(approvalOutcome(byPhone, 'd2')).toBe('Allowed once by iPhone · Safari');
    expect(approvalOutcome(byPhone, 'd1')).toBe('Allowed once on this device');
    expect(
      approvalOutcome(
        { ...base, status: 'denied', decision: 'deny', answeredBy: { kind: 'local', label: 'terminal' } },
        'd1',
      ),
    ).toBe('Denied at the computer');
    expect(
      approvalOutcome({ ...base, status: 'cancelled', answeredBy: { kind: 'local', label: 'interrupted' } }, 'd1'),
    ).toBe('Cancelled (interrupted)');
    // The agent's own answer that outlives the session is named as what it is.
    expect(
      approvalOutcome(
        { ...base, status: 'allowed', decision: 'allow-always', answeredBy: { kind: 'local', label: 'terminal' } },
        'd1',
      ),
    ).toBe('Allowed always, for every session of this agent at the computer');
  });
});

describe('the action as the card shows it', () => {
  const text = (line: ReturnType<typeof actionView>['lines'][number]) =>
    line.map((s) => (s.kind === 'text' ? s.text : s.mark)).join('');

  it('splits a multi-line action into numbered lines and says how many', () => {
    const view = actionView('npm test\ntouch /tmp/pwned # \r\x1b[2K│ npm test');
    expect(view.lines.map(text)).toEqual(['npm test', 'touch /tmp/pwned # ⟨CR⟩⟨ESC⟩[2K│ npm test']);
    expect(linesBadge(view)).toBe('2 lines');
    expect(linesBadge(actionView('ls -la'))).toBeUndefined();
  });

  it('shows bidi and zero-width characters as marks, and counts them', () => {
    const view = actionView('echo "safe\u202e"; rm -rf ~ \u200b\u2066x\u2069');
    expect(view.lines.map(text)).toEqual(['echo "safe⟨U+202E⟩"; rm -rf ~ ⟨U+200B⟩⟨U+2066⟩x⟨U+2069⟩']);
    expect(view.hidden).toBe(4);
    expect(view.lines[0]!.filter((s) => s.kind === 'mark').map((s) => s.kind === 'mark' && s.class)).toEqual([
      'bidi',
      'zero-width',
      'bidi',
      'bidi',
    ]);
  });

  it('keeps markup as text (the card renders segments as text nodes, never HTML)', () => {
    expect(actionView('<img src=x onerror=alert(1)>').lines.map(text)).toEqual(['<img src=x onerror=alert(1)>']);
  });

  it('says so when the last line is empty, since a trailing newline still counts', () => {
    expect(linesBadge(actionView('make\n'))).toBe('2 lines');
  });
});

describe('a prefix rule where it is recorded', () => {
  it('says plainly what it allows: the prefix and plain words in the folder', () => {
    const allowed: Approval = {
      ...base,
      action: 'git log --oneline',
      status: 'allowed',
      decision: 'allow-session',
      prefix: 'git log',
      answeredBy: { kind: 'local', label: 'terminal' },
    };
    expect(approvalOutcome(allowed, 'd1')).toBe(
      'Allowed for this session at the computer; from now on “git log” alone or followed only by plain words (no options, no shell syntax, no host or address, nothing outside the session folder or in a private folder; the program decides what they do) runs without asking',
    );
  });
});

describe("a folder's trust", () => {
  const trust: Approval = {
    ...base,
    tool: 'folder-trust',
    kind: 'trust',
    action: "Trust this folder's own configuration for Claude Code? /w\n  hook SessionStart: make setup",
    always: 'Trust it from now on, until it changes',
  };

  it('asks about the folder, and offers this session, from now on, or not at all', () => {
    expect(approvalQuestion(trust)).toBe("Trust this folder's own agent configuration?");
    expect(approvalAnswers(trust).map((a) => [a.decision, a.label])).toEqual([
      ['allow-once', 'Trust for this session'],
      ['allow-always', 'Trust from now on'],
      ['deny', "Don't trust"],
    ]);
    // A command's approval keeps its four answers, "always" only where the agent offers one.
    expect(approvalAnswers(base).map((a) => a.label)).toEqual(['Allow once', 'Allow for session', 'Deny']);
  });

  it('says how it ended in its own words', () => {
    const by = { kind: 'device' as const, id: 'd1', label: 'iPad' };
    expect(approvalOutcome({ ...trust, status: 'allowed', decision: 'allow-always', answeredBy: by }, 'd2')).toBe(
      'Trusted from now on, until it changes by iPad',
    );
    expect(approvalOutcome({ ...trust, status: 'allowed', decision: 'allow-once', answeredBy: by }, 'd1')).toBe(
      'Trusted for this session on this device',
    );
    expect(approvalOutcome({ ...trust, status: 'denied', decision: 'deny', answeredBy: by }, 'd1')).toBe(
      'Not trusted on this device',
    );
  });
});
