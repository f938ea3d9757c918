import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { MAX_ACTION_TEXT } from '@tether/shared-protocol';
import { displayPath } from '@tether/machine';
import { resolve } from 'node:path';
import type { GateOutcome } from '../approval-gate.js';
import type { ApprovalNeed } from '../../tools/tool.js';
import { agentDiff } from './acp-diff.js';
import { MAX_ACP_FILE_BYTES } from './acp-files.js';
import type { AcpTurnContext } from './acp-turn-context.js';
import type { ToolState } from './acp-tool-fields.js';

/**
 * Names of Tether's own tools. An agent's tool of the same name is renamed in approvals, so that
 * "allow for this session" for it can never allow Tether's own gated actions (a client write is
 * asked for as `write_file`, a client command as `shell`).
 */
const TETHER_TOOL_NAMES = new Set(['shell', 'write_file', 'edit_file', 'read_file', 'list_dir', 'search']);

/**
 * Options one permission request may offer: agents offer two to four (allow once, always, reject
 * once, always). More is refused with invalid params and a notice rather than shown.
 */
export const MAX_PERMISSION_OPTIONS = 16;

const INVALID_PARAMS = -32602;

/** Characters of an option's name quoted in the action text. */
const MAX_OPTION_NAME = 200;

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/**
 * `session/request_permission` as a Tether approval through the session's gate: auto-approve and
 * "allow for this session" rules first, else an approval showing the whole action (the agent's
 * title, its own words on why it asks, the command or every diff, its input, the files) and which
 * of the agent's options each answer picks. The first answer from any surface wins; an interrupt
 * answers `cancelled`, as ACP requires. What the person allowed is granted once to the client
 * requests that carry it out.
 *
 * Only the person's "always" picks an agent's allow-always option: it may outlive the session
 * (Codex writes an exec-policy rule for every later session), so "allow for this session" is
 * Tether's own rule, answered with the agent's allow-once each time it matches.
 */
export async function askPermission(
  turn: AcpTurnContext,
  params: RequestPermissionRequest,
  signal: AbortSignal,
): Promise<RequestPermissionResponse> {
  if (params.options.length > MAX_PERMISSION_OPTIONS) {
    turn.run.append({
      type: 'notice',
      level: 'warning',
      text: `${turn.agentTitle} asked permission with ${params.options.length} options (at most ${MAX_PERMISSION_OPTIONS}); it was refused.`,
    });
    throw new RequestError(INVALID_PARAMS, `${params.options.length} options; at most ${MAX_PERMISSION_OPTIONS}`);
  }
  const state = turn.log.merge(params.toolCall, 'permission');
  const options = pickOptions(params.options);
  const request = await gateRequest(turn, state, options);
  if (request.action.length > MAX_ACTION_TEXT) {
    turn.run.append({
      type: 'notice',
      level: 'warning',
      text: `The agent asked to ${state.title ? `run “${state.title.slice(0, 200)}”` : 'act'} with an action too large to show for approval (${request.action.length} characters); it was refused.`,
    });
    return answer(options.reject);
  }
  const outcome = await turn.run.gate.ask(
    {
      toolCallId: state.id,
      tool: request.tool,
      need: request.need,
      place: turn.run.context.place,
      ...(options.allowAlways ? { always: optionName(options.allowAlways) } : {}),
    },
    signal,
  );
  if (!outcome.allowed) {
    if (outcome.reason === 'cancelled') return CANCELLED;
    turn.denied(state);
    if (outcome.note) {
      turn.run.append({
        type: 'notice',
        level: 'info',
        text: 'ACP has no place for a note with a denial, so the agent did not get it: send it as a message.',
      });
    }
    return answer(options.reject);
  }
  const chosen = chooseAllow(outcome, options);
  if (!chosen) return CANCELLED;
  for (const grant of request.writes) turn.grants.allowWrite(grant.path, grant.text, grant.before);
  if (request.command !== undefined) turn.grants.allowCommand(request.command);
  return answer(chosen);
}

