import type { Clock, Result, TimerHandle } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { Gate } from '../gate.js';
import type { RelayLimits } from '../limits.js';
import type { RelayMetrics } from '../metrics.js';
import type { HostEndpoint, HostRoutes, RelayReply } from '../routes.js';
import type { Backplane } from './backplane.js';
import type { ClusterMessage } from './cluster-message.js';
import type { ClusterSender } from './cluster-sender.js';

export interface ClusterRequestsDeps {
  backplane: Backplane;
  clock: Clock;
  limits: RelayLimits;
  metrics: RelayMetrics;
  local: { local(hostId: string): HostEndpoint | undefined; readonly requests: Gate };
}

interface OutRequest {
  node: string;
  resolve: (r: Result<RelayReply>) => void;
  timer: TimerHandle;
}

/**
 * Pair requests and one-shot calls between nodes: forwarded to the node holding the host's link,
 * each waiting within this node's request gate and the reply wait of its kind; served here for
 * hosts linked to this node.
 */
export class ClusterRequests {
  private readonly waiting = new Map<number, OutRequest>();
  private nextReqId = 1;

  constructor(
    private readonly deps: ClusterRequestsDeps,
    private readonly sender: ClusterSender,
    private readonly isStopped: () => boolean,
  ) {}

  readonly forward: HostRoutes['request'] = (kind, hostId, source, body, signal) => {
    return this.deps.backplane.locate(hostId).then((node) => {
      if (!node || node === this.deps.backplane.nodeId || this.isStopped()) {
        return fail('host-offline', 'the host is not connected to any relay node');
      }
      if (!this.deps.local.requests.enter()) {
        this.deps.metrics.refuse('requests-full');
        return fail('busy', 'too many requests are waiting; try again shortly');
      }
      const reqId = this.nextReqId++;
      const waitMs = kind === 'pair' ? this.deps.limits.pairReplyWaitMs : this.deps.limits.callReplyWaitMs;
      return new Promise<Result<RelayReply>>((resolve) => {
        const settle = (r: Result<RelayReply>) => {
          if (!this.waiting.delete(reqId)) return;
          this.deps.clock.clearTimeout(entry.timer);
          this.deps.local.requests.leave();
          signal?.removeEventListener('abort', abort);
          resolve(r);
        };
        const abort = () => {
          this.deps.metrics.refuse('request-aborted');
          settle(fail('disconnected', 'the caller went away'));
        };
        const entry: OutRequest = {
          node,
          resolve: settle,
          timer: this.deps.clock.setTimeout(() => {
            this.deps.metrics.refuse('request-timeout');
            settle(fail('timeout', 'the host did not answer in time'));
          }, waitMs),
        };
        this.waiting.set(reqId, entry);
        signal?.addEventListener('abort', abort, { once: true });
        this.deps.metrics.request(kind);
        this.sender.post(node, { type: 'request', reqId, kind, hostId, source, body });
      });
    });
  };

  async serve(from: string, m: Extract<ClusterMessage, { type: 'request' }>): Promise<void> {
    const link = this.deps.local.local(m.hostId);
    const result = link
      ? await link.request(m.kind, m.source, m.body)
      : fail('host-offline', 'the host is not connected to this node');
    this.sender.post(
      from,
      result.ok
        ? { type: 'reply', reqId: m.reqId, status: result.value.status, body: result.value.body }
        : { type: 'failure', reqId: m.reqId, code: result.error.code },
    );
  }

  answered(from: string, m: Extract<ClusterMessage, { type: 'reply' | 'failure' }>): void {
    const entry = this.waiting.get(m.reqId);
    if (!entry || entry.node !== from) return this.deps.metrics.drop('reply-unknown-request');
    entry.resolve(
      m.type === 'reply' ? ok({ status: m.status, body: m.body }) : fail(m.code, 'the host could not be reached'),
    );
  }

  /** The nodes requests wait on. */
  *nodes(): Iterable<string> {
    for (const entry of this.waiting.values()) yield entry.node;
  }

  /** Messages may have been missed (from `node`, or from any), or the node is stopping: those waits fail. */
  failAll(node?: string): void {
    for (const entry of [...this.waiting.values()]) {
      if (node === undefined || entry.node === node)
        entry.resolve(fail('disconnected', 'the relay cluster link was interrupted'));
    }
  }

  /** Fails the waits on nodes no longer `alive`. */
  failGone(alive: ReadonlySet<string>): void {
    for (const entry of [...this.waiting.values()]) {
      if (!alive.has(entry.node)) entry.resolve(fail('host-offline', 'the node holding the host is gone'));
    }
  }
}
