import type { Approval, SessionEvent, SessionSummary } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { ViewerView } from './viewer-view.js';

const SECRET = 'sk-live-abc123def456';
const COMMAND = `curl -H "Authorization: Bearer ${SECRET}" https://api.example.com`;
const TOOL_CALL = 'call_9f86d081884c7d659a2feaa0c55ad015a3bf4f1b';
const base = { sessionId: 's_1', at: 1 };

const approval: Approval = {
  id: 'a_1',
  sessionId: 's_1',
  toolCallId: TOOL_CALL,
  tool: 'shell',
  kind: 'shell',
  action: COMMAND,
  cwd: '/work',
  place: 'local',
  createdAt: 1,
  status: 'pending',
};

const events: SessionEvent[] = [
  { ...base, seq: 1, type: 'message', messageId: 'm1', role: 'user', text: `run it with API_KEY=${SECRET} please` },
  {
    ...base,
    seq: 2,
    type: 'tool.started',
    toolCallId: TOOL_CALL,
    tool: 'shell',
    title: COMMAND,
    input: { command: COMMAND },
  },
  { ...base, seq: 3, type: 'approval.requested', approval },
  {
    ...base,
    seq: 4,
    type: 'tool.finished',
    toolCallId: TOOL_CALL,
    tool: 'shell',
    ok: true,
    output: `token=${SECRET}\n`,
    truncated: false,
  },
  {
    ...base,
    seq: 5,
    type: 'file.changed',
    toolCallId: TOOL_CALL,
    path: '.env',
    change: 'created',
    diff: `+API_KEY=${SECRET}`,
    truncated: false,
  },
];

describe("what a share link's viewer is shown", () => {
  it('masks every secret the lock screen would, wherever it is, and keeps the ids', () => {
    const view = new ViewerView();
    const shown = events.map((e) => view.event(e, false));
    expect(JSON.stringify(shown)).not.toContain(SECRET);
    expect(JSON.stringify(events)).toContain(SECRET);
    expect(shown[2]).toMatchObject({
      approval: { action: expect.stringContaining('Bearer •••') as string, status: 'pending' },
    });
    // A tool call's start, its approval and its end still meet, by an id that looks random.
    expect(shown.map((e) => ('toolCallId' in e ? e.toolCallId : undefined))).toEqual([
      undefined,
      TOOL_CALL,
      undefined,
      TOOL_CALL,
      TOOL_CALL,
    ]);
    expect(shown[2]).toMatchObject({ approval: { toolCallId: TOOL_CALL } });
  });

  it('leaves out photos unless the link has them', () => {
    const view = new ViewerView();
    const photo = { id: 'a'.repeat(64), type: 'image/jpeg' as const, size: 10, name: 'receipt.jpg' };
    const message: SessionEvent = {
      ...base,
      seq: 9,
      type: 'message',
      messageId: 'm9',
      role: 'user',
      text: '',
      attachments: [photo],
    };
    expect(view.event(message, false)).toMatchObject({ text: '(a photo or file, not shared with viewers)' });
    expect(view.event(message, false)).not.toHaveProperty('attachments');
    expect(view.event(message, true)).toMatchObject({ attachments: [photo] });
  });

  it('puts a notice in the place of an event masking would take past its bounds', () => {
    const view = new ViewerView();
    const notice: SessionEvent = { ...base, seq: 12, type: 'notice', level: 'info', text: 'token=x '.repeat(500) };
    expect(view.event(notice, false)).toEqual({
      ...base,
      seq: 12,
      type: 'notice',
      level: 'info',
      text: '(this event is not shown to viewers)',
    });
  });

  it('masks a session summary', () => {
    const summary = { id: 's_1', title: `deploy with password=${SECRET}`, lastLine: COMMAND } as SessionSummary;
    const shown = new ViewerView().summary({
      ...summary,
      kind: 'agent',
      place: 'local',
      cwd: '/work',
      model: 'demo',
      status: 'idle',
      archived: false,
      autoApprove: false,
      createdAt: 1,
      updatedAt: 1,
      lastSeq: 3,
      pendingApprovals: 1,
      queued: 0,
    });
    expect(JSON.stringify(shown)).not.toContain(SECRET);
    expect(shown).toMatchObject({ id: 's_1', pendingApprovals: 1 });
  });
});
