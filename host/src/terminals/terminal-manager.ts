import type { OpenTerminalError, ScreenSnapshot, TerminalHandle, TerminalPlace } from '@tether/machine';
import type { ChannelMessage, Clock, ErrorCode, Result, TerminalInfo, TimerHandle } from '@tether/shared-protocol';
import {
  TERMINAL_CHUNK_BYTES,
  TERMINAL_STALL_MS,
  TERMINAL_WINDOW_BYTES,
  encodeTerminalOutput,
  fail,
  ok,
  toBase64Url,
} from '@tether/shared-protocol';
import type { StreamHost } from '../streams/stream-host.js';
import { StreamSubscription } from '../streams/stream-subscription.js';

/** Milliseconds a terminal with no device attached stays open: 30 min, long enough to put the
 * phone away and come back, short enough that forgotten shells do not pile up. A setting. */
export const TERMINAL_IDLE_MS = 30 * 60 * 1000;

export interface TerminalManagerOptions {
  clock: Clock;
  newId: (prefix: string) => string;
  /** Where a terminal opens: `local`, or a machine; a refusal says why (unknown, offline…). */
  place: (machine: string) => Result<TerminalPlace>;
  idleMs?: number;
  windowBytes?: number;
  chunkBytes?: number;
  stallMs?: number;
  /** Milliseconds between two screens sent to a device a window behind. */
  frameMs?: number;
}

export interface OpenParams {
  machine?: string;
  cwd?: string;
  cols: number;
  rows: number;
}

/** How a terminal the host did not open for a device (a wrapped program's) is held. */
export interface AddOptions {
  /** The `terminal` session it belongs to. */
  sessionId?: string;
  /** Kept open while the program runs, attached or not (idle-closed only once it has exited). */
  keep?: boolean;
  /** Once, when the manager lets go of it (closed, idle, or the host stopping). */
  onRemoved?: () => void;
}

interface Entry extends AddOptions {
  id: string;
  machine: string;
  handle: TerminalHandle;
  createdAt: number;
  /** Each attached device's stream, and the connection it is read on. */
  attachments: Map<StreamSubscription, StreamHost>;
  idleTimer: TimerHandle | undefined;
}

/** Milliseconds between two screens sent to a device that fell a window behind: 25 a second,
 * smooth to the eye and a small fraction of the bytes of a flood. */
export const TERMINAL_FRAME_MS = 40;

/** The message carrying a terminal's screen, `dropped` bytes of output after what the device held. */
function screenMessage(terminalId: string, screen: ScreenSnapshot, dropped: number): ChannelMessage {
  const { offset, cols, rows, data } = screen;
  return {
    t: 'evt',
    event: { type: 'terminal.screen', terminalId, offset, dropped, cols, rows, data: toBase64Url(data) },
  };
}

/** The route key of a terminal's output on a device connection. */
export const terminalRoute = (terminalId: string) => `terminal:${terminalId}`;

/**
 * The host's terminals, wherever they run. Each attached device reads a terminal's output as a
 * flow-controlled stream on its connection (a window of unacknowledged bytes; a device a window
 * behind gets the screen at a frame rate until it catches up, so no device holds the program back;
 * a device that stops acknowledging detached with a reason). Terminals outlive connections: one
 * with no device attached closes after `idleMs`. Input passes straight to the program and is
 * never logged; output never enters the event log.
 */
export class TerminalManager {
  private readonly terminals = new Map<string, Entry>();
  private readonly idleMs: number;

  constructor(private readonly options: TerminalManagerOptions) {
    this.idleMs = options.idleMs ?? TERMINAL_IDLE_MS;
  }

  async open(params: OpenParams): Promise<Result<TerminalInfo>> {
    const machine = params.machine ?? 'local';
    const place = this.options.place(machine);
    if (!place.ok) return place;
    const opened = await place.value.open({
      ...(params.cwd !== undefined ? { cwd: params.cwd } : {}),
      cols: params.cols,
      rows: params.rows,
    });
    if (!opened.ok) return terminalOpenError(opened.error);
    return ok(this.add(opened.value, machine));
  }

