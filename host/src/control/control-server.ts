import type { ChannelMessage, Result, SessionEvent } from '@tether/shared-protocol';
import { MAX_CONTROL_LINE, decodeChannelMessage, fail, ok, protocolError } from '@tether/shared-protocol';
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';
import type { Outbox } from '../streams/outbox.js';
import { LOW_WATER_BYTES } from '../streams/outbox.js';
import type { StreamHost } from '../streams/stream-host.js';
import type { Subscription } from '../streams/subscription.js';
import type { Dispatch } from '../rpc/dispatch.js';
import { LineSplitter } from './line-splitter.js';

/** Bytes queued to one client before it is cut off as too slow (a stuck `--follow` reader). */
const MAX_PENDING_WRITE = 8 * 1024 * 1024;

/** Streams (a terminal's output) one control client reads at once. */
const MAX_CONTROL_STREAMS = 8;

/** One client of the control socket. */
export class ControlConnection implements StreamHost {
  /** Sessions this client follows; the host sends their events as they are appended. */
  readonly following = new Set<string>();
  /** Flow-controlled streams this client reads (a terminal it is attached to, with `tether run`). */
  private readonly streams = new Map<string, Subscription>();
  readonly outbox: Outbox;
  private closed = false;

  constructor(private readonly socket: Socket) {
    const isClosed = () => this.closed;
    this.outbox = {
      send: (message) => this.send(message, false),
      buffered: () => socket.writableLength,
      drained: () =>
        socket.writableLength < LOW_WATER_BYTES || this.closed
          ? Promise.resolve()
          : new Promise((resolve) => {
              socket.once('drain', resolve);
              socket.once('close', resolve);
            }),
      get closed() {
        return isClosed();
      },
      cutOff: () => this.close(),
    };
  }

  subscribe(subscription: Subscription): Result<void> {
    if (!this.streams.has(subscription.key) && this.streams.size >= MAX_CONTROL_STREAMS) {
      subscription.end();
      return fail('busy', `at most ${MAX_CONTROL_STREAMS} streams per control connection`);
    }
    this.streams.get(subscription.key)?.end();
    this.streams.set(subscription.key, subscription);
    return ok(undefined);
  }

  subscription(key: string): Subscription | undefined {
    return this.streams.get(key);
  }

  unsubscribe(key: string): void {
    this.streams.get(key)?.end();
    this.streams.delete(key);
  }

  /** Sends a message; a live event to a reader this far behind closes it instead (`bounded`). */
  send(message: ChannelMessage, bounded = true): void {
    if (this.closed) return;
    if (bounded && this.socket.writableLength > MAX_PENDING_WRITE) {
      this.close();
      return;
    }
    this.socket.write(`${JSON.stringify(message)}\n`);
  }

  /**
   * `replay`: part of a paged replay, which waits for the socket to drain when this returns
   * false (the socket holds a quarter of its limit).
   */
  sendEvent(event: SessionEvent, replay = false): boolean {
    this.send({ t: 'evt', event }, !replay);
    return !this.closed && this.socket.writableLength < MAX_PENDING_WRITE / 4;
  }

  /** Resolves once the socket's buffer has room again (or at once if it has). */
  drained(): Promise<void> {
    if (this.closed || this.socket.writableLength < MAX_PENDING_WRITE / 4) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('drain', resolve);
      this.socket.once('close', resolve);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stream of this.streams.values()) stream.end();
    this.streams.clear();
    this.socket.destroy();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

/**
 * The local control server: JSON lines over an owner-only Unix socket in the data dir. Refuses
 * to start when another host already answers on the socket; replaces a stale socket file left
 * by a host that died.
 */
export class ControlServer {
  private readonly server: Server;
  readonly connections = new Set<ControlConnection>();

  private constructor(
    private readonly path: string,
    private readonly dispatch: Dispatch<ControlConnection>,
  ) {
    this.server = createServer((socket) => this.accept(socket));
  }

  static async listen(path: string, dispatch: Dispatch<ControlConnection>): Promise<Result<ControlServer>> {
    if (path.length > 100) {
      return {
        ok: false,
        error: protocolError(
          'unavailable',
          `the control socket path is too long for a Unix socket (${path.length} > 100 characters): choose a shorter --data-dir`,
        ),
      };
    }
    if (existsSync(path)) {
      if (await answers(path)) {
        return {
          ok: false,
          error: protocolError('conflict', `a Tether host is already running with this data dir (${path})`),
        };
      }
      unlinkSync(path);
    }
    const control = new ControlServer(path, dispatch);
    await new Promise<void>((resolve, reject) => {
      control.server.once('error', reject);
      // The umask makes the socket owner-only from its first moment; chmod makes sure.
      const umask = process.umask(0o177);
      control.server.listen(path, () => {
        process.umask(umask);
        resolve();
      });
    });
    chmodSync(path, 0o600);
    return { ok: true, value: control };
  }

  /** Sends an appended event to every client following its session. */
  broadcast(event: SessionEvent): void {
    for (const connection of this.connections)
      if (connection.following.has(event.sessionId)) connection.sendEvent(event);
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (existsSync(this.path)) unlinkSync(this.path);
  }

  private accept(socket: Socket): void {
    const connection = new ControlConnection(socket);
    this.connections.add(connection);
    const lines = new LineSplitter(MAX_CONTROL_LINE);
    socket.on('data', (chunk: Buffer) => {
      const complete = lines.push(chunk);
      if (complete === 'too-long') {
        connection.send({ t: 'res', id: 0, error: protocolError('too-large', 'request line too long') });
        connection.close();
        return;
      }
      for (const line of complete) void this.handle(line, connection);
    });
    socket.on('error', () => connection.close());
    socket.on('close', () => {
      connection.close();
      this.connections.delete(connection);
    });
  }

  private async handle(line: Buffer, connection: ControlConnection): Promise<void> {
    const message = decodeChannelMessage(line);
    if (!message || message.t !== 'req') {
      connection.send({
        t: 'res',
        id: 0,
        error: protocolError('bad-request', 'expected {"t":"req","id":…,"method":…,"params":{…}}'),
      });
      return;
    }
    const result: Result<unknown> = await this.dispatch(message.method, message.params, connection);
    connection.send(
      result.ok
        ? { t: 'res', id: message.id, result: result.value }
        : { t: 'res', id: message.id, error: result.error },
    );
  }
}

/** True when something accepts connections on the socket: a live host, not a stale file. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
