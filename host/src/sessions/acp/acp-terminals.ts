import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  TerminalExitStatus,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import type { ProcessHandle, SpawnCommand } from '@tether/machine';
import { MAX_ACTION_TEXT } from '@tether/shared-protocol';
import { displayPath } from '@tether/machine';
import { resolve } from 'node:path';
import type { ApprovalNeed } from '../../tools/tool.js';
import type { AgentEnvCheck } from './acp-command-env.js';
import { allowedText, checkAgentEnv, envText, markersText, rowTitle } from './acp-command-env.js';
import { shellWords } from './acp-permission.js';
import type { AcpTurnContext } from './acp-turn-context.js';

/** Client terminals one run of an agent may hold at once; one more is refused. */
export const MAX_ACP_TERMINALS = 16;
/** Bytes of output a terminal keeps (the newest), whatever larger limit the agent asks for. */
export const MAX_TERMINAL_OUTPUT_BYTES = 1024 * 1024;

const INVALID_PARAMS = -32602;
const RESOURCE_NOT_FOUND = -32002;
const INTERNAL = -32603;

interface Terminal {
  handle: ProcessHandle;
  /** The newest output, at most `limit` bytes. */
  output: Buffer;
  limit: number;
  truncated: boolean;
  exit: TerminalExitStatus | undefined;
  exited: Promise<TerminalExitStatus>;
  /** The tool row shown for a command that was asked for here rather than in a permission request. */
  toolCallId: string | undefined;
}

/**
 * The client side of ACP's terminals: commands the agent runs through Tether, each a process
 * started through the session's execution context, its working folder confined to the session's
 * folder. A `command` with arguments runs as that program; one without is a shell line for
 * `/bin/sh -c`, as editors run it. A command asks the approval gate (shown whole, `shell`, so "allow for this session"
 * rules apply to it as to Tether's own shell tool) unless it is exactly the command the person
 * just allowed in a permission request. Every terminal ends with the run.
 */
export class AcpTerminals {
  private readonly terminals = new Map<string, Terminal>();
  /** Output of released terminals, still shown by the tool calls that embed them (the newest few). */
  private readonly released = new Map<string, string>();

  constructor(private readonly turn: AcpTurnContext) {}

  async create(params: CreateTerminalRequest, signal: AbortSignal): Promise<CreateTerminalResponse> {
    const { run } = this.turn;
    if (this.terminals.size >= MAX_ACP_TERMINALS) {
      throw new RequestError(INTERNAL, `${MAX_ACP_TERMINALS} terminals are open already; release one first`);
    }
    // Without arguments, `command` is a whole shell line (Zed runs it through the shell, and
    // adapters such as Claude Code's send exactly that): it is shown, granted and run as that line.
    const args = params.args ?? [];
    if (params.command.trim() === '') throw new RequestError(INVALID_PARAMS, 'the command is empty');
    const command: SpawnCommand = args.length === 0 ? { shell: params.command } : { program: params.command, args };
    const line = 'shell' in command ? command.shell : shellWords([params.command, ...args]);
    const cwd = run.record().cwd;
    const checked = checkAgentEnv(params.env ?? [], this.turn.allowedEnv);
    if (!checked.ok) {
      if (checked.reason !== 'invalid')
        run.append({ type: 'notice', level: 'warning', text: this.envNotice(line, checked) });
      throw new RequestError(INVALID_PARAMS, checked.message);
    }
    const { env, own } = checked;
    // The folder it runs in, when not the session folder, and the agent's variables: shown after
    // the line, and part of what a grant must match. The adapter's markers are shown, not matched.
    const where = params.cwd !== undefined && params.cwd !== null ? resolve(cwd, params.cwd) : cwd;
    // A folder outside the session's is refused before anyone is asked: no answer could let it run.
    if (where !== resolve(cwd)) {
      const real = await run.context.realPath(cwd, where);
      if (!real.ok && real.error.code === 'outside-root') {
        run.append({
          type: 'notice',
          level: 'warning',
          text: `The agent tried to run a command in ${String(params.cwd).slice(0, 1000)}, outside the session folder; it was refused.`,
        });
        throw new RequestError(INVALID_PARAMS, real.error.message);
      }
    }
    const folderLine = where === resolve(cwd) ? '' : `in folder: ${displayPath(cwd, where)}`;
    const extra = [folderLine, envText(own)].filter((text) => text !== '').join('\n');
    const allowed = allowedText(Object.keys(own).filter((name) => this.turn.allowedEnv.has(name)));
    const shown = [line, extra, allowed, markersText(checked.markers)].filter((text) => text !== '');
    const action = shown.join('\n');
    let toolCallId: string | undefined;
    if (!this.turn.grants.takeCommand(line, extra)) {
      if (action.length > MAX_ACTION_TEXT)
        throw new RequestError(INVALID_PARAMS, 'the command is too long to show for approval');
      toolCallId = run.newId('t');
      run.append({
        type: 'tool.started',
        toolCallId,
        tool: 'shell',
        title: rowTitle(line, extra),
        input: {
          command: params.command,
          args,
          ...(params.cwd ? { cwd: params.cwd } : {}),
          ...(Object.keys(env).length > 0 ? { env } : {}),
        },
        kind: 'execute',
      });
      const need: ApprovalNeed = {
        kind: 'shell',
        action,
        command: line,
        ...(folderLine !== '' ? { cwd: where } : {}),
        ...(Object.keys(own).length > 0 ? { env: own } : {}),
      };
      const outcome = await run.gate.ask({ toolCallId, tool: 'shell', need, place: run.context.place }, signal);
      if (!outcome.allowed) {
        if (outcome.reason === 'denied') this.turn.denied();
        const why = outcome.reason === 'cancelled' ? 'the run was interrupted' : 'the person denied this command';
        run.append({
          type: 'tool.finished',
          toolCallId,
          tool: 'shell',
          ok: false,
          output: `Not run: ${why}.`,
          truncated: false,
        });
        throw new RequestError(INTERNAL, `not run: ${why}`);
      }
    }
    const spawned = await run.context.spawn({
      command,
      cwd: params.cwd ?? cwd,
      root: cwd,
      env,
    });
    if (!spawned.ok) {
      if (spawned.error.code === 'outside-root') {
        run.append({
          type: 'notice',
          level: 'warning',
          text: `The agent tried to run a command in ${String(params.cwd).slice(0, 1000)}, outside the session folder; it was refused.`,
        });
      }
      if (toolCallId !== undefined) {
        run.append({
          type: 'tool.finished',
          toolCallId,
          tool: 'shell',
          ok: false,
          output: spawned.error.message,
          truncated: false,
        });
      }
      throw new RequestError(spawned.error.code === 'outside-root' ? INVALID_PARAMS : INTERNAL, spawned.error.message);
    }
    const id = run.newId('term');
    const requested = params.outputByteLimit ?? MAX_TERMINAL_OUTPUT_BYTES;
    const terminal: Terminal = {
      handle: spawned.value,
      output: Buffer.alloc(0),
      limit: Math.max(0, Math.min(MAX_TERMINAL_OUTPUT_BYTES, requested)),
      truncated: false,
      exit: undefined,
      exited: Promise.resolve({}),
      toolCallId,
    };
    spawned.value.onOutput((_stream, chunk) => this.append(terminal, chunk));
    terminal.exited = spawned.value.exited.then((exited) => {
      terminal.exit = exited.ok
        ? { exitCode: exited.value.code, signal: exited.value.signal }
        : { exitCode: null, signal: null };
      if (terminal.toolCallId !== undefined) {
        const output = terminal.output.toString('utf8');
        run.append({
          type: 'tool.finished',
          toolCallId: terminal.toolCallId,
          tool: 'shell',
          ok: terminal.exit.exitCode === 0,
          output: output.slice(-60_000),
          truncated: terminal.truncated || output.length > 60_000,
          exitCode: terminal.exit.exitCode ?? null,
        });
      }
      return terminal.exit;
    });
    this.terminals.set(id, terminal);
    return { terminalId: id };
  }

