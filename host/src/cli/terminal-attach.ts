import { StringDecoder } from 'node:string_decoder';
import { TERMINAL_ACK_BYTES, fromBase64Url, visibleText, terminalOutputBytes } from '@tether/shared-protocol';
import type { ControlClient, TerminalEvent } from '../control/control-client.js';

/** Ctrl-], the key that detaches this computer's terminal and leaves the program running. */
export const DETACH_KEY = '\x1d';
/** Characters of input sent in one call (the protocol's bound is 64 KiB; a paste is split). */
const INPUT_CHUNK = 16 * 1024;

export interface AttachOptions {
  client: ControlClient;
  terminalId: string;
  /** The name `tether attach` knows the program by, for the messages. */
  name: string;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  /** From the program's first byte (`tether run`), rather than from its current screen. */
  fromStart?: boolean;
}

export type AttachOutcome =
  | { kind: 'exited'; code: number | null; signal: string | null }
  | { kind: 'detached' }
  | { kind: 'lost'; reason: string };

/**
 * This computer's terminal attached to a terminal the host holds, as `tmux attach` does: what the
 * program draws is written out, keys go to the program, the window's size follows; Ctrl-] detaches
 * and the program goes on. Output is acknowledged only once written, so a slow terminal here holds
 * the program back rather than filling memory.
 */
export async function attachTerminal(options: AttachOptions): Promise<AttachOutcome> {
  const { client, terminalId, input, output } = options;
  const size = () => ({ cols: output.columns || 80, rows: output.rows || 24 });
  await client.call('terminals.resize', { terminalId, ...size() });

  let settle!: (outcome: AttachOutcome) => void;
  const done = new Promise<AttachOutcome>((resolve) => (settle = resolve));
  let written = 0;
  let acked = 0;
  let finished = false;
  const finish = (outcome: AttachOutcome) => {
    if (finished) return;
    finished = true;
    settle(outcome);
  };

  const ackIfDue = (end: number) => {
    written = end;
    if (written - acked < TERMINAL_ACK_BYTES) return;
    acked = written;
    void client.call('terminals.ack', { terminalId, offset: written });
  };
  client.onTerminalEvent((event: TerminalEvent) => {
    if (finished || event.terminalId !== terminalId) return;
    switch (event.type) {
      case 'terminal.screen': {
        output.write('\x1b[H\x1b[2J');
        output.write(fromBase64Url(event.data) ?? new Uint8Array(), () => ackIfDue(event.offset));
        return;
      }
      case 'terminal.output': {
        const data = terminalOutputBytes(event.data) ?? new Uint8Array();
        output.write(data, () => ackIfDue(event.offset + data.length));
        return;
      }
      case 'terminal.exit':
        return finish({ kind: 'exited', code: event.code, signal: event.signal ?? null });
      case 'terminal.detached':
        return finish({ kind: 'lost', reason: event.reason });
    }
  });
  client.onClose(() => finish({ kind: 'lost', reason: 'the host stopped' }));

  const attached = await client.call('terminals.attach', {
    terminalId,
    ...(options.fromStart ? { after: 0 } : { screen: true }),
  });
  if (!attached.ok) return { kind: 'lost', reason: attached.error.message };
  written = acked = attached.value.offset;

  const decoder = new StringDecoder('utf8');
  const onInput = (chunk: Buffer) => {
    const text = decoder.write(chunk);
    const detachAt = text.indexOf(DETACH_KEY);
    const keys = detachAt === -1 ? text : text.slice(0, detachAt);
    for (let i = 0; i < keys.length; i += INPUT_CHUNK) {
      void client.call('terminals.input', { terminalId, data: keys.slice(i, i + INPUT_CHUNK) });
    }
    if (detachAt !== -1) finish({ kind: 'detached' });
  };
  const onResize = () => void client.call('terminals.resize', { terminalId, ...size() });
  const raw = input.isTTY === true;
  if (raw) input.setRawMode(true);
  input.on('data', onInput);
  input.on('end', () => finish({ kind: 'detached' }));
  input.resume();
  output.on('resize', onResize);

  const outcome = await done;
  input.off('data', onInput);
  output.off('resize', onResize);
  if (raw) input.setRawMode(false);
  input.pause();
  if (outcome.kind === 'detached') await client.call('terminals.detach', { terminalId });
  return outcome;
}

/** What the person reads when the attachment ends, on a line of its own. */
export function attachEndLine(outcome: AttachOutcome, name: string): string {
  const shown = visibleText(name);
  switch (outcome.kind) {
    case 'detached':
      return `[detached: ${shown} goes on; tether attach ${shown} returns to it]`;
    case 'exited':
      return outcome.signal
        ? `[${shown} was ended by ${visibleText(outcome.signal)}]`
        : `[${shown} exited with code ${outcome.code ?? 'unknown'}]`;
    case 'lost':
      return `[no longer attached to ${shown}: ${visibleText(outcome.reason)}]`;
  }
}
