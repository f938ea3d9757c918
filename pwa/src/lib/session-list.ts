import type { SessionSummary } from '@tether/shared-protocol';

/**
 * A host's session list as the app keeps it: newest first (by creation), archived ones left out.
 * Updates come both from `sessions.list` and from `session.updated` events, in any order; the
 * summary with the higher sequence number is the newer one.
 */

export function sortSessions(list: readonly SessionSummary[]): SessionSummary[] {
  return list.filter((s) => !s.archived).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
}

export function mergeSummary(list: readonly SessionSummary[], summary: SessionSummary): SessionSummary[] {
  const index = list.findIndex((s) => s.id === summary.id);
  if (index >= 0 && list[index]!.lastSeq > summary.lastSeq) return list as SessionSummary[];
  if (summary.archived) return index < 0 ? (list as SessionSummary[]) : list.filter((s) => s.id !== summary.id);
  const next = index < 0 ? [...list, summary] : list.map((s, i) => (i === index ? summary : s));
  return sortSessions(next);
}

/** A fresh list from the host, keeping any summary an event brought that is newer still. */
export function replaceList(current: readonly SessionSummary[], fresh: readonly SessionSummary[]): SessionSummary[] {
  const byId = new Map(current.map((s) => [s.id, s]));
  return sortSessions(
    fresh.map((s) => {
      const known = byId.get(s.id);
      return known && known.lastSeq > s.lastSeq ? known : s;
    }),
  );
}

export function totalWaiting(list: readonly SessionSummary[]): number {
  return list.reduce((n, s) => n + s.pendingApprovals, 0);
}
