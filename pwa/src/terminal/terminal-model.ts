import type {
  ClientState,
  Clock,
  DeviceClient,
  ProtocolError,
  TetherEvent,
  TimerHandle,
} from '@tether/shared-protocol';
import { TERMINAL_ACK_BYTES, fromBase64Url, systemClock, terminalOutputBytes } from '@tether/shared-protocol';
import { Store } from '../lib/store.js';

/** Milliseconds after the last drawn output before the rest is acknowledged: the host then knows
 * how far this device is even when less than TERMINAL_ACK_BYTES came. */
const ACK_DELAY_MS = 200;
/** Characters of typed or pasted input waiting to be sent: 1 MiB; more is refused (the paste is
 * too large), never queued without bound. */
export const MAX_PENDING_INPUT_CHARS = 1024 * 1024;
/** Characters per `terminals.input` call (the method's own limit). */
const INPUT_CALL_CHARS = 64 * 1024;

export type TerminalStatus =
  /** Attaching for the first time. */
  | { name: 'connecting' }
  | { name: 'live' }
  /** The connection dropped (or the host detached this device): the screen waits to be brought up to date. */
  | { name: 'reconnecting'; reason?: string }
  | { name: 'exited'; code: number | null; signal: string | null }
  /** The terminal is no more (closed, idle too long, the host restarted), or this device may not use it. */
  | { name: 'gone'; error: ProtocolError };

/** Where output is drawn: an xterm in the app, a recorder in tests. */
export interface TerminalSink {
  /** Draws bytes (a UTF-8 stream, split anywhere); `done` once they are on the screen. */
  write(data: Uint8Array, done: () => void): void;
  /** Clears the screen and every mode, before a snapshot is drawn on it. */
  reset(): void;
}

export type TerminalClient = Pick<DeviceClient, 'call' | 'onEvent' | 'onState' | 'state'>;

type Op = { kind: 'reset' } | { kind: 'write'; data: Uint8Array; end: number | undefined };

/**
 * One terminal as this device shows it: the output stream by byte offset (what was drawn is
 * acknowledged, so the host keeps sending), reattached from the last offset after every reconnect
 * or detach, with the current screen instead when the host no longer holds what was missed.
 * Input is sent in order, coalesced while a call is on its way. Knows nothing of the DOM.
 */
export class TerminalModel {
  readonly status = new Store<TerminalStatus>({ name: 'connecting' });
  /** Output offset of the next byte expected. */
  private received = 0;
  /** Output offset drawn on the screen, and acknowledged to the host. */
  private drawn = 0;
  private acked = 0;
  private exit: { code: number | null; signal: string | null; offset: number } | undefined;
  private sink: TerminalSink | undefined;
  /** Output that came before there was a screen to draw it on. */
  private queued: Op[] = [];
  private outgoing = '';
  private sending = false;
  private size: { cols: number; rows: number } | undefined;
  private sentSize: string | undefined;
  private ackTimer: TimerHandle | undefined;
  private attaching = 0;
  private readonly stops: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly client: TerminalClient,
    readonly terminalId: string,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Bytes of output taken so far (the offset a reattach asks from). */
  get offset(): number {
    return this.received;
  }

  start(): void {
    this.stops.push(
      this.client.onEvent((event) => this.event(event)),
      this.client.onState((state) => this.connection(state)),
    );
    this.connection(this.client.state);
  }

  /** Stops following the terminal on this device; the terminal itself goes on. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const stop of this.stops.splice(0)) stop();
    if (this.ackTimer !== undefined) this.clock.clearTimeout(this.ackTimer);
    if (this.client.state.name === 'open') void this.client.call('terminals.detach', { terminalId: this.terminalId });
  }

  /** Ends the terminal for every device (hangs up its shell). */
  async close(): Promise<void> {
    await this.client.call('terminals.close', { terminalId: this.terminalId });
    this.status.set({ name: 'gone', error: { code: 'not-found', message: 'the terminal was closed' } });
    this.stop();
  }

  setSink(sink: TerminalSink | undefined): void {
    this.sink = sink;
    if (!sink) return;
    for (const op of this.queued.splice(0)) this.apply(op);
  }

  /** What was typed or pasted: sent in order; false when too much is waiting already. */
  input(data: string): boolean {
    if (data === '') return true;
    if (this.outgoing.length + data.length > MAX_PENDING_INPUT_CHARS) return false;
    this.outgoing += data;
    if (!this.sending) void this.sendInput();
    return true;
  }

  /** The size this device shows; the host's terminal follows the device that sized it last. */
  resize(cols: number, rows: number): void {
    this.size = { cols, rows };
    this.sendSize();
  }

