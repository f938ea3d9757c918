import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';
import type { AppHost } from './app-host.js';
import { sessionEvents } from './app-host.js';
import { eventually } from './host-process.js';

export interface ShownTranscript {
  lastSeq: number;
  applied: number;
  messages: { id: string; text: string }[];
  tools: string[];
  approvals: string[];
}

/** What the transcript (the page's `log` element) shows; runs in the page, so it stands alone. */
export function readTranscript(log: Element): ShownTranscript {
  const text = (el: Element) =>
    (el.textContent ?? '')
      .replace(/^You: /, '')
      .replace(/\s+/g, ' ')
      .trim();
  return {
    lastSeq: Number(log.getAttribute('data-last-seq')),
    applied: Number(log.getAttribute('data-applied')),
    messages: [...log.querySelectorAll('[data-message-id]')].map((el) => ({
      id: el.getAttribute('data-message-id') ?? '',
      text: text(el),
    })),
    tools: [...log.querySelectorAll('[data-tool-id]')].map((el) => el.getAttribute('data-tool-id') ?? ''),
    approvals: [...log.querySelectorAll('[data-approval-id]')].map((el) => el.getAttribute('data-approval-id') ?? ''),
  };
}

/**
 * Checks the transcript on the page against the host's event log: every event applied exactly
 * once (the count equals the last sequence number), and the same messages, tool calls and
 * approvals, in the same order, with the same text.
 */
export async function expectTranscriptMatchesLog(page: Page, host: AppHost, sessionId: string): Promise<void> {
  await expectShownTranscriptMatchesLog(
    () => page.getByRole('log', { name: 'Transcript' }).evaluate(readTranscript),
    host,
    sessionId,
  );
}

/** The same check, for a browser that is not a Playwright page: `shown` reads the transcript. */
export async function expectShownTranscriptMatchesLog(
  shown: () => Promise<ShownTranscript>,
  host: AppHost,
  sessionId: string,
): Promise<void> {
  const { events, view } = await eventually(
    async () => {
      const log = await sessionEvents(host, sessionId);
      const view = await shown();
      return view.lastSeq === log.length ? { events: log, view } : undefined;
    },
    15_000,
    'the transcript to catch up with the host log',
  );
  expect(view.applied).toBe(events.length);
  const seqs = events.map((e) => e.seq);
  expect(seqs).toEqual(events.map((_, i) => i + 1));

  const messageIds: string[] = [];
  const finalText = new Map<string, string>();
  for (const e of events) {
    if (e.type !== 'message' && e.type !== 'message.delta') continue;
    const id = String(e.messageId);
    if (!messageIds.includes(id)) messageIds.push(id);
    if (e.type === 'message') finalText.set(id, String(e.text).replace(/\s+/g, ' ').trim());
  }
  expect(view.messages.map((m) => m.id)).toEqual(messageIds);
  for (const m of view.messages) if (finalText.has(m.id)) expect(m.text).toBe(finalText.get(m.id));

  const toolIds = events.filter((e) => e.type === 'tool.started').map((e) => `tool:${String(e.toolCallId)}`);
  expect(view.tools).toEqual(toolIds);
  const approvalIds = [
    ...new Set(
      events.filter((e) => e.type === 'approval.requested').map((e) => String((e.approval as { id: string }).id)),
    ),
  ];
  expect(view.approvals).toEqual(approvalIds);
}
