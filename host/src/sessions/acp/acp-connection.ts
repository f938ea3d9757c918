import type {
  ClientContext,
  InitializeResponse,
  RequestPermissionResponse,
  SessionUpdate,
} from '@agentclientprotocol/sdk';
import { client, methods, ndJsonStream, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import type { Clock } from '@tether/shared-protocol';
import type { ExecutionContext, ProcessHandle } from '@tether/machine';
import { StderrTail } from '../../mcp/stderr-tail.js';
import { VERSION } from '../../version.js';
import { commandLine } from './agent-catalog.js';
import type { AgentSpec } from './agent-config.js';
import { processStreams } from './acp-stream.js';
import type { AcpTurn } from './acp-turn.js';
import { settle } from './settle.js';

/**
 * Bytes of one ACP message from an agent: 8 MiB, room for a large file's diff while keeping one
 * line of a misbehaving agent from taking the host's memory (the SDK's own default is 32 MiB).
 */
export const MAX_ACP_MESSAGE_BYTES = 8 * 1024 * 1024;
/** Lines, and characters of each, of the agent's stderr kept for the notice when it fails. */
const STDERR_LINES = 20;
const STDERR_LINE_CHARS = 300;

const NO_RUN = -32002;
const CANCELLED: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/**
 * One agent process and the ACP connection to it, as the client. Started through the session's
 * execution context, so it runs wherever the session does. Whatever the agent sends goes to the
 * turn of the run in progress for its session (`attach`); between runs its updates are dropped,
 * its permission requests cancelled and its other requests refused. Tracks when the agent last
 * said anything and how many of its requests are being served, for the hang watchdog.
 */
export class AcpConnection {
  private turn: AcpTurn | undefined;
  private acpSessionId: string | undefined;
  /** While the agent replays a loaded session: its updates are already in the log. */
  replaying = false;
  /** While the agent replays a session whose conversation the log does not have yet: where it goes. */
  history: { acpSessionId: string; record: (update: SessionUpdate) => void } | undefined;
  /**
   * Where what the agent says of its commands, modes, models and context goes, run or no run
   * (acp-steer.ts): true when the update was one of those.
   */
  steer: { update(update: SessionUpdate): boolean } | undefined;
  /** Milliseconds (clock time) of the agent's last message. */
  lastActivity: number;
  /** The agent's requests being served now: while it waits on us, its silence is not a hang. */
  inFlight = 0;
  /** Updates that came when no run of their session was on, or for another session. */
  dropped = 0;
  /** Resolves, with why, when the process has exited or the connection closed. */
  readonly ended: Promise<string>;
  private endedWhy: string | undefined;
  private constructor(
    private readonly handle: ProcessHandle,
    readonly agent: ClientContext,
    readonly stderr: StderrTail,
    private readonly clock: Clock,
    /** Aborts when the connection closes, with why (before its pending requests are rejected). */
    readonly closedSignal: AbortSignal,
  ) {
    this.lastActivity = clock.now();
    const closed = new Promise<void>((resolve) => {
      if (closedSignal.aborted) resolve();
      else closedSignal.addEventListener('abort', () => resolve(), { once: true });
    });
    // A connection that closes on its own (a message over the limit, stdout closed) leaves no use
    // for the process: it is ended, so that how it ended is always known.
    const exited = Promise.race([
      handle.exited,
      closed.then(() => {
        handle.kill();
        return handle.exited;
      }),
    ]);
    this.ended = exited.then((exit) => {
      const reason: unknown = closedSignal.reason;
      const protocol =
        reason instanceof Error && reason.message !== 'ACP connection closed' ? ` after ${reason.message}` : '';
      const how = !exit.ok
        ? `the place it ran on was lost (${exit.error.message})`
        : exit.value.signal
          ? `it was ended by ${exit.value.signal}`
          : `it exited with code ${exit.value.code}`;
      this.endedWhy = `${how}${protocol}`;
      return this.endedWhy;
    });
  }

  /** Starts the agent and connects to it (it is not initialized yet: see `initialize`). */
  static async start(options: {
    context: ExecutionContext;
    spec: AgentSpec;
    cwd: string;
    env: Record<string, string>;
    clock: Clock;
  }): Promise<{ ok: true; value: AcpConnection } | { ok: false; message: string }> {
    const { spec } = options;
    const spawned = await options.context.spawn({
      command: { program: spec.command, args: spec.args },
      cwd: options.cwd,
      env: options.env,
    });
    if (!spawned.ok)
      return { ok: false, message: `${commandLine(spec)} could not be started: ${spawned.error.message}` };
    const stderr = new StderrTail(STDERR_LINES, STDERR_LINE_CHARS);
    const handle = spawned.value;
    const streams = processStreams(handle, (chunk) => stderr.push(chunk));
    // The handlers are made before the connection they serve: they find it here.
    const made: { connection?: AcpConnection } = {};
    const app = client({ name: 'tether' })
      .onNotification(methods.client.session.update, ({ params }) => {
        const connection = made.connection!;
        connection.touch();
        const ours = connection.acpSessionId === undefined || params.sessionId === connection.acpSessionId;
        if (ours && connection.steer?.update(params.update)) return;
        const history = connection.history;
        if (history && params.sessionId === history.acpSessionId) return history.record(params.update);
        const turn = connection.turnFor(params.sessionId);
        if (!turn || connection.replaying) connection.dropped++;
        else turn.log.update(params.update);
      })
      .onRequest(methods.client.session.requestPermission, ({ params, signal }) =>
        made.connection!.serve(
          params.sessionId,
          (turn) => turn.permission(params, signal),
          () => CANCELLED,
        ),
      )
      .onRequest(methods.client.fs.readTextFile, ({ params, signal }) =>
        made.connection!.serve(params.sessionId, (turn) => turn.files.read(params, turn.signal(signal))),
      )
      .onRequest(methods.client.fs.writeTextFile, ({ params, signal }) =>
        made.connection!.serve(params.sessionId, (turn) => turn.files.write(params, turn.signal(signal))),
      )
      .onRequest(methods.client.terminal.create, ({ params, signal }) =>
        made.connection!.serve(params.sessionId, (turn) => turn.terminals.create(params, turn.signal(signal))),
      )
      .onRequest(methods.client.terminal.output, ({ params }) =>
        made.connection!.serve(params.sessionId, (turn) => turn.terminals.output(params.terminalId)),
      )
      .onRequest(methods.client.terminal.waitForExit, ({ params }) =>
        made.connection!.serve(params.sessionId, (turn) => turn.terminals.waitForExit(params.terminalId)),
      )
      .onRequest(methods.client.terminal.kill, ({ params }) =>
        made.connection!.serve(params.sessionId, (turn) => turn.terminals.kill(params.terminalId)),
      )
      .onRequest(methods.client.terminal.release, ({ params }) =>
        made.connection!.serve(params.sessionId, (turn) => turn.terminals.release(params.terminalId)),
      );
    const connection = app.connect(
      ndJsonStream(streams.writable, streams.readable, { maxMessageBytes: MAX_ACP_MESSAGE_BYTES }),
    );
    const self = new AcpConnection(handle, connection.agent, stderr, options.clock, connection.signal);
    made.connection = self;
    return { ok: true, value: self };
  }

  /** `initialize`: the protocol version and what the client serves; the agent's answer. */
  initialize(): Promise<InitializeResponse> {
    return this.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      clientInfo: { name: 'tether', title: 'Tether', version: VERSION },
    });
  }

  /** Routes what the agent sends for `acpSessionId` to `turn` until `detach`. */
  attach(acpSessionId: string, turn: AcpTurn): void {
    this.acpSessionId = acpSessionId;
    this.turn = turn;
    this.touch();
  }

  detach(): void {
    this.turn = undefined;
  }

  setSession(acpSessionId: string): void {
    this.acpSessionId = acpSessionId;
  }

  get isEnded(): boolean {
    return this.endedWhy !== undefined;
  }

  /** Milliseconds the agent has been silent while nothing of its waits on us; 0 while something does. */
  silentFor(): number {
    return this.inFlight > 0 ? 0 : this.clock.now() - this.lastActivity;
  }

  /** Ends the agent's whole process group (SIGTERM, then SIGKILL after a grace period). */
  kill(): void {
    this.handle.kill();
  }

  /** The end of the agent's stderr, for a notice; '' when it wrote nothing. */
  stderrText(): string {
    return this.stderr.text();
  }

  /** Waits (up to `ms` on the clock) for the process to end; true when it did. */
  async waitEnded(ms: number): Promise<boolean> {
    const outcome = await settle(this.ended, { clock: this.clock, ms });
    return outcome.kind === 'value';
  }

  private touch(): void {
    this.lastActivity = this.clock.now();
  }

  private turnFor(acpSessionId: string): AcpTurn | undefined {
    return acpSessionId === this.acpSessionId && this.turn && !this.turn.isClosed ? this.turn : undefined;
  }

  private async serve<T>(acpSessionId: string, work: (turn: AcpTurn) => Promise<T> | T, idle?: () => T): Promise<T> {
    this.touch();
    const turn = this.turnFor(acpSessionId);
    if (!turn) {
      if (idle) return idle();
      throw new RequestError(NO_RUN, 'no run of this session is in progress');
    }
    this.inFlight++;
    try {
      return await work(turn);
    } finally {
      this.inFlight--;
      this.touch();
    }
  }
}
