import type { SessionEventBody } from '@tether/shared-protocol';
import { MAX_COMPACTION_CUTS, MAX_COMPACTION_SUMMARY } from '@tether/shared-protocol';
import type { ChatMessage, ModelProvider, ToolSpec } from '../../models/types.js';
import type { ContextBudget, RequestShape } from './context-budget.js';

export type CompactionEvent = Extract<SessionEventBody, { type: 'context.compacted' }>;

/** Characters kept of an older tool output's start and end: what a command said first and how it ended. */
export const HEAD_CHARS = 800;
export const TAIL_CHARS = 400;
/** The newest tool-result messages never cut by the first step: the model is working with them. */
const KEEP_RECENT_RESULTS = 2;
/** Output tokens asked of the summary, at most (less for a small window). */
const SUMMARY_TOKENS = 2048;
/** Share of the input budget the summary request's transcript may take. */
const SUMMARY_INPUT_SHARE = 0.6;

/** What the model reads in place of the turns a compaction summarized. */
export const SUMMARY_HEADER =
  'Summary of the earlier conversation (older turns were compacted to fit the context window):';

const SUMMARY_SYSTEM = [
  "You compact a coding agent's conversation so it can go on working. Write a concise summary of the",
  "conversation you are given: the person's requests and constraints (their words where short), what",
  'was done (files read and changed, commands run and how they ended), decisions made, and what is',
  'still open. Plain text, no preamble.',
].join('\n');

/** `text` with its middle dropped when longer than head + tail (and a line saying how much). */
export function cutToHeadAndTail(text: string, head: number, tail: number): string {
  if (text.length <= head + tail) return text;
  const dropped = text.length - head - tail;
  return `${text.slice(0, head)}\n… [${dropped} characters cut to fit the context window]\n${text.slice(text.length - tail)}`;
}

/**
 * Applies a logged compaction to a history: the one function both the loop (as it compacts) and
 * the rebuild from the log (history.ts) go through, so both yield the same messages.
 */
export function applyCompaction(
  messages: ChatMessage[],
  event: Pick<CompactionEvent, 'cutOutputs' | 'headChars' | 'tailChars' | 'summarized' | 'summary'>,
): void {
  const cut = new Set(event.cutOutputs);
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'tool' || !message.results.some((r) => cut.has(r.toolCallId))) continue;
    messages[i] = {
      role: 'tool',
      results: message.results.map((r) =>
        cut.has(r.toolCallId) ? { ...r, output: cutToHeadAndTail(r.output, event.headChars, event.tailChars) } : r,
      ),
    };
  }
  if (event.summarized > 0) {
    messages.splice(0, Math.min(event.summarized, messages.length), {
      role: 'user',
      text: `${SUMMARY_HEADER}\n\n${event.summary ?? ''}`,
    });
  }
}

export interface CompactionInput {
  provider: ModelProvider;
  model: string;
  budget: ContextBudget;
  system: string;
  tools: readonly ToolSpec[];
  /** Compacted in place. */
  history: ChatMessage[];
  reason: CompactionEvent['reason'];
  signal: AbortSignal;
  /** Tokens the summary request used (counted with the run's usage). */
  onUsage: (inputTokens: number, outputTokens: number) => void;
  /** The `max_tokens` the summary call may have under the session's budget (it throws when none). */
  allow?: (request: RequestShape, maxTokens: number) => number;
  /** Summarize every turn but the newest, however little the history holds (`/compact`). */
  force?: boolean;
  /** What the person asked the summary to keep in focus (`/compact …`). */
  focus?: string;
}

/**
 * Brings a history under the budget's target: first the older tool outputs are cut to head and
 * tail; if that is not enough, the oldest turns are summarized by the same model (one extra model
 * call). Returns the event to log, or undefined when there was nothing to compact.
 */