  /** Holds a terminal opened elsewhere (a wrapped program's) like one opened here. */
  add(handle: TerminalHandle, machine: string, options: AddOptions = {}): TerminalInfo {
    const entry: Entry = {
      ...options,
      id: this.options.newId('t'),
      machine,
      handle,
      createdAt: this.options.clock.now(),
      attachments: new Map(),
      idleTimer: undefined,
    };
    this.terminals.set(entry.id, entry);
    entry.handle.onExit((exit) => {
      const event = {
        type: 'terminal.exit' as const,
        terminalId: entry.id,
        code: exit.code,
        signal: exit.signal,
        offset: entry.handle.end,
      };
      for (const stream of entry.attachments.keys()) stream.deliver(event);
      // One already let go (closed, or the host stopping) needs no idle timer: it would hold the
      // process open long after the host stopped.
      if (this.holds(entry) && entry.keep && entry.attachments.size === 0) this.startIdle(entry);
    });
    // Until the device that opened it attaches, it is as idle as one everybody left.
    if (!entry.keep) this.startIdle(entry);
    return this.info(entry);
  }

  /** The terminal by id, for the host's own readers (a wrapped program's prompt watch). */
  handle(terminalId: string): TerminalHandle | undefined {
    return this.terminals.get(terminalId)?.handle;
  }

  /**
   * Starts (or restarts) a device's stream of a terminal from `after`, the bytes it holds. When
   * they are no longer all held, the device gets the current screen first and the count dropped.
   */
  attach(
    terminalId: string,
    host: StreamHost,
    after = 0,
    fromScreen = false,
    binary = false,
  ): Result<{ offset: number; dropped: number; terminal: TerminalInfo }> {
    const entry = this.terminals.get(terminalId);
    if (!entry) return fail('not-found', `no terminal ${terminalId}`);
    const handle = entry.handle;
    let from = after;
    let dropped = 0;
    if (fromScreen || after < handle.start || after > handle.end) {
      const screen = handle.snapshot();
      from = screen.offset;
      dropped = fromScreen ? 0 : Math.max(0, screen.offset - after);
      // Ahead of the stream on the outbox, so the device draws the screen before what follows it.
      host.outbox.send(screenMessage(terminalId, screen, dropped));
    }
    const stream: StreamSubscription = new StreamSubscription(terminalRoute(terminalId), host.outbox, handle, from, {
      clock: this.options.clock,
      windowBytes: this.options.windowBytes ?? TERMINAL_WINDOW_BYTES,
      chunkBytes: this.options.chunkBytes ?? TERMINAL_CHUNK_BYTES,
      stallMs: this.options.stallMs ?? TERMINAL_STALL_MS,
      // Binary where the device asked and its connection can: the bytes as they are, no base64.
      encode:
        binary && host.outbox.sendBinary
          ? (chunk) => encodeTerminalOutput(terminalId, chunk.offset, chunk.data)
          : (chunk) => ({
              t: 'evt',
              event: { type: 'terminal.output', terminalId, offset: chunk.offset, data: toBase64Url(chunk.data) },
            }),
      detached: (reason) => ({ t: 'evt', event: { type: 'terminal.detached', terminalId, reason } }),
      onEnd: () => this.left(entry, stream),
      // A device a window behind gets the screen at a frame rate instead of every byte, so a
      // flood runs at the pace of the screen model rather than of the slowest device.
      frames: {
        frameMs: this.options.frameMs ?? TERMINAL_FRAME_MS,
        end: () => handle.end,
        frame: (after) => {
          const screen = handle.snapshot();
          return screen.offset > after
            ? { offset: screen.offset, message: screenMessage(terminalId, screen, screen.offset - after) }
            : undefined;
        },
      },
    });
    const subscribed = host.subscribe(stream);
    if (!subscribed.ok) return subscribed;
    entry.attachments.set(stream, host);
    this.stopIdle(entry);
    const exit = handle.exit;
    if (exit) {
      stream.deliver({ type: 'terminal.exit', terminalId, code: exit.code, signal: exit.signal, offset: handle.end });
    }
    return ok({ offset: from, dropped, terminal: this.info(entry) });
  }

  /** The device stops reading the terminal (it left the screen); the terminal goes on. */
  detach(terminalId: string, host: StreamHost): void {
    if (this.streamOf(terminalId, host)) host.unsubscribe(terminalRoute(terminalId));
  }

