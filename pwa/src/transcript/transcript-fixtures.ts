import type { Approval, SessionEvent, SessionEventBody } from '@tether/shared-protocol';

/** Session events for the transcript's tests: a log from bodies, an approval, one whole demo run. */

export function log(bodies: SessionEventBody[], from = 1): SessionEvent[] {
  return bodies.map((body, i): SessionEvent => ({ ...body, sessionId: 's1', seq: from + i, at: 1000 + i }));
}

export const approval = (status: Approval['status']): Approval => ({
  id: 'a1',
  sessionId: 's1',
  toolCallId: 't1',
  tool: 'shell',
  kind: 'shell',
  action: 'ls -la',
  cwd: '/work',
  place: 'local',
  createdAt: 1,
  status,
  ...(status === 'allowed'
    ? { decision: 'allow-once' as const, answeredBy: { kind: 'device' as const, id: 'd1', label: 'iPhone' } }
    : {}),
});

export const demoRun: SessionEventBody[] = [
  { type: 'message', messageId: 'u1', role: 'user', text: 'hello' },
  { type: 'message.delta', messageId: 'm1', text: 'Hi ' },
  { type: 'message.delta', messageId: 'm1', text: 'there' },
  { type: 'message', messageId: 'm1', role: 'assistant', text: 'Hi there' },
  { type: 'tool.started', toolCallId: 't1', tool: 'shell', title: 'ls -la', input: { command: 'ls -la' } },
  { type: 'approval.requested', approval: approval('pending') },
  { type: 'approval.resolved', approval: approval('allowed') },
  { type: 'tool.finished', toolCallId: 't1', tool: 'shell', ok: true, output: 'a\nb\n', truncated: false, exitCode: 0 },
  { type: 'run.finished', runId: 'r1', status: 'done', usage: { inputTokens: 1, outputTokens: 2 } },
];