export async function compactHistory(input: CompactionInput): Promise<CompactionEvent | undefined> {
  const { budget, history } = input;
  const measure = (messages: readonly ChatMessage[]) =>
    budget.measure({ system: input.system, tools: input.tools, messages });
  const tokensBefore = measure(history);
  const cutOutputs = cuttable(history, KEEP_RECENT_RESULTS);
  const cuts = { cutOutputs, headChars: HEAD_CHARS, tailChars: TAIL_CHARS, summarized: 0 };
  const trial = [...history];
  applyCompaction(trial, cuts);
  let event: CompactionEvent = {
    type: 'context.compacted',
    reason: input.reason,
    ...cuts,
    tokensBefore,
    tokensAfter: measure(trial),
    window: budget.window,
  };
  if (event.tokensAfter > budget.target || input.reason === 'overflow' || input.force) {
    const summaryRoom = Math.min(SUMMARY_TOKENS, Math.floor(budget.target / 4));
    const fits = (rest: readonly ChatMessage[]) => !input.force && measure(rest) + summaryRoom <= budget.target;
    const boundary = summaryBoundary(trial, fits);
    if (boundary > 0) {
      const summary = await summarize(input, trial.slice(0, boundary), summaryRoom);
      event = { ...event, summarized: boundary, summary };
    }
    // Still over (or nothing to summarize): the newest outputs are cut too.
    const after = [...history];
    applyCompaction(after, event);
    if (measure(after) > budget.target) event = { ...event, cutOutputs: cuttable(history, 0) };
  }
  applyCompaction(history, event);
  event = { ...event, tokensAfter: measure(history) };
  if (event.cutOutputs.length === 0 && event.summarized === 0) return undefined;
  return event;
}

/** Tool results longer than head + tail, outside the newest `keep` result messages, oldest first. */
function cuttable(history: readonly ChatMessage[], keep: number): string[] {
  const ids: string[] = [];
  let seen = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role !== 'tool') continue;
    if (seen++ < keep) continue;
    for (const r of message.results) if (r.output.length > HEAD_CHARS + TAIL_CHARS) ids.push(r.toolCallId);
  }
  return ids.reverse().slice(0, MAX_COMPACTION_CUTS);
}

/**
 * Where the summarized part ends: the first assistant message (so the summary, a user message,
 * is followed by the model's turn) from which the rest fits, else the last one but the newest
 * turn; 0 when there is none.
 */
function summaryBoundary(messages: readonly ChatMessage[], fits: (rest: readonly ChatMessage[]) => boolean): number {
  let last = 0;
  for (let i = 1; i < messages.length - 1; i++) {
    if (messages[i]!.role !== 'assistant') continue;
    if (fits(messages.slice(i))) return i;
    last = i;
  }
  return last;
}

/** The older turns as text for the summary request, cut to fit the budget. */
async function summarize(input: CompactionInput, older: readonly ChatMessage[], maxTokens: number): Promise<string> {
  let transcript = older.map(render).join('\n\n');
  const request = (text: string) => ({
    system: SUMMARY_SYSTEM,
    tools: [] as ToolSpec[],
    messages: [{ role: 'user' as const, text }],
  });
  const allowed = Math.floor(input.budget.inputBudget * SUMMARY_INPUT_SHARE);
  const tokens = input.budget.measure(request(transcript));
  if (tokens > allowed) {
    const keep = Math.floor(transcript.length * (allowed / tokens));
    transcript = cutToHeadAndTail(transcript, Math.floor(keep / 2), Math.floor(keep / 2));
  }
  let text = '';
  let inputTokens = 0;
  let outputTokens = 0;
  const system = input.focus
    ? `${SUMMARY_SYSTEM}\nKeep in focus what the person asked: ${input.focus}`
    : SUMMARY_SYSTEM;
  const shaped = { ...request(transcript), system };
  for await (const event of input.provider.stream({
    model: input.model,
    ...shaped,
    tools: [],
    maxTokens: input.allow ? input.allow(shaped, maxTokens) : maxTokens,
    signal: input.signal,
  })) {
    if (event.type === 'text') text += event.text;
    else if (event.type === 'usage') {
      inputTokens += event.inputTokens;
      outputTokens += event.outputTokens;
    }
  }
  input.onUsage(inputTokens, outputTokens);
  return text.trim().slice(0, MAX_COMPACTION_SUMMARY);
}

function render(message: ChatMessage): string {
  if (message.role === 'user') return `[person] ${message.text}`;
  if (message.role === 'assistant') {
    const calls = message.toolCalls.map((c) => `[tool call ${c.name}] ${cutToHeadAndTail(c.arguments, 300, 100)}`);
    return [message.text === '' ? '' : `[agent] ${message.text}`, ...calls].filter(Boolean).join('\n');
  }
  return message.results
    .map((r) => `[${r.isError ? 'tool error' : 'tool result'} ${r.name}] ${cutToHeadAndTail(r.output, 300, 200)}`)
    .join('\n');
}
