import type { Approval } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { approvalHeader, startApprovalNotice } from './approval-lines.js';

const approval = (place: string): Approval => ({
  id: 'a_1',
  sessionId: 's_1',
  toolCallId: 't1',
  tool: 'shell',
  kind: 'shell',
  action: 'make deploy',
  cwd: '/srv/app',
  place,
  createdAt: 1,
  status: 'pending',
});

describe('where an approval runs, in the terminal', () => {
  it('names this computer or the machine, before the folder', () => {
    expect(approvalHeader(approval('local'))).toBe(
      'approval a_1 (shell) on this computer, in session s_1, folder /srv/app',
    );
    expect(startApprovalNotice(approval('build-box'))).toContain(
      'approval a_1 (shell) on machine build-box, in session s_1, folder /srv/app',
    );
  });

  it('escapes a machine name that would hide itself', () => {
    expect(approvalHeader(approval('box\u202e\u001b[2K'))).toContain('on machine box⟨U+202E⟩⟨ESC⟩[2K,');
  });
});