  private connection(state: ClientState): void {
    if (this.stopped) return;
    if (state.name === 'open') return void this.attach();
    const now = this.status.get();
    if (now.name === 'live' || now.name === 'connecting') this.status.set({ name: 'reconnecting' });
    this.sentSize = undefined;
  }

  private async attach(): Promise<void> {
    const attempt = ++this.attaching;
    const now = this.status.get().name;
    if (now === 'gone') return;
    if (now === 'live') this.status.set({ name: 'reconnecting' });
    // Output as binary messages: the bytes as they are, no base64 to undo.
    const result = await this.client.call('terminals.attach', {
      terminalId: this.terminalId,
      after: this.received,
      binary: true,
    });
    if (attempt !== this.attaching || this.stopped) return;
    if (!result.ok) {
      // A dropped connection attaches again when it reopens; anything else is final.
      if (result.error.code === 'disconnected' || result.error.code === 'timeout') return;
      this.status.set({ name: 'gone', error: result.error });
      return;
    }
    this.sentSize = undefined;
    this.sendSize();
    this.settle();
  }

  private event(event: TetherEvent): void {
    if (this.stopped || !('terminalId' in event) || event.terminalId !== this.terminalId) return;
    switch (event.type) {
      case 'terminal.output':
        return this.output(event.offset, terminalOutputBytes(event.data));
      case 'terminal.screen': {
        const data = fromBase64Url(event.data);
        if (!data) return;
        this.received = event.offset;
        this.drawn = Math.min(this.drawn, event.offset);
        this.acked = Math.min(this.acked, event.offset);
        this.push({ kind: 'reset' });
        this.push({ kind: 'write', data, end: event.offset });
        // A screen can be the last thing a device behind gets before the program's exit.
        return this.settle();
      }
      case 'terminal.exit':
        this.exit = { code: event.code, signal: event.signal ?? null, offset: event.offset ?? this.received };
        return this.settle();
      case 'terminal.detached':
        this.status.set({ name: 'reconnecting', reason: event.reason });
        if (this.client.state.name === 'open') void this.attach();
        return;
    }
  }

  private output(offset: number, data: Uint8Array | undefined): void {
    if (!data) return;
    const end = offset + data.length;
    if (end <= this.received) return; // already drawn (an overlap after a reattach)
    if (offset > this.received) {
      // Bytes went missing between two chunks: ask again from what is held.
      if (this.client.state.name === 'open') void this.attach();
      return;
    }
    this.push({ kind: 'write', data: data.subarray(this.received - offset), end });
    this.received = end;
    this.settle();
  }

  /** Live, or exited once every byte before the exit is in. */
  private settle(): void {
    if (this.exit && this.received >= this.exit.offset) {
      this.status.set({ name: 'exited', code: this.exit.code, signal: this.exit.signal });
    } else if (this.status.get().name !== 'gone' && this.client.state.name === 'open') {
      this.status.set({ name: 'live' });
    }
  }

  private push(op: Op): void {
    if (this.sink) this.apply(op);
    else this.queued.push(op);
  }

  private apply(op: Op): void {
    const sink = this.sink!;
    if (op.kind === 'reset') return sink.reset();
    sink.write(op.data, () => {
      if (op.end === undefined || op.end <= this.drawn) return;
      this.drawn = op.end;
      this.ack();
    });
  }

  private ack(): void {
    if (this.drawn - this.acked >= TERMINAL_ACK_BYTES) return this.sendAck();
    if (this.ackTimer === undefined && this.drawn > this.acked) {
      this.ackTimer = this.clock.setTimeout(() => {
        this.ackTimer = undefined;
        this.sendAck();
      }, ACK_DELAY_MS);
    }
  }

  private sendAck(): void {
    if (this.stopped || this.drawn <= this.acked || this.client.state.name !== 'open') return;
    this.acked = this.drawn;
    void this.client.call('terminals.ack', { terminalId: this.terminalId, offset: this.drawn });
  }

  private sendSize(): void {
    if (!this.size || this.client.state.name !== 'open') return;
    const key = `${this.size.cols}x${this.size.rows}`;
    if (key === this.sentSize) return;
    this.sentSize = key;
    void this.client.call('terminals.resize', { terminalId: this.terminalId, ...this.size });
  }

  private async sendInput(): Promise<void> {
    this.sending = true;
    while (this.outgoing !== '' && !this.stopped) {
      const data = this.outgoing.slice(0, INPUT_CALL_CHARS);
      this.outgoing = this.outgoing.slice(data.length);
      await this.client.call('terminals.input', { terminalId: this.terminalId, data });
    }
    this.sending = false;
  }
}
