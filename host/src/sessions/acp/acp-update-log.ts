import type {
  ContentBlock,
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolCallUpdate,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { PlanEntry, SessionEventBody, ToolLocation } from '@tether/shared-protocol';
import {
  MAX_PLAN_ENTRIES,
  MAX_PLAN_ENTRY_TEXT,
  MAX_TOOL_DIFF_EVENT,
  MAX_TOOL_LOCATIONS,
  MAX_TOOL_OUTPUT_EVENT,
} from '@tether/shared-protocol';
import { displayPath } from '@tether/machine';
import type { RunContext } from '../session-backend.js';
import { DeltaCoalescer } from '../builtin/delta-coalescer.js';
import { agentDiff } from './acp-diff.js';

/**
 * Characters of one assistant message event. An agent's longer reply goes on in a new message:
 * an event must stay well inside a sealed frame whatever its text escapes to in JSON.
 */
export const MAX_MESSAGE_CHARS = 128 * 1024;
/** Tool calls one run keeps track of; past it the oldest finished ones are forgotten. */
export const MAX_TRACKED_TOOL_CALLS = 1000;
/**
 * Characters of a tool call's input (as JSON) carried in an event: 64 KiB, like its output. An
 * agent's input can be as large as its message (8 MiB), which no sealed frame holds; a larger one
 * is carried as a cut preview.
 */
export const MAX_TOOL_INPUT_EVENT = 64 * 1024;
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

/** The optional fields tool events carry for an agent's tool call. */
type ToolDetails = Pick<
  Extract<SessionEventBody, { type: 'tool.started' }>,
  'kind' | 'locations' | 'diff' | 'diffTruncated'
>;

/** What the agent has said about one tool call so far, its fields merged update by update. */
export interface ToolState {
  /** Tether's id for it (the agent's ids are the agent's text: never trusted as ours). */
  id: string;
  acpId: string;
  tool: string;
  title: string;
  kind: ToolKind | undefined;
  rawInput: unknown;
  /** What the agent reported it returned: the output when its content has no text. */
  rawOutput: unknown;
  content: ToolCallContent[];
  /**
   * The agent's own words about the call from a permission request (its text content): why it
   * asks, shown in the approval. Never taken for the call's output.
   */
  asked: string[];
  locations: ToolCallLocation[];
  finished: boolean;
}

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
  /** Events the agent may still add at once (the token bucket), and when it was last filled. */
  private tokens = MAX_UPDATE_BURST;
  private filledAt: number;
  private flooded = false;

  constructor(private readonly deps: UpdateLogDeps) {
    this.filledAt = deps.run.clock.now();
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

  /** The end of a run: the message ends, and tool calls the agent never finished are reported so. */
  close(why: string): void {
    this.endMessage();
    for (const state of this.tools.values()) {
      if (state.finished) continue;
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
    const out: ToolDetails = {};
    if (state.kind) out.kind = state.kind;
    const locations = state.locations.flatMap((l): ToolLocation[] =>
      typeof l.path === 'string' && l.path !== '' && l.path.length <= 4096
        ? [
            {
              path: l.path,
              ...(typeof l.line === 'number' && Number.isInteger(l.line) && l.line >= 0 ? { line: l.line } : {}),
            },
          ]
        : [],
    );
    if (locations.length > 0) out.locations = locations.slice(0, MAX_TOOL_LOCATIONS);
    const diff = this.diff(state);
    if (diff !== '') {
      out.diff = cut(diff, MAX_TOOL_DIFF_EVENT);
      if (diff.length > MAX_TOOL_DIFF_EVENT) out.diffTruncated = true;
    }
    return out;
  }

  /**
   * The call's diffs, as unified diffs with paths shown inside the session folder, as far as an
   * event carries them: past MAX_TOOL_DIFF_EVENT the rest would be cut anyway, and an agent's
   * message may hold a hundred thousand diffs, each diffed again on every update that changes them.
   */
  diff(state: ToolState): string {
    const cwd = this.deps.run.record().cwd;
    let out = '';
    for (const item of state.content) {
      if (item.type !== 'diff') continue;
      out += agentDiff(item.oldText ?? '', item.newText, displayPath(cwd, item.path));
      if (out.length > MAX_TOOL_DIFF_EVENT) break;
    }
    return out;
  }

  /**
   * What the call printed: its text content (text blocks, and the output of any terminal it
   * shows), else what its `rawOutput` holds (Codex puts a command's stdout, stderr and exit code
   * there and no content).
   */
  private output(state: ToolState): string {
    const content = state.content
      .flatMap((item) => {
        if (item.type === 'content') return [blockText(item.content)];
        if (item.type === 'terminal') return [this.deps.terminalOutput(item.terminalId) ?? ''];
        return [];
      })
      .filter((text) => text !== '')
      .join('\n');
    return content !== '' ? content : rawOutputText(state.rawOutput);
  }

  /** Appends an event the agent caused, within its budget (see MAX_UPDATE_BURST). */
  private append(body: SessionEventBody): void {
    if (this.spend()) this.deps.run.append(body);
  }

  /** Takes one event from the budget; false (and the agent flagged as flooding) when it is spent. */
  private spend(): boolean {
    if (this.flooded) return false;
    const now = this.deps.run.clock.now();
    this.tokens = Math.min(MAX_UPDATE_BURST, this.tokens + ((now - this.filledAt) / 1000) * UPDATES_PER_SECOND);
    this.filledAt = now;
    if (this.tokens < 1) {
      this.flooded = true;
      this.deps.onFlood?.();
      return false;
    }
    this.tokens -= 1;
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

/** A content block as transcript text: text itself, other kinds as a bracketed mention. */
export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}]`;
    case 'audio':
      return `[audio ${block.mimeType}]`;
    case 'resource_link':
      return `[${block.name}](${block.uri})`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[${block.resource.uri}]`;
    default:
      return '';
  }
}

