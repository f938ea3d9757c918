import type { Clock, TimerHandle } from '@tether/shared-protocol';
import type { AcpConnection } from './acp-connection.js';
import type { AgentSpec } from './agent-config.js';

/** A running agent process for one session, kept between its runs. */
export interface LiveAgent {
  sessionId: string;
  spec: AgentSpec;
  place: string;
  cwd: string;
  connection: AcpConnection;
  acpSessionId: string;
  /** The agent takes image content in a prompt (its initialize answer's promptCapabilities.image). */
  takesImages?: boolean;
  busy: boolean;
  idleTimer: TimerHandle | undefined;
}

export interface AgentPoolLimits {
  /** Milliseconds an agent is kept between runs for the next prompt; after that it is stopped. */
  keepIdleMs: number;
  /** Agent processes alive at once (running or kept); an idle one is stopped to make room. */
  maxLiveAgents: number;
  /** Milliseconds an agent has to stop after `session/cancel` (or the host stopping) before its process is ended. */
  cancelGraceMs: number;
}

/**
 * The agent processes alive now, one per session: each kept between runs for a while so it
 * remembers the conversation, and at most `maxLiveAgents` of them (the idle one kept longest is
 * ended to make room). A busy agent is never ended for being idle.
 */
export class AcpAgentPool {
  private readonly live = new Map<string, LiveAgent>();
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly limits: AgentPoolLimits,
  ) {}

  get size(): number {
    return this.live.size;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The session's kept agent, if it can serve a run at `place` as `spec`; one that cannot is ended. */
  reusable(sessionId: string, place: string, spec: AgentSpec): LiveAgent | undefined {
    const live = this.live.get(sessionId);
    if (!live) return undefined;
    if (!live.connection.isEnded && live.place === place && live.spec === spec) return live;
    this.discard(live);
    return undefined;
  }

  /** Makes room for one more agent by ending the idle one kept longest; false when all are busy. */
  makeRoom(): boolean {
    if (this.live.size < this.limits.maxLiveAgents) return true;
    for (const live of this.live.values()) {
      if (!live.busy) {
        this.discard(live);
        return true;
      }
    }
    return false;
  }

  /** The session's agent while its process lives (running or kept), for a change of mode or model. */
  find(sessionId: string): LiveAgent | undefined {
    const live = this.live.get(sessionId);
    return live && !live.connection.isEnded && live.acpSessionId !== '' ? live : undefined;
  }

  add(live: LiveAgent): void {
    this.live.set(live.sessionId, live);
  }

  /** The agent is busy with a run: it is not stopped for being idle. */
  hold(live: LiveAgent): void {
    live.busy = true;
    if (live.idleTimer !== undefined) this.clock.clearTimeout(live.idleTimer);
    live.idleTimer = undefined;
  }

  /** The run ended: a healthy agent is kept for the next prompt, for a while; any other is ended. */
  release(live: LiveAgent): void {
    live.busy = false;
    if (
      this.closed ||
      live.connection.isEnded ||
      live.connection.closedSignal.aborted ||
      this.live.get(live.sessionId) !== live
    ) {
      this.discard(live);
      return;
    }
    live.idleTimer = this.clock.setTimeout(() => this.discard(live), this.limits.keepIdleMs);
  }

  /** Ends an agent process and forgets it. */
  discard(live: LiveAgent): void {
    if (live.idleTimer !== undefined) this.clock.clearTimeout(live.idleTimer);
    live.idleTimer = undefined;
    if (this.live.get(live.sessionId) === live) this.live.delete(live.sessionId);
    live.connection.kill();
  }

  /** Ends every agent process (the host is stopping), and waits for them to be gone. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.live.values()];
    for (const live of all) this.discard(live);
    await Promise.all(all.map((live) => live.connection.waitEnded(this.limits.cancelGraceMs)));
  }
}
