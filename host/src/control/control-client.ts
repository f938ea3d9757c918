import type {
  ControlMethodName,
  ControlParams,
  ControlResult,
  Result,
  SessionEvent,
  TetherEvent,
} from '@tether/shared-protocol';
import {
  CONTROL_METHODS,
  MAX_CONTROL_LINE,
  decodeChannelMessage,
  decodeEvent,
  fail,
  isSessionEvent,
} from '@tether/shared-protocol';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import * as v from 'valibot';
import { LineSplitter } from './line-splitter.js';

/** What a terminal this client is attached to sends. */
export type TerminalEvent = Extract<TetherEvent, { type: `terminal.${string}` }>;

function isTerminalEvent(event: TetherEvent): event is TerminalEvent {
  return event.type.startsWith('terminal.');
}

/**
 * A client of the local control socket, used by every `tether …` command but `start`.
 */
export class ControlClient {
  private nextId = 1;
  private readonly pending = new Map<number, { method: ControlMethodName; resolve: (r: Result<unknown>) => void }>();
  private readonly eventListeners = new Set<(event: SessionEvent) => void>();
  private readonly terminalListeners = new Set<(event: TerminalEvent) => void>();
  private readonly closeListeners = new Set<() => void>();

  private constructor(private readonly socket: Socket) {
    const lines = new LineSplitter(MAX_CONTROL_LINE);
    socket.on('data', (chunk: Buffer) => {
      const complete = lines.push(chunk);
      if (complete === 'too-long') return socket.destroy();
      for (const line of complete) this.receive(line);
    });
    socket.on('close', () => {
      for (const call of this.pending.values()) call.resolve(fail('disconnected', 'the host closed the connection'));
      this.pending.clear();
      for (const listener of this.closeListeners) listener();
    });
    socket.on('error', () => undefined);
  }

  /** Connects, or explains that no host is running. */
  static connect(socketPath: string): Promise<Result<ControlClient>> {
    return new Promise((resolve) => {
      const socket = connect(socketPath);
      socket.once('connect', () => resolve({ ok: true, value: new ControlClient(socket) }));
      socket.once('error', (error: NodeJS.ErrnoException) => {
        const missing = error.code === 'ENOENT' || error.code === 'ECONNREFUSED';
        resolve(
          fail(
            'unavailable',
            missing
              ? `no Tether host is running (no answer on ${socketPath}). Start one with: tether start`
              : `cannot reach the Tether host on ${socketPath}: ${error.message}`,
          ),
        );
      });
    });
  }

  call<M extends ControlMethodName>(method: M, params: ControlParams<M>): Promise<Result<ControlResult<M>>> {
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.pending.set(id, { method, resolve: resolve as (r: Result<unknown>) => void });
      this.socket.write(`${JSON.stringify({ t: 'req', id, method, params })}\n`);
    });
  }

  onEvent(listener: (event: SessionEvent) => void): void {
    this.eventListeners.add(listener);
  }

  /** Output and news of the terminals this client is attached to. */
  onTerminalEvent(listener: (event: TerminalEvent) => void): void {
    this.terminalListeners.add(listener);
  }

  onClose(listener: () => void): void {
    this.closeListeners.add(listener);
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }

  private receive(line: Buffer): void {
    const message = decodeChannelMessage(line);
    if (!message) return;
    if (message.t === 'evt') {
      const decoded = decodeEvent(message.event);
      if (decoded.kind !== 'event') return;
      const event = decoded.event;
      if (isSessionEvent(event)) for (const l of this.eventListeners) l(event);
      else if (isTerminalEvent(event)) for (const l of this.terminalListeners) l(event);
      return;
    }
    if (message.t !== 'res') return;
    const call = this.pending.get(message.id);
    if (!call) return;
    this.pending.delete(message.id);
    if ('error' in message) return call.resolve({ ok: false, error: message.error });
    const parsed = v.safeParse(CONTROL_METHODS[call.method].result, message.result);
    call.resolve(
      parsed.success
        ? { ok: true, value: parsed.output }
        : fail('malformed', `the host answered ${call.method} with an invalid result`),
    );
  }
}
