import { APP_VISIBILITY_TTL_MS } from '@tether/shared-protocol';

/** A live connection as the tracker needs it: only whether it has closed. */
export interface TrackedConnection {
  readonly isClosed: boolean;
}

interface Report {
  deviceId: string;
  visible: boolean;
  sessionId: string | undefined;
  at: number;
}

/**
 * What each connected app last said it shows (`app.visibility`), to answer one question: which
 * devices of this host have a session open in front? The notifier decides what that silences
 * (push-notifier.ts: only a device that may answer stands in for the others). A report holds
 * while its connection is open and for
 * APP_VISIBILITY_TTL_MS (the app repeats it while in front), so a phone that locked without
 * managing to say so still gets notified soon after.
 *
 * Bounded by the connections: a closed one's report is dropped at the next report or query.
 */
export class ForegroundTracker {
  private readonly reports = new Map<TrackedConnection, Report>();

  report(
    connection: TrackedConnection,
    deviceId: string,
    visible: boolean,
    sessionId: string | undefined,
    now: number,
  ): void {
    this.prune(now);
    if (connection.isClosed) return;
    this.reports.set(connection, { deviceId, visible, sessionId, at: now });
  }

  /** Devices whose live connection showed `sessionId` in front within the last TTL. */
  watchers(sessionId: string, now: number): Set<string> {
    this.prune(now);
    const devices = new Set<string>();
    for (const report of this.reports.values()) {
      if (report.visible && report.sessionId === sessionId) devices.add(report.deviceId);
    }
    return devices;
  }

  /** Devices with the app in front now, whatever screen they show. */
  visibleDevices(now: number): Set<string> {
    this.prune(now);
    return new Set([...this.reports.values()].filter((r) => r.visible).map((r) => r.deviceId));
  }

  get size(): number {
    return this.reports.size;
  }

  private prune(now: number): void {
    for (const [connection, report] of this.reports) {
      if (connection.isClosed || now - report.at > APP_VISIBILITY_TTL_MS) this.reports.delete(connection);
    }
  }
}
