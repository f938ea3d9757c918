import type {
  ReadTextFileRequest,
  ReadTextFileResponse,
  WriteTextFileRequest,
  WriteTextFileResponse,
} from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import type { ExecError } from '@tether/shared-protocol';
import { MAX_ACTION_TEXT } from '@tether/shared-protocol';
import { displayPath } from '@tether/machine';
import { homeReadApproval } from '../../tools/home-reads.js';
import type { ApprovalNeed } from '../../tools/tool.js';
import { agentDiff } from './acp-diff.js';
import type { AcpTurnContext } from './acp-turn-context.js';

/** Bytes of a file an agent may read or write through the client: 2 MiB, well under an ACP message. */
export const MAX_ACP_FILE_BYTES = 2 * 1024 * 1024;

/** JSON-RPC codes the client answers with (ACP's own where it has one). */
const INVALID_PARAMS = -32602;
const RESOURCE_NOT_FOUND = -32002;
const INTERNAL = -32603;

/**
 * The client side of ACP's `fs/read_text_file` and `fs/write_text_file`, served in the session's
 * folder through its execution context, confined like Tether's own file tools (`..`, absolute
 * paths and links that lead out are refused, and the refusal is a notice in the transcript).
 * Reads need no approval but for a hidden entry of the home folder, which asks as Tether's own read
 * tool does (tools/home-reads.ts); a write asks the approval gate with its whole diff, unless it is
 * exactly a change the person just allowed in a permission request.
 */
export class AcpFiles {
  constructor(private readonly turn: AcpTurnContext) {}

  async read(params: ReadTextFileRequest, signal: AbortSignal): Promise<ReadTextFileResponse> {
    const { run } = this.turn;
    const cwd = run.record().cwd;
    const check = await homeReadApproval({ exec: run.context, cwd }, params.path, 'Read');
    if ('refuse' in check) throw new RequestError(INTERNAL, check.refuse);
    if (check.need) await this.askRead(params.path, check.need, signal);
    const read = await run.context.readFile(cwd, params.path, MAX_ACP_FILE_BYTES);
    if (!read.ok) throw this.refuse('read', params.path, read.error);
    const line = params.line ?? 1;
    if (line === 1 && (params.limit === undefined || params.limit === null)) return { content: read.value.text };
    const lines = read.value.text.split('\n');
    const start = Math.max(0, line - 1);
    const end = params.limit === undefined || params.limit === null ? undefined : start + Math.max(0, params.limit);
    return { content: lines.slice(start, end).join('\n') };
  }

  async write(params: WriteTextFileRequest, signal: AbortSignal): Promise<WriteTextFileResponse> {
    const { run } = this.turn;
    const cwd = run.record().cwd;
    if (Buffer.byteLength(params.content) > MAX_ACP_FILE_BYTES) {
      throw new RequestError(INVALID_PARAMS, `the content is over ${MAX_ACP_FILE_BYTES} bytes`);
    }
    const real = await run.context.realPath(cwd, params.path);
    if (!real.ok) throw this.refuse('write', params.path, real.error);
    const before = await this.current(real.value);
    if (!this.turn.grants.takeWrite(real.value, params.content, before)) {
      await this.ask(params, real.value, before, signal);
      // The file may have changed while the approval waited: then what was approved is not what
      // would happen.
      const now = await this.current(real.value);
      if (now !== before) {
        throw new RequestError(INTERNAL, 'nothing was written: the file changed while the approval waited');
      }
    }
    const written = await run.context.writeFile(cwd, real.value, params.content);
    if (!written.ok) throw this.refuse('write', params.path, written.error);
    return {};
  }

  /** Asks the gate for a write nobody allowed yet, shown as a tool call of its own. */
  private async ask(params: WriteTextFileRequest, real: string, before: string | null, signal: AbortSignal) {
    const { run } = this.turn;
    const shown = displayPath(run.record().cwd, real);
    const diff = agentDiff(before ?? '', params.content, shown);
    const action = `${before === null ? 'Create' : 'Write'} ${shown}\n${diff}`;
    const toolCallId = run.newId('t');
    run.append({
      type: 'tool.started',
      toolCallId,
      tool: 'write_file',
      title: shown.slice(0, 1000),
      input: { path: params.path },
      kind: 'edit',
      locations: [{ path: real }],
    });
    const finish = (ok: boolean, output: string) =>
      run.append({ type: 'tool.finished', toolCallId, tool: 'write_file', ok, output, truncated: false });
    if (action.length > MAX_ACTION_TEXT) {
      finish(false, 'Too large to show for approval.');
      throw new RequestError(INVALID_PARAMS, `the change to ${shown} is too large to show for approval`);
    }
    const outcome = await run.gate.ask(
      {
        toolCallId,
        tool: 'write_file',
        need: { kind: before === null ? 'write' : 'edit', action },
        place: run.context.place,
      },
      signal,
    );
    if (!outcome.allowed) {
      if (outcome.reason === 'denied') this.turn.denied();
      const why = outcome.reason === 'cancelled' ? 'the run was interrupted' : 'the person denied this write';
      finish(false, `Not written: ${why}.`);
      throw new RequestError(INTERNAL, `not written: ${why}`);
    }
    finish(true, `${before === null ? 'Created' : 'Wrote'} ${shown}`);
  }

  /** Asks the gate before a read of a hidden entry of the home folder, shown as a tool call of its own. */
  private async askRead(path: string, need: ApprovalNeed, signal: AbortSignal) {
    const { run } = this.turn;
    const toolCallId = run.newId('t');
    run.append({
      type: 'tool.started',
      toolCallId,
      tool: 'read_file',
      title: path.slice(0, 1000),
      input: { path },
      kind: 'read',
    });
    const outcome = await run.gate.ask({ toolCallId, tool: 'read_file', need, place: run.context.place }, signal);
    const why = outcome.allowed
      ? undefined
      : outcome.reason === 'cancelled'
        ? 'the run was interrupted'
        : 'the person denied this read';
    run.append({
      type: 'tool.finished',
      toolCallId,
      tool: 'read_file',
      ok: why === undefined,
      output: why === undefined ? 'Allowed: the agent reads it.' : `Not read: ${why}.`,
      truncated: false,
    });
    if (why !== undefined) throw new RequestError(INTERNAL, `not read: ${why}`);
  }

  /** The file's text now, or null when it does not exist yet. */
  private async current(real: string): Promise<string | null> {
    const { run } = this.turn;
    const read = await run.context.readFile(run.record().cwd, real, MAX_ACP_FILE_BYTES);
    if (read.ok) return read.value.text;
    if (read.error.code === 'not-found') return null;
    throw this.refuse('write', real, read.error);
  }

  /** The agent's error for a refused file request; one outside the folder is a notice too. */
  private refuse(verb: 'read' | 'write', path: string, error: ExecError): RequestError {
    if (error.code === 'outside-root') {
      this.turn.run.append({
        type: 'notice',
        level: 'warning',
        text: `The agent tried to ${verb} ${path.slice(0, 1000)}, outside the session folder; it was refused.`,
      });
      return new RequestError(INVALID_PARAMS, error.message);
    }
    return new RequestError(error.code === 'not-found' ? RESOURCE_NOT_FOUND : INTERNAL, error.message);
  }
}
