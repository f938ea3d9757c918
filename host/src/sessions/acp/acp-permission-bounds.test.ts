import type { ExecutionContext } from '@tether/machine';
import type { SessionEventBody } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalGate } from '../approval-gate.js';
import type { RunContext } from '../session-backend.js';
import type { SessionRecord } from '../../store/session-store.js';
import { Grants } from './acp-grants.js';
import { askPermission } from './acp-permission.js';
import { AcpUpdateLog } from './acp-update-log.js';

describe('a permission request too large to show', () => {
  it('is refused without resolving every path of its diffs', async () => {
    const events: SessionEventBody[] = [];
    const resolved: string[] = [];
    let asked = 0;
    let n = 0;
    const run = {
      record: () => ({ cwd: '/work/project' }) as SessionRecord,
      append: (body: SessionEventBody) => events.push(body),
      clock: new ManualClock(),
      newId: (prefix: string) => `${prefix}${++n}`,
      gate: { ask: () => (asked++, Promise.resolve({ allowed: true, by: 'rule' })) } as unknown as ApprovalGate,
      context: {
        place: 'local',
        realPath: (root: string, path: string) => (resolved.push(path), Promise.resolve(ok(resolve(root, path)))),
        // None of the files exist yet: each change is shown as the agent's diff.
        readFile: () => Promise.resolve({ ok: false, error: new Error('no such file') }),
      } as unknown as ExecutionContext,
      signal: new AbortController().signal,
    } as unknown as RunContext;
    const turn = {
      run,
      agentTitle: 'Agent',
      allowedEnv: new Set<string>(),
      log: new AcpUpdateLog({ run, terminalOutput: () => undefined }),
      grants: new Grants(),
      denied: () => undefined,
    };
    // 20,000 diffs of a few hundred characters each: far past what an approval shows (512 KiB).
    const content = Array.from({ length: 20_000 }, (_, i) => ({
      type: 'diff' as const,
      path: `/work/project/f${i}.txt`,
      oldText: 'old line\n'.repeat(10),
      newText: 'new line\n'.repeat(10),
    }));
    const answer = await askPermission(
      turn,
      {
        sessionId: 's',
        toolCall: { toolCallId: 'c1', title: 'Edit everything', kind: 'edit', content },
        options: [
          { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
          { optionId: 'no', name: 'Reject', kind: 'reject_once' },
        ],
      },
      new AbortController().signal,
    );
    expect(answer).toEqual({ outcome: { outcome: 'selected', optionId: 'no' } });
    expect(asked).toBe(0);
    expect(events.some((e) => e.type === 'notice' && e.text.includes('too large to show'))).toBe(true);
    // Past the size an approval can show, the rest is not looked at: the refusal is certain.
    expect(resolved.length).toBeLessThan(5_000);
  });
});