interface Options {
  allowOnce: PermissionOption | undefined;
  allowAlways: PermissionOption | undefined;
  reject: PermissionOption | undefined;
}

function pickOptions(options: readonly PermissionOption[]): Options {
  const first = (kind: PermissionOptionKind) => options.find((o) => o.kind === kind);
  return {
    allowOnce: first('allow_once'),
    allowAlways: first('allow_always'),
    reject: first('reject_once') ?? first('reject_always'),
  };
}

/**
 * The agent's allow-always option only for the person's "always"; every other allow (once, for
 * this session, by a rule, by auto-approve) its allow-once, or nothing (the request is cancelled)
 * when it offers none.
 */
function chooseAllow(outcome: Extract<GateOutcome, { allowed: true }>, options: Options): PermissionOption | undefined {
  if (outcome.by === 'person' && outcome.decision === 'allow-always') return options.allowAlways;
  return options.allowOnce;
}

function answer(option: PermissionOption | undefined): RequestPermissionResponse {
  return option ? { outcome: { outcome: 'selected', optionId: option.optionId } } : CANCELLED;
}

function optionName(option: PermissionOption): string {
  return option.name.slice(0, MAX_OPTION_NAME);
}

interface PermissionRequest {
  tool: string;
  need: ApprovalNeed;
  action: string;
  /** Writes the diffs describe, by real path, granted once when allowed. */
  writes: { path: string; text: string; before: string | null }[];
  /** The command an execute call runs, granted once to a client terminal when allowed. */
  command: string | undefined;
}

async function gateRequest(turn: AcpTurnContext, state: ToolState, options: Options): Promise<PermissionRequest> {
  const cwd = turn.run.record().cwd;
  const lines = [`${turn.agentTitle} asks: ${state.title || state.tool}`];
  const words = agentWords(state);
  if (words !== '') lines.push(`${turn.agentTitle} says why:`, ...words.split('\n').map((line) => `  ${line}`));
  if (state.kind) lines.push(`kind: ${state.kind}`);
  const command = state.kind === 'execute' ? commandOf(state) : undefined;
  if (command !== undefined) lines.push(`command: ${command}`);
  const writes: PermissionRequest['writes'] = [];
  let created = true;
  let size = lines.reduce((sum, line) => sum + line.length + 1, 0);
  for (const item of state.content) {
    if (item.type !== 'diff') continue;
    // Once the action is certain to be past what an approval can show (it is at least size - 1
    // characters), the request is refused whole (askPermission): the rest of the diffs, maybe a
    // hundred thousand of them, need no path resolved.
    if (size - 1 > MAX_ACTION_TEXT) break;
    if (item.oldText !== null && item.oldText !== undefined) created = false;
    const named = displayPath(cwd, resolve(cwd, item.path));
    const real = await turn.run.context.realPath(cwd, item.path);
    const where = real.ok
      ? real.value === resolve(cwd, item.path)
        ? named
        : `${named} (a link: this writes ${displayPath(cwd, real.value)})`
      : `${item.path} (${real.error.message})`;
    const change = real.ok ? await wholeChange(turn, real.value, item.oldText, item.newText) : undefined;
    const before = change?.before ?? item.oldText ?? null;
    const after = change?.after ?? item.newText;
    const header = `${before === null ? 'create' : 'change'} ${where}`;
    const diff = agentDiff(before ?? '', after, named).trimEnd();
    lines.push(header, diff);
    size += header.length + diff.length + 2;
    if (real.ok) writes.push({ path: real.value, text: after, before });
  }
  if (state.rawInput !== undefined && command === undefined && writes.length === 0) {
    lines.push(`input: ${json(state.rawInput)}`);
  }
  if (state.locations.length > 0) {
    lines.push(
      `files: ${state.locations.map((l) => `${l.path}${typeof l.line === 'number' ? `:${l.line}` : ''}`).join(', ')}`,
    );
  }
  lines.push(answersLine(options, turn.agentTitle));
  const action = lines.join('\n');
  if (command !== undefined)
    return { tool: 'shell', need: { kind: 'shell', action, command }, action, writes, command };
  const tool = TETHER_TOOL_NAMES.has(state.tool) ? `agent.${state.tool}` : state.tool;
  const kind = writes.length > 0 ? (created ? 'write' : 'edit') : 'mcp';
  return { tool, need: { kind, action }, action, writes, command };
}

