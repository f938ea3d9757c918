import type { SessionSummary } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import {
  contextLine,
  formatCount,
  formatElapsed,
  instructionsLine,
  modelCallsLine,
  nowLine,
  tokensLine,
} from './run-glance.js';

const session = (over: Partial<SessionSummary>, activity: Partial<NonNullable<SessionSummary['activity']>> = {}) =>
  ({
    status: 'running',
    activity: {
      runStartedAt: 0,
      runEndedAt: null,
      modelCalls: 12,
      maxModelCalls: 100,
      ownLimit: false,
      toolCalls: 30,
      inputTokens: 0,
      outputTokens: 0,
      now: 'shell: npm test',
      paused: false,
      ...activity,
    },
    ...over,
  }) as SessionSummary;

describe('a run at a glance', () => {
  it('says what a running session does now, or that a stopped one waits for a go-on', () => {
    expect(nowLine(session({}))).toBe('shell: npm test');
    expect(nowLine(session({ status: 'waiting' }))).toBe('Waiting for approval · shell: npm test');
    expect(nowLine(session({ status: 'idle' }, { paused: true, modelCalls: 100, now: '' }))).toBe(
      'Stopped after 100 model calls: waiting for you to go on',
    );
    expect(nowLine({ ...session({}), activity: undefined })).toBe('');
  });

  it('formats elapsed time and counts', () => {
    expect(formatElapsed(12_400)).toBe('12 s');
    expect(formatElapsed(200_000)).toBe('3 min 20 s');
    expect(formatElapsed(3_900_000)).toBe('1 h 05 min');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(12_345)).toBe('12.3 k');
  });

  it('shows usage a back-end did not report as unknown, never as 0 in · 0 out', () => {
    const counted = session({}, { inputTokens: 12_345, outputTokens: 678 }).activity!;
    expect(tokensLine(counted)).toBe('12.3 k in · 678 out');
    expect(modelCallsLine(counted)).toBe('12 / 100');
    const agent = session({ kind: 'acp' }, { modelCalls: 0, unreportedRuns: 3 }).activity!;
    expect(tokensLine(agent)).toBe('not reported');
    expect(modelCallsLine(agent)).toBe('not reported');
    // A total short of some runs says so.
    expect(tokensLine({ ...counted, unreportedRuns: 1 })).toBe('12.3 k in · 678 out (1 run not reported)');
  });

  it('names the instruction files relative to the session folder, with what became of each', () => {
    const at = (instructions: NonNullable<SessionSummary['activity']>['instructions']) =>
      instructionsLine(session({ cwd: '/r/app/src' }, { instructions }));
    expect(at(undefined)).toBeUndefined();
    expect(at([])).toBe('none');
    expect(
      at([
        { path: '/r/AGENTS.md', status: 'read', bytes: 10 },
        { path: '/r/app/CLAUDE.md', status: 'cut', bytes: 90_000 },
        { path: '/r/app/src/AGENTS.md', status: 'read', bytes: 5 },
        { path: '/home/me/.tether/AGENTS.md', status: 'left-out', bytes: 0 },
      ]),
    ).toBe('../../AGENTS.md · ../CLAUDE.md (cut) · AGENTS.md · /home/me/.tether/AGENTS.md (left out)');
  });

  it('says how full the context is and how often it was compacted', () => {
    const base = session({}).activity!;
    expect(contextLine(base)).toBeUndefined();
    expect(contextLine({ ...base, context: { tokens: 4000, window: 8000, compactions: 0 } })).toBe(
      '50% (4.0 k of 8.0 k)',
    );
    expect(contextLine({ ...base, context: { tokens: 7900, window: 8000, compactions: 3 } })).toBe(
      '99% (7.9 k of 8.0 k) · compacted 3 times',
    );
  });
});