  /** The device has drawn every byte before `offset`: its window opens again. */
  ack(terminalId: string, host: StreamHost, offset: number): Result<void> {
    const stream = this.streamOf(terminalId, host);
    if (!stream) return fail('not-found', `not attached to terminal ${terminalId}; attach again`);
    stream.ack(offset);
    return ok(undefined);
  }

  input(terminalId: string, data: string): Result<void> {
    const entry = this.terminals.get(terminalId);
    if (!entry) return fail('not-found', `no terminal ${terminalId}`);
    const written = entry.handle.write(data);
    if (written.ok) return written;
    const code: ErrorCode =
      written.error.code === 'busy' ? 'busy' : written.error.code === 'unreachable' ? 'unavailable' : 'conflict';
    return fail(code, written.error.message);
  }

  resize(terminalId: string, cols: number, rows: number): Result<void> {
    const entry = this.terminals.get(terminalId);
    if (!entry) return fail('not-found', `no terminal ${terminalId}`);
    // The last device to resize sets the size for all, as with a shared tmux window.
    entry.handle.resize(cols, rows);
    return ok(undefined);
  }

  /** Hangs the terminal up; attached devices are told it was closed. Closing twice is not an error. */
  close(terminalId: string): Result<void> {
    const entry = this.terminals.get(terminalId);
    if (entry) this.remove(entry, 'the terminal was closed');
    return ok(undefined);
  }

  list(): TerminalInfo[] {
    return [...this.terminals.values()].map((entry) => this.info(entry));
  }

  /** The host is stopping: every terminal is hung up. */
  closeAll(): void {
    for (const entry of [...this.terminals.values()]) this.remove(entry, 'the host is stopping');
  }

  private info(entry: Entry): TerminalInfo {
    const { handle } = entry;
    return {
      id: entry.id,
      machine: entry.machine,
      cwd: handle.cwd,
      shell: handle.shell,
      cols: handle.cols,
      rows: handle.rows,
      createdAt: entry.createdAt,
      attached: entry.attachments.size,
      end: handle.end,
      status: handle.exit ? 'exited' : 'running',
      exitCode: handle.exit?.code ?? null,
      ...(entry.sessionId !== undefined ? { sessionId: entry.sessionId } : {}),
    };
  }

  /** The device's stream of this terminal on `host`, if it is attached there. */
  private streamOf(terminalId: string, host: StreamHost): StreamSubscription | undefined {
    const stream = host.subscription(terminalRoute(terminalId));
    const entry = this.terminals.get(terminalId);
    return stream instanceof StreamSubscription && entry?.attachments.get(stream) === host ? stream : undefined;
  }

  private left(entry: Entry, stream: StreamSubscription): void {
    if (!entry.attachments.delete(stream)) return;
    if (entry.attachments.size === 0 && this.holds(entry) && (!entry.keep || entry.handle.exit)) this.startIdle(entry);
  }

  private remove(entry: Entry, reason: string): void {
    if (!this.holds(entry)) return;
    this.terminals.delete(entry.id);
    this.stopIdle(entry);
    for (const [stream, host] of [...entry.attachments]) {
      stream.detach(reason);
      if (host.subscription(stream.key) === stream) host.unsubscribe(stream.key);
    }
    entry.attachments.clear();
    entry.handle.close();
    entry.onRemoved?.();
  }

  /** Whether `entry` is still the manager's (not closed, idle-closed or let go at the host's stop). */
  private holds(entry: Entry): boolean {
    return this.terminals.get(entry.id) === entry;
  }

  private startIdle(entry: Entry): void {
    this.stopIdle(entry);
    entry.idleTimer = this.options.clock.setTimeout(() => {
      entry.idleTimer = undefined;
      this.remove(entry, 'idle with no device attached');
    }, this.idleMs);
  }

  private stopIdle(entry: Entry): void {
    if (entry.idleTimer !== undefined) this.options.clock.clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
  }
}

/** A place's refusal to open a terminal, as a device or the command line hears it. */
export function terminalOpenError(error: OpenTerminalError): Result<never> {
  return fail(OPEN_ERRORS[error.code], error.message);
}

/** How a place's refusal to open a terminal reaches a device. */
const OPEN_ERRORS: Record<OpenTerminalError['code'], ErrorCode> = {
  'outside-root': 'forbidden',
  'not-found': 'invalid-params',
  'not-a-folder': 'invalid-params',
  busy: 'busy',
  io: 'unavailable',
  unreachable: 'unavailable',
};
