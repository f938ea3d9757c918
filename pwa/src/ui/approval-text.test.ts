import type { Approval } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { approvalOutcome, approvalQuestion } from './approval-text.js';

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
  });
});