/**
 * A tool call's `rawOutput` as text: a string as it is; content blocks as their text; a command's
 * result (`stdout`, `stderr`, `exit_code`, as Codex reports it) as what it printed, stdout and
 * stderr as one stream where the agent kept them so (`aggregated_output`), and the exit code when
 * it is not 0; anything else as JSON, bounded like the output.
 */
export function rawOutputText(raw: unknown): string {
  if (raw === undefined || raw === null) return '';
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw)) {
    if (raw.every((b) => typeof b === 'object' && b !== null && typeof (b as { type?: unknown }).type === 'string')) {
      return (raw as ContentBlock[]).map(blockText).join('');
    }
  } else if (typeof raw === 'object') {
    const o = raw as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    if ('stdout' in o || 'stderr' in o || 'aggregated_output' in o || 'exit_code' in o) {
      const printed =
        typeof o.aggregated_output === 'string'
          ? o.aggregated_output
          : [text(o.stdout), text(o.stderr)].filter((t) => t !== '').join('\n');
      const code = rawExitCode(raw);
      return code !== undefined && code !== 0
        ? `${printed}${printed === '' || printed.endsWith('\n') ? '' : '\n'}exit code ${code}`
        : printed;
    }
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(raw, null, 2);
  } catch {
    json = undefined;
  }
  return cut(json ?? '', MAX_TOOL_OUTPUT_EVENT + 1);
}

/** The exit code a `rawOutput` reports (`exit_code`, `exitCode`), if it is a whole number. */
export function rawExitCode(raw: unknown): number | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const o = raw as { exit_code?: unknown; exitCode?: unknown };
  const code = o.exit_code ?? o.exitCode;
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
}

/** The `tool` of Tether's events for an agent's tool call: its name, else its kind. */
export function toolName(name: string | undefined, kind: string | undefined): string {
  const raw = (name ?? kind ?? 'tool').replace(/[^\w.:-]+/g, '_').slice(0, 64);
  return raw === '' ? 'tool' : raw;
}

/** The input as it is when small enough; else `{truncated: true, preview}`, its JSON cut. */
export function boundedInput(input: unknown): unknown {
  let json: string;
  try {
    json = JSON.stringify(input) ?? '';
  } catch {
    return { truncated: true, preview: '' };
  }
  return json.length <= MAX_TOOL_INPUT_EVENT ? input : { truncated: true, preview: cut(json, MAX_TOOL_INPUT_EVENT) };
}

export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
