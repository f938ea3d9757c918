import type { SessionEvent } from '@tether/shared-protocol';
import { compactionLine, visibleText } from '@tether/shared-protocol';
import { actionBlock, approvalOutcome, linesNote } from './approval-lines.js';

/** Lines of a tool's output shown in a transcript; the rest is counted. */
export const TOOL_OUTPUT_LINES = 12;

/** Lines of a tool's diff shown in a transcript; the rest is counted (`tether approvals` shows a
 * diff that waits for an answer whole). */
export const TOOL_DIFF_LINES = 40;

const PLAN_MARK = { pending: '☐', in_progress: '▶', completed: '☑' } as const;

function diffBlock(diff: string, truncated: boolean): string {
  const all = diff.replace(/\n$/, '').split('\n');
  const shown = all.slice(0, TOOL_DIFF_LINES).map((l) => `  ┊ ${line(l)}`);
  if (all.length > TOOL_DIFF_LINES) shown.push(`  ┊ … ${all.length - TOOL_DIFF_LINES} more lines`);
  else if (truncated) shown.push('  ┊ … cut short');
  return shown.join('\n');
}

/** A byte count as a person reads it: 812 B, 45 KB, 1.3 MB. */
function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1000)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** Multi-line text (messages, output) with every hidden character shown as a mark. */
const lines = (text: string) => visibleText(text, { multiline: true });
/** One-line text (titles, names, labels, errors): a newline is shown as a mark too. */
const line = (text: string) => visibleText(text);

/**
 * Renders a session's events for a terminal. Following live, assistant text appears as its
 * deltas arrive; a whole `message` is printed only when its deltas were not. Everything that came
 * from the model, a tool, a file or a device is escaped (`visibleText`) before it is written.
 */
export class TranscriptPrinter {
  private streaming: string | undefined;
  private readonly streamed = new Set<string>();
  /** A high surrogate that ended the last delta: its pair starts the next one. */
  private heldSurrogate = '';

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly live: boolean,
  ) {}

  print(event: SessionEvent): void {
    switch (event.type) {
      case 'message.delta':
        if (!this.live) return;
        if (this.streaming !== event.messageId) {
          this.endStream();
          this.out.write('\n');
          this.streaming = event.messageId;
          this.streamed.add(event.messageId);
        }
        this.out.write(lines(this.joinSurrogates(event.text)));
        return;
      case 'message':
        if (event.role === 'assistant' && this.streamed.has(event.messageId)) {
          this.endStream();
          return;
        }
        this.endStream();
        this.out.write(event.role === 'user' ? `\n› ${lines(event.text)}\n` : `\n${lines(event.text)}\n`);
        for (const a of event.attachments ?? [])
          this.out.write(`  📎 ${line(a.name)} (${a.type}, ${sizeText(a.size)})\n`);
        return;
      case 'tool.started':
        this.endStream();
        this.out.write(`\n⏺ ${line(event.tool)}: ${line(event.title)}\n`);
        return;
      case 'tool.finished': {
        this.endStream();
        const outputLines = event.output.split('\n');
        const shown = outputLines
          .slice(0, TOOL_OUTPUT_LINES)
          .map((l) => `  │ ${line(l)}`)
          .join('\n');
        const more =
          outputLines.length > TOOL_OUTPUT_LINES ? `\n  │ … ${outputLines.length - TOOL_OUTPUT_LINES} more lines` : '';
        this.out.write(`  ${event.ok ? '✓' : '✗'} ${line(event.tool)}\n${shown}${more}\n`);
        if (event.diff) this.out.write(`${diffBlock(event.diff, event.diffTruncated ?? false)}\n`);
        return;
      }
      case 'tool.updated':
        // Shown whole when the call finishes; a title that changes is worth a line now.
        if (event.title === undefined) return;
        this.endStream();
        this.out.write(`  ⋯ ${line(event.tool)}: ${line(event.title)}\n`);
        return;
      case 'plan':
        this.endStream();
        this.out.write(
          `\nPlan:\n${event.entries.map((entry) => `  ${PLAN_MARK[entry.status]} ${line(entry.content)}`).join('\n')}\n`,
        );
        return;
      case 'approval.requested': {
        this.endStream();
        const a = event.approval;
        const note = linesNote(a.action);
        const answer =
          a.kind === 'plan'
            ? `tether approve ${a.id} allow (accept the plan) | deny --note "what to change"`
            : `tether approve ${a.id} allow|deny [--for-session] [--note TEXT]`;
        this.out.write(
          `\n┌ approval needed (${a.kind}${note ? `, ${note}` : ''}) in ${line(a.cwd)}\n${actionBlock(a.action)}\n└ ${answer}\n`,
        );
        return;
      }
      case 'approval.resolved': {
        this.endStream();
        this.out.write(`  → ${approvalOutcome(event.approval)}\n`);
        return;
      }
      case 'run.finished': {
        this.endStream();
        const err = event.error ? `: ${line(event.error)}` : '';
        const usage =
          event.usageReported === false
            ? 'tokens not reported'
            : `${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens`;
        this.out.write(`\n— run ${event.status}${err} (${usage})\n`);
        return;
      }
      case 'notice':
        this.endStream();
        this.out.write(`\n[${event.level}] ${lines(event.text)}\n`);
        return;
      case 'context.compacted':
        this.endStream();
        this.out.write(`\n[context] ${compactionLine(event)}\n`);
        return;
      case 'file.changed':
        this.endStream();
        this.out.write(`  ${event.change} ${lines(event.path)}\n`);
        return;
      case 'session.waiting':
        // A run at its limit or its budget says so in a notice of its own.
        if (event.reason === 'limit' || event.reason === 'budget') return;
        this.endStream();
        this.out.write(`\n[waiting for you] ${line(event.text)}\n`);
        return;
      case 'session.updated':
        return;
    }
  }

  private joinSurrogates(text: string): string {
    const joined = this.heldSurrogate + text;
    const last = joined.charCodeAt(joined.length - 1);
    const high = last >= 0xd800 && last <= 0xdbff;
    this.heldSurrogate = high ? joined.slice(-1) : '';
    return high ? joined.slice(0, -1) : joined;
  }

  private endStream(): void {
    if (this.streaming === undefined) return;
    this.streaming = undefined;
    if (this.heldSurrogate) this.out.write(line(this.heldSurrogate));
    this.heldSurrogate = '';
    this.out.write('\n');
  }
}
