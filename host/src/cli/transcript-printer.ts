import type { SessionEvent } from '@tether/shared-protocol';

/**
 * Renders a session's events for a terminal. Following live, assistant text appears as its
 * deltas arrive; a whole `message` is printed only when its deltas were not.
 */
export class TranscriptPrinter {
  private streaming: string | undefined;
  private readonly streamed = new Set<string>();

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
        this.out.write(event.text);
        return;
      case 'message':
        if (event.role === 'assistant' && this.streamed.has(event.messageId)) {
          this.endStream();
          return;
        }
        this.endStream();
        this.out.write(event.role === 'user' ? `\n› ${event.text}\n` : `\n${event.text}\n`);
        return;
      case 'tool.started':
        this.endStream();
        this.out.write(`\n⏺ ${event.tool}: ${event.title}\n`);
        return;
      case 'tool.finished': {
        this.endStream();
        const lines = event.output.split('\n');
        const shown = lines
          .slice(0, 12)
          .map((l) => `  │ ${l}`)
          .join('\n');
        const more = lines.length > 12 ? `\n  │ … ${lines.length - 12} more lines` : '';
        this.out.write(`  ${event.ok ? '✓' : '✗'} ${event.tool}\n${shown}${more}\n`);
        return;
      }
      case 'approval.requested': {
        this.endStream();
        const a = event.approval;
        this.out.write(
          `\n┌ approval needed (${a.kind}) in ${a.cwd}\n${a.action
            .split('\n')
            .map((l) => `│ ${l}`)
            .join('\n')}\n└ tether approve ${a.id} allow|deny [--for-session] [--note TEXT]\n`,
        );
        return;
      }
      case 'approval.resolved': {
        this.endStream();
        const a = event.approval;
        const who = a.answeredBy ? ` by ${a.answeredBy.label}` : '';
        const note = a.note ? `: ${a.note}` : '';
        this.out.write(`  → ${a.status === 'allowed' ? `allowed (${a.decision})` : a.status}${who}${note}\n`);
        return;
      }
      case 'run.finished': {
        this.endStream();
        const err = event.error ? `: ${event.error}` : '';
        this.out.write(
          `\n— run ${event.status}${err} (${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens)\n`,
        );
        return;
      }
      case 'notice':
        this.endStream();
        this.out.write(`\n[${event.level}] ${event.text}\n`);
        return;
      case 'session.updated':
        return;
    }
  }

  private endStream(): void {
    if (this.streaming === undefined) return;
    this.streaming = undefined;
    this.out.write('\n');
  }
}