  /** What the person is told of a command refused for a variable: why, and how to allow it where one can. */
  private envNotice(line: string, refused: Extract<AgentEnvCheck, { reason: 'loads-code' | 'not-inert' }>): string {
    const asked = `The agent asked to run “${line.slice(0, 200)}” with ${refused.name} set`;
    if (refused.reason === 'loads-code') return `${asked} (${refused.why}); it was refused.`;
    return `${asked}; it was refused: ${refused.name} is not known to be inert, and a variable can make a command run other code. To let ${this.turn.agentTitle} set it, add "allowEnv": ["${refused.name}"] to its entry in agents.json: each command that sets it still asks, showing its value.`;
  }

  output(terminalId: string): TerminalOutputResponse {
    const terminal = this.get(terminalId);
    return {
      output: terminal.output.toString('utf8'),
      truncated: terminal.truncated,
      ...(terminal.exit ? { exitStatus: terminal.exit } : {}),
    };
  }

  /** The output as the transcript shows it in the tool call that embeds the terminal. */
  text(terminalId: string): string | undefined {
    return this.terminals.get(terminalId)?.output.toString('utf8') ?? this.released.get(terminalId);
  }

  async waitForExit(terminalId: string): Promise<WaitForTerminalExitResponse> {
    return this.get(terminalId).exited;
  }

  kill(terminalId: string): Record<string, never> {
    this.get(terminalId).handle.kill();
    return {};
  }

  release(terminalId: string): Record<string, never> {
    const terminal = this.get(terminalId);
    if (!terminal.exit) terminal.handle.kill();
    this.terminals.delete(terminalId);
    this.released.set(terminalId, terminal.output.toString('utf8'));
    if (this.released.size > MAX_ACP_TERMINALS) this.released.delete(this.released.keys().next().value!);
    return {};
  }

  /** The run ended: whatever still runs is ended with it, and said so now (the log ends with the run). */
  closeAll(): void {
    for (const terminal of this.terminals.values()) {
      if (terminal.exit) continue;
      if (terminal.toolCallId !== undefined) {
        this.turn.run.append({
          type: 'tool.finished',
          toolCallId: terminal.toolCallId,
          tool: 'shell',
          ok: false,
          output: 'Stopped: the run ended.',
          truncated: false,
        });
        terminal.toolCallId = undefined;
      }
      terminal.handle.kill();
    }
    this.terminals.clear();
  }

  private get(terminalId: string): Terminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) throw new RequestError(RESOURCE_NOT_FOUND, `no terminal ${terminalId.slice(0, 100)}`);
    return terminal;
  }

  /** Keeps the newest `limit` bytes, cut at a character boundary. */
  private append(terminal: Terminal, chunk: Uint8Array): void {
    let output = Buffer.concat([terminal.output, chunk]);
    if (output.length > terminal.limit) {
      let start = output.length - terminal.limit;
      // Not in the middle of a UTF-8 sequence: skip its continuation bytes.
      while (start < output.length && (output[start]! & 0xc0) === 0x80) start++;
      output = output.subarray(start);
      terminal.truncated = true;
    }
    terminal.output = output;
  }
}
