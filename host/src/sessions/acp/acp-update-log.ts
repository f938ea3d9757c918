import type { SessionUpdate, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { PlanEntry, SessionEventBody } from '@tether/shared-protocol';
import { MAX_PLAN_ENTRIES, MAX_PLAN_ENTRY_TEXT, MAX_TOOL_OUTPUT_EVENT, TokenBucket } from '@tether/shared-protocol';
import type { RunContext } from '../session-backend.js';
import { DeltaCoalescer } from '../builtin/delta-coalescer.js';
import { blockText, boundedInput, cut, rawExitCode, toolName } from './acp-content-text.js';
import type { ToolDetails, ToolState } from './acp-tool-fields.js';
import { toolDetails, toolDiff, toolOutput } from './acp-tool-fields.js';

/**
 * Characters of one assistant message event. An agent's longer reply goes on in a new message:
 * an event must stay well inside a sealed frame whatever its text escapes to in JSON.
 */
export const MAX_MESSAGE_CHARS = 128 * 1024;
/** Tool calls one run keeps track of; past it the oldest finished ones are forgotten. */
export const MAX_TRACKED_TOOL_CALLS = 1000;
/**
 * Events (other than the coalesced message deltas) an agent's updates may add to the log at once,
 * and how many a second after that: a token bucket on the run's clock. An agent past it is
 * flooding the log (every event is stored and sent to every phone watching): its updates are
 * dropped from then on and the turn is told to end it. Far above a real agent's pace, whose tool
 * calls each take real work.
 */
export const MAX_UPDATE_BURST = 2000;
export const UPDATES_PER_SECOND = 100;

/** Characters of a tool title in an event, as the event allows. */
const MAX_TITLE = 1000;

/** Whatever else the log needs: the text a client terminal printed, for tool calls that show one. */
export interface UpdateLogDeps {
  run: Pick<RunContext, 'append' | 'clock' | 'newId' | 'record'>;
  terminalOutput: (terminalId: string) => string | undefined;
  /** The agent went past MAX_UPDATE_BURST: called once; nothing more it sends is logged. */
  onFlood?: () => void;
}

/**
 * One run's `session/update` notifications as Tether events: message chunks become `message.delta`
 * and `message` events (coalesced like the built-in loop's), tool calls `tool.started`,
 * `tool.updated` and `tool.finished` with the agent's titles, kinds, files and diffs, a plan a
 * `plan` event. Thoughts, mode and command lists, usage and the user's own replayed chunks are
 * not part of the transcript and are counted as skipped.
 */
export class AcpUpdateLog {
  private messageId: string | undefined;
  private text = '';
  private deltas: DeltaCoalescer | undefined;
  private readonly tools = new Map<string, ToolState>();
  private planId: string | undefined;
  /** Updates left out of the transcript, by kind. */
  readonly skipped = new Map<string, number>();
  /** Events the agent may still add (see MAX_UPDATE_BURST). */
  private readonly budget: TokenBucket;
  private flooded = false;

  constructor(private readonly deps: UpdateLogDeps) {
    this.budget = new TokenBucket(deps.run.clock, UPDATES_PER_SECOND, MAX_UPDATE_BURST);
  }

  /** Whether the agent flooded the log: its updates are dropped. */
  get isFlooded(): boolean {
    return this.flooded;
  }

  update(update: SessionUpdate): void {
    if (this.flooded) return;
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        return this.addText(blockText(update.content));
      case 'tool_call':
        this.endMessage();
        return this.toolCall(update);
      case 'tool_call_update':
        this.endMessage();
        return this.toolCall(update);
      case 'plan':
        this.endMessage();
        return this.plan(update.entries);
      case 'notice':
        this.endMessage();
        return this.append({
          type: 'notice',
          level: update.severity === 'error' ? 'error' : update.severity === 'warning' ? 'warning' : 'info',
          text: cut(`${update.title}${update.description ? `: ${update.description}` : ''}`, 4000),
        });
      default:
        this.skipped.set(update.sessionUpdate, (this.skipped.get(update.sessionUpdate) ?? 0) + 1);
    }
  }

  /** The tool call the agent calls `acpId`, as far as it has told; undefined when it never did. */
  tool(acpId: string): ToolState | undefined {
    return this.tools.get(acpId);
  }

  /**
   * Merges a tool call's fields (from an update, or from a permission request, which carries one)
   * and reports it started when it is new: a permission may name a call the agent never announced.
   * A permission request's text content is the agent's question (Codex: its reason and the
   * decisions it offers), kept apart as `asked`: it is not what the call printed.
   */
  merge(fields: ToolCallUpdate & { title?: string | null }, from: 'update' | 'permission' = 'update'): ToolState {
    let state = this.tools.get(fields.toolCallId);
    const isNew = state === undefined;
    if (!state) {
      this.forgetOldest();
      state = {
        id: this.deps.run.newId('t'),
        acpId: fields.toolCallId,
        tool: toolName(fields.name ?? undefined, fields.kind ?? undefined),
        title: '',
        kind: undefined,
        rawInput: undefined,
        rawOutput: undefined,
        content: [],
        asked: [],
        locations: [],
        finished: false,
      };
      this.tools.set(fields.toolCallId, state);
    }
    if (typeof fields.title === 'string') state.title = fields.title;
    if (fields.kind) state.kind = fields.kind;
    if (fields.rawInput !== undefined) state.rawInput = fields.rawInput;
    if (fields.rawOutput !== undefined) state.rawOutput = fields.rawOutput;
    if (fields.content && from === 'permission') {
      state.asked = fields.content.flatMap((item) => (item.type === 'content' ? [blockText(item.content)] : []));
      // Its diffs are what is asked for; what the call said before stays its own.
      const shown = fields.content.filter((item) => item.type !== 'content');
      if (shown.length > 0) state.content = [...state.content.filter((item) => item.type === 'content'), ...shown];
    } else if (fields.content) state.content = fields.content;
    if (fields.locations) state.locations = fields.locations;
    if (isNew) {
      this.append({
        type: 'tool.started',
        toolCallId: state.id,
        tool: state.tool,
        title: cut(state.title || state.tool, MAX_TITLE),
        input: boundedInput(state.rawInput ?? {}),
        ...this.details(state),
      });
    }
    return state;
  }

  /** Ends the message being streamed, if any (a tool call or the end of the turn comes next). */
  endMessage(): void {
    if (!this.messageId) return;
    this.deltas?.flush();
    if (this.text !== '') {
      this.deps.run.append({ type: 'message', messageId: this.messageId, role: 'assistant', text: this.text });
    }
    this.messageId = undefined;
    this.deltas = undefined;
    this.text = '';
  }

  /**
   * The person denied the call: it is reported finished so, now (an agent may never say more of a
   * call it was refused, and Codex ends its whole turn).
   */
  denied(state: ToolState, why: string): void {
    this.failUnfinished(state, why);
  }

  /** The end of a run: the message ends, and tool calls the agent never finished are reported so. */
  close(why: string): void {
    this.endMessage();
    for (const state of this.tools.values()) this.failUnfinished(state, why);
  }

  /** Reports a call not yet finished as failed with `why` (once: a finished call is left as it is). */
  private failUnfinished(state: ToolState, why: string): void {
    if (state.finished) return;
    state.finished = true;
    this.deps.run.append({
      type: 'tool.finished',
      toolCallId: state.id,
      tool: state.tool,
      ok: false,
      output: why,
      truncated: false,
    });
  }

  private addText(text: string): void {
    let rest = text;
    while (rest !== '') {
      if (!this.messageId) {
        const messageId = this.deps.run.newId('m');
        this.messageId = messageId;
        this.deltas = new DeltaCoalescer(this.deps.run.clock, (piece) =>
          this.deps.run.append({ type: 'message.delta', messageId, text: piece }),
        );
      }
      const room = MAX_MESSAGE_CHARS - this.text.length;
      const piece = rest.slice(0, room);
      rest = rest.slice(piece.length);
      this.text += piece;
      this.deltas!.push(piece);
      if (this.text.length >= MAX_MESSAGE_CHARS) {
        // A full message is an event of the agent's making: it counts against the budget.
        if (!this.spend()) return;
        this.endMessage();
      }
    }
  }

  private toolCall(update: ToolCallUpdate & { title?: string | null }): void {
    const known = this.tools.get(update.toolCallId);
    const state = this.merge(update);
    if (state.finished) return;
    if (update.status === 'completed' || update.status === 'failed') {
      state.finished = true;
      const output = this.output(state);
      const exitCode = rawExitCode(state.rawOutput);
      this.append({
        type: 'tool.finished',
        toolCallId: state.id,
        tool: state.tool,
        ok: update.status === 'completed',
        output: cut(output, MAX_TOOL_OUTPUT_EVENT),
        truncated: output.length > MAX_TOOL_OUTPUT_EVENT,
        ...(exitCode !== undefined ? { exitCode } : {}),
        ...this.details(state),
      });
      return;
    }
    // A new call was announced by `merge`; an update to a known one says what changed.
    if (!known) return;
    const output = update.content || update.rawOutput !== undefined ? this.output(state) : undefined;
    this.append({
      type: 'tool.updated',
      toolCallId: state.id,
      tool: state.tool,
      ...(typeof update.title === 'string' ? { title: cut(update.title, MAX_TITLE) } : {}),
      ...(update.rawInput !== undefined ? { input: boundedInput(update.rawInput) } : {}),
      ...(output !== undefined ? { output: cut(output, MAX_TOOL_OUTPUT_EVENT) } : {}),
      ...(update.kind || update.content || update.locations ? this.details(state) : {}),
    });
  }

  private plan(entries: readonly { content: string; status: string; priority: string }[]): void {
    this.planId ??= this.deps.run.newId('p');
    const shown: PlanEntry[] = entries.slice(0, MAX_PLAN_ENTRIES).map((entry) => ({
      content: cut(entry.content, MAX_PLAN_ENTRY_TEXT),
      status: entry.status === 'completed' || entry.status === 'in_progress' ? entry.status : 'pending',
      ...(entry.priority === 'high' || entry.priority === 'medium' || entry.priority === 'low'
        ? { priority: entry.priority }
        : {}),
    }));
    this.append({ type: 'plan', planId: this.planId, entries: shown });
  }

  /** The optional fields of a tool event: kind, files and diff, as far as known. */
  private details(state: ToolState): ToolDetails {
    return toolDetails(state, this.deps.run.record().cwd);
  }

  /** The call's diffs as unified diffs, as far as an event carries them (acp-tool-fields.ts). */
  diff(state: ToolState): string {
    return toolDiff(state, this.deps.run.record().cwd);
  }

  /** What the call printed (acp-tool-fields.ts). */
  private output(state: ToolState): string {
    return toolOutput(state, this.deps.terminalOutput);
  }

  /** Appends an event the agent caused, within its budget (see MAX_UPDATE_BURST). */
  private append(body: SessionEventBody): void {
    if (this.spend()) this.deps.run.append(body);
  }

  /** Takes one event from the budget; false (and the agent flagged as flooding) when it is spent. */
  private spend(): boolean {
    if (!this.budget.tryTake()) {
      this.flooded = true;
      this.deps.onFlood?.();
      return false;
    }
    return true;
  }

  private forgetOldest(): void {
    if (this.tools.size < MAX_TRACKED_TOOL_CALLS) return;
    for (const [acpId, state] of this.tools) {
      if (state.finished) {
        this.tools.delete(acpId);
        return;
      }
    }
    // All still running: the oldest goes anyway, so the map stays bounded.
    const oldest = this.tools.keys().next().value;
    if (oldest !== undefined) this.tools.delete(oldest);
  }
}