/**
 * A diff whose old text is a part of the file (Claude Code's Edit sends the replaced snippet, then
 * writes the whole file through the client) as the change to the whole file: shown with the file's
 * real lines, and granted as the write it leads to. Only when the part is found exactly once in
 * the file as it is now; otherwise the agent's diff is shown as it came (and a write it then sends
 * asks on its own, with its whole diff).
 */
async function wholeChange(
  turn: AcpTurnContext,
  real: string,
  oldText: string | null | undefined,
  newText: string,
): Promise<{ before: string; after: string } | undefined> {
  if (oldText === null || oldText === undefined || oldText === '') return undefined;
  const read = await turn.run.context.readFile(turn.run.record().cwd, real, MAX_ACP_FILE_BYTES);
  if (!read.ok) return undefined;
  const current = read.value.text;
  if (current === oldText) return undefined;
  const at = current.indexOf(oldText);
  if (at < 0 || current.indexOf(oldText, at + 1) >= 0) return undefined;
  return { before: current, after: `${current.slice(0, at)}${newText}${current.slice(at + oldText.length)}` };
}

/**
 * Which of the agent's options each of Tether's answers picks, in the agent's own words. "For this
 * session" is Tether's rule with the agent's allow-once; the agent's allow-always is its own answer.
 */
function answersLine(options: Options, agent: string): string {
  const name = (option: PermissionOption | undefined) =>
    option ? `“${optionName(option)}”` : 'not offered (the request is cancelled)';
  return [
    `answers: allow once → ${name(options.allowOnce)}`,
    `allow for this session → ${options.allowOnce ? `${name(options.allowOnce)} each time (Tether keeps the rule)` : name(undefined)}`,
    ...(options.allowAlways ? [`always, for every session of ${agent} → ${name(options.allowAlways)}`] : []),
    `deny → ${name(options.reject)}`,
  ].join(' · ');
}

/**
 * The agent's own words on why it asks: the request's text content (Codex: its question, the
 * amendment it proposes and its decisions), and `rawInput.reason` when the text does not hold it.
 */
function agentWords(state: ToolState): string {
  const words = state.asked.map((text) => text.trim()).filter((text) => text !== '');
  const input = state.rawInput as { reason?: unknown } | undefined;
  const reason = typeof input?.reason === 'string' ? input.reason.trim() : '';
  if (reason !== '' && !words.some((text) => text.includes(reason))) words.unshift(reason);
  return words.join('\n');
}

/** The command an execute call runs: its input's `command` (a string, or words), else its title. */
export function commandOf(state: ToolState): string {
  const input = state.rawInput as { command?: unknown; cmd?: unknown } | undefined;
  const value = input?.command ?? input?.cmd;
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (Array.isArray(value) && value.length > 0 && value.every((w) => typeof w === 'string')) {
    return shellWords(value);
  }
  return state.title || state.tool;
}

/**
 * A program and its arguments as one command line: `sh -c LINE` (and the like) is LINE itself,
 * so a command asked for as a line and run as `sh -c` is the same command; anything else is
 * quoted word by word.
 */
export function shellWords(words: readonly string[]): string {
  const [program, flag, line, ...more] = words;
  if (
    program !== undefined &&
    /^(\/(usr\/)?bin\/)?(sh|bash|zsh|dash)$/.test(program) &&
    (flag === '-c' || flag === '-lc') &&
    line !== undefined &&
    more.length === 0
  ) {
    return line;
  }
  return words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(' ');
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
