import type { RelayLimits } from '../limits.js';
import type { RelayMetrics } from '../metrics.js';
import type { Backplane } from './backplane.js';
import type { ClusterMessage } from './cluster-message.js';
import { encodeClusterMessage } from './cluster-message.js';

export interface ClusterSenderDeps {
  backplane: Backplane;
  limits: RelayLimits;
  metrics: RelayMetrics;
}

/**
 * What a node publishes to the others (the backplane counts it, by the way it takes). Stream data is bounded by what Redis
 * has not yet acknowledged (or the link not yet written), per stream and for the whole node: past either bound the stream is
 * closed, never buffered.
 */
export class ClusterSender {
  private inflightTotal = 0;

  constructor(private readonly deps: ClusterSenderDeps) {}

  /** Stream bytes published and not yet acknowledged. */
  get inflightBytes(): number {
    return this.inflightTotal;
  }

  /** Publishes stream data within the per-stream and per-node bounds; `overflow` closes the stream. */
  publishData(
    stream: { inflight: number },
    node: string,
    m: ClusterMessage & { payload: Uint8Array },
    overflow: () => void,
  ): void {
    const n = m.payload.length;
    const l = this.deps.limits;
    if (
      (stream.inflight > 0 && stream.inflight + n > l.clusterStreamInflightBytes) ||
      (this.inflightTotal > 0 && this.inflightTotal + n > l.clusterInflightBytes)
    ) {
      return overflow();
    }
    stream.inflight += n;
    this.inflightTotal += n;
    void this.transmit(node, m).then((sent) => {
      stream.inflight -= n;
      this.inflightTotal -= n;
      if (!sent) overflow();
    });
  }

  /** Sends a control message; a failure is counted (the stream it belongs to ends by its own bounds). */
  post(node: string, m: ClusterMessage): void {
    void this.transmit(node, m);
  }

  private transmit(node: string, m: ClusterMessage): Promise<boolean> {
    const bytes = encodeClusterMessage(this.deps.backplane.nodeId, m);
    return this.deps.backplane.send(node, bytes).then((sent) => {
      if (!sent) this.deps.metrics.drop('cluster-publish-failed');
      return sent;
    });
  }

  broadcast(m: ClusterMessage): void {
    const bytes = encodeClusterMessage(this.deps.backplane.nodeId, m);
    void this.deps.backplane.broadcast(bytes);
  }
}
