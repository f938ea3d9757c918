import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { SessionEventBody } from '@tether/shared-protocol';
import type { RunContext } from '../session-backend.js';
import { blockText } from './acp-content-text.js';
import { AcpUpdateLog, MAX_MESSAGE_CHARS } from './acp-update-log.js';

/** Events of a replayed conversation kept at most: the newest; older ones are left out and counted. */
export const MAX_HISTORY_EVENTS = 1000;
/** Characters (of the events as JSON) of a replayed conversation kept at most, the same way. */
export const MAX_HISTORY_CHARS = 4 * 1024 * 1024;

type HistoryRun = Pick<RunContext, 'append' | 'clock' | 'newId' | 'record'>;

/**
 * The conversation an agent replays as `session/update` notifications when it loads a session
 * that was started elsewhere (at the computer), as the Tether session's transcript: the person's
 * and the agent's messages, tool calls with their titles, files and diffs, plans. Thoughts and
 * the rest are left out, as in a live run. Nothing is written until the load has succeeded
 * (`finish`): a load that fails leaves the log as it was. Bounded: only the newest
 * MAX_HISTORY_EVENTS events and MAX_HISTORY_CHARS are kept, however much the agent sends.
 */
export class AcpHistory {
  private readonly kept: { body: SessionEventBody; chars: number }[] = [];
  private chars = 0;
  /** Events left out, oldest first, to stay inside the bounds. */
  private dropped = 0;
  private message: { role: 'user' | 'assistant'; id: string; text: string } | undefined;
  private readonly tools: AcpUpdateLog;
  /** Updates the agent sent, and those that are not part of a transcript (thoughts, modes, usage). */
  updates = 0;
  skipped = 0;

  constructor(private readonly run: HistoryRun) {
    this.tools = new AcpUpdateLog({
      run: {
        append: (body) => this.keep(body),
        clock: run.clock,
        newId: run.newId,
        record: () => run.record(),
      },
      // A replayed tool call shows what the agent recorded; no terminal of this client ran it.
      terminalOutput: () => undefined,
    });
  }

  record(update: SessionUpdate): void {
    this.updates++;
    switch (update.sessionUpdate) {
      case 'user_message_chunk':
        return this.addText('user', blockText(update.content));
      case 'agent_message_chunk':
        return this.addText('assistant', blockText(update.content));
      case 'tool_call':
      case 'tool_call_update':
      case 'plan':
        this.endMessage();
        return this.tools.update(update);
      default:
        this.skipped++;
    }
  }

  /** The load succeeded: what was kept goes into the log, after a notice of what was left out. */
  finish(): number {
    this.endMessage();
    this.tools.close('The earlier session did not say how this ended.');
    if (this.dropped > 0) {
      this.run.append({
        type: 'notice',
        level: 'info',
        text: `The earlier conversation is longer than Tether keeps of it: its oldest ${this.dropped} events are left out.`,
      });
    }
    for (const { body } of this.kept) this.run.append(body);
    const written = this.kept.length;
    this.kept.length = 0;
    this.chars = 0;
    return written;
  }

  private addText(role: 'user' | 'assistant', text: string): void {
    if (this.message && this.message.role !== role) this.endMessage();
    let rest = text;
    while (rest !== '') {
      this.message ??= { role, id: this.run.newId('m'), text: '' };
      const piece = rest.slice(0, MAX_MESSAGE_CHARS - this.message.text.length);
      rest = rest.slice(piece.length);
      this.message.text += piece;
      if (this.message.text.length >= MAX_MESSAGE_CHARS) this.endMessage();
    }
  }

  private endMessage(): void {
    const message = this.message;
    this.message = undefined;
    if (!message || message.text === '') return;
    this.keep({ type: 'message', messageId: message.id, role: message.role, text: message.text });
  }

  private keep(body: SessionEventBody): void {
    const chars = JSON.stringify(body).length;
    this.kept.push({ body, chars });
    this.chars += chars;
    while (this.kept.length > MAX_HISTORY_EVENTS || (this.chars > MAX_HISTORY_CHARS && this.kept.length > 1)) {
      this.chars -= this.kept.shift()!.chars;
      this.dropped++;
    }
  }
}
