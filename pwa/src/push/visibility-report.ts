import type { Clock } from '@tether/shared-protocol';
import { APP_VISIBILITY_REFRESH_MS, every } from '@tether/shared-protocol';
import type { HostConnection } from '../net/host-connection.js';
import type { Route } from '../lib/route.js';

/** What the reporter reads from the app: its connections (and when they change), the screen. */
export interface VisibilitySource {
  connections(): HostConnection[];
  /** Calls `listener` when a connection is made or dropped; returns an unsubscribe. */
  onConnectionsChange(listener: () => void): () => void;
  route(): Route;
  visible(): boolean;
}

/**
 * Tells each connected host whether the app is in front and which of its sessions it shows
 * (`app.visibility`), so the host sends no notification for what is on screen. Sent when the
 * screen, the page's visibility or a connection changes, and every APP_VISIBILITY_REFRESH_MS while
 * in front (the host lets a claim run out, for a phone that locked without a word).
 */
export class VisibilityReporter {
  private stopTimer: (() => void) | undefined;
  private readonly watched = new Map<HostConnection, () => void>();
  private readonly stopWatching: () => void;

  constructor(
    private readonly source: VisibilitySource,
    private readonly clock: Clock,
  ) {
    this.stopWatching = source.onConnectionsChange(() => this.follow());
    this.follow();
  }

  /** Reports to every open connection now, and keeps the refresh going while visible. */
  report(): void {
    const visible = this.source.visible();
    const route = this.source.route();
    for (const connection of this.source.connections()) this.send(connection, visible, route);
    if (visible && this.stopTimer === undefined) {
      this.stopTimer = every(this.clock, APP_VISIBILITY_REFRESH_MS, () => this.report());
    } else if (!visible && this.stopTimer !== undefined) {
      this.stopTimer();
      this.stopTimer = undefined;
    }
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
    this.stopWatching();
    for (const stop of this.watched.values()) stop();
    this.watched.clear();
  }

  /** A connection that opens (again) is told at once: the host forgets a closed connection's claim. */
  private follow(): void {
    const current = new Set(this.source.connections());
    for (const [connection, stop] of this.watched) {
      if (current.has(connection)) continue;
      stop();
      this.watched.delete(connection);
    }
    for (const connection of current) {
      if (this.watched.has(connection)) continue;
      const stop = connection.status.subscribe((state) => {
        if (state.name === 'open') this.send(connection, this.source.visible(), this.source.route());
      });
      this.watched.set(connection, stop);
      if (connection.status.get().name === 'open') this.send(connection, this.source.visible(), this.source.route());
    }
  }

  private send(connection: HostConnection, visible: boolean, route: Route): void {
    // Not open: the call would wait in the queue; the status listener reports on open instead.
    if (connection.status.get().name !== 'open') return;
    const sessionId =
      visible && route.name === 'session' && route.hostId === connection.record.hostId ? route.sessionId : undefined;
    void connection.client.call('app.visibility', { visible, ...(sessionId !== undefined ? { sessionId } : {}) });
  }
}
