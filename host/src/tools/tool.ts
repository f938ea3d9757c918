import type { Approval, ExecError, Result } from '@tether/shared-protocol';
import { MAX_TOOL_OUTPUT_EVENT } from '@tether/shared-protocol';
import type { ExecutionContext } from '@tether/machine';
import type { ToolSpec } from '../models/types.js';

export interface ToolContext {
  sessionId: string;
  /** The session's folder: every file tool is confined to it. */
  cwd: string;
  exec: ExecutionContext;
  signal: AbortSignal;
}

/** What a tool asks the person before it runs. */
export interface ApprovalNeed {
  kind: Approval['kind'];
  /** The complete action: the whole command, the whole diff. Never shortened. */
  action: string;
  /** For `shell`: the command, which "allow for this session" rules match against. */
  command?: string;
  /**
   * For `shell`: the absolute folder the command runs in, when it is not the session folder (an
   * ACP agent's `cwd`, inside it); also shown in `action`. No session rule covers such a command,
   * and none can be made from it.
   */
  cwd?: string;
  /**
   * For `shell`: variables the command brings into its environment (an ACP agent's `env`), also
   * shown in `action`. No session rule covers such a command, and none can be made from it.
   */
  env?: Readonly<Record<string, string>>;
  /**
   * For a read of a hidden entry of the home folder: the entry's real path. "Allow for this
   * session" then allows that tool's reads of this entry only, never the tool at large.
   */
  path?: string;
}

/** `unreachable`: the refusal is that the place the tool acts on cannot be reached now. */
export type ApprovalCheck = { need: ApprovalNeed | null } | { refuse: string; unreachable?: true };

export interface ToolOutcome {
  ok: boolean;
  output: string;
  truncated?: boolean;
  exitCode?: number | null;
  /**
   * The place the tool acts on (an offline machine) could not be reached, so nothing was done
   * and `output` says why. The run ends instead of the model being told: it can do nothing
   * about it, and would only try again.
   */
  unreachable?: true;
  /** A file the tool wrote: logged as `file.changed` for the session's Changes view. */
  change?: FileChange;
}

/** What a write did to a file: its path, whether it is new, and the text before and after. */
export interface FileChange {
  path: string;
  created: boolean;
  before: string;
  after: string;
}

/** A tool's output as its `tool.finished` event carries it: cut, and said so, past the event's limit. */
export function eventOutput(output: string): string {
  return output.length > MAX_TOOL_OUTPUT_EVENT
    ? `${output.slice(0, MAX_TOOL_OUTPUT_EVENT - 40)}\n… [output cut]`
    : output;
}

/** The outcome of a tool whose execution context answered with an error. */
export function failedOutcome(error: ExecError): ToolOutcome {
  return { ok: false, output: error.message, ...(error.code === 'unreachable' ? { unreachable: true } : {}) };
}

/** The approval check of a tool that could not even look (at a file, say) for an error. */
export function refusal(error: ExecError): ApprovalCheck {
  return { refuse: error.message, ...(error.code === 'unreachable' ? { unreachable: true } : {}) };
}

export interface Tool<I = unknown> {
  spec: ToolSpec;
  /** Decodes the model's arguments; a message the model can act on when they are wrong. */
  parse(input: unknown): Result<I>;
  /** One line for a collapsed row: the command, the file, the pattern. */
  title(input: I): string;
  /** Whether running `input` needs the person's approval (null: it runs without asking). */
  approval(input: I, context: ToolContext): Promise<ApprovalCheck>;
  run(input: I, context: ToolContext): Promise<ToolOutcome>;
}

/** Erases the input type, for registries that hold tools of every kind. */
export type AnyTool = Tool<never> & { parse(input: unknown): Result<unknown> };

export function asAnyTool<I>(tool: Tool<I>): AnyTool {
  return tool as unknown as AnyTool;
}
