import type { Approval, Clock, Decision, DeviceClient, Result, TimerHandle } from '@tether/shared-protocol';
import { fail } from '@tether/shared-protocol';
import { Store } from '../lib/store.js';

/** One approval as the card a tapped notification opens needs it. */
export type ApprovalLookup =
  | { state: 'loading' }
  | { state: 'found'; approval: Approval; sessionTitle?: string }
  /** The host knows no such approval (forgotten, or another computer's). */
  | { state: 'missing' };

/** Approvals looked up at once per host; the one asked for longest ago is dropped past it. */
export const MAX_LOOKUPS = 16;
/** Approval counts change in bursts (raise, answer); one refresh covers a burst (ms). */
const REFRESH_DELAY_MS = 150;

/**
 * A host's approvals as the app holds them: the list of those waiting (for the Waiting screen and
 * the counts), and single approvals by id, answered or not (`approvals.get`), for the card a
 * tapped notification opens. Those are asked for as soon as the connection opens, before the
 * session list and everything else (HostConnection calls `opened` first), and kept current: an
 * answer from here or an approval event updates one, and one that left the waiting list is asked
 * for again, so its card says at once that it was answered elsewhere.
 */
export class HostApprovals {
  /** Approvals waiting for an answer, in every session of this host. */
  readonly pending = new Store<Approval[]>([]);
  private readonly lookups = new Map<string, Store<ApprovalLookup>>();
  private timer: TimerHandle | undefined;

  constructor(
    private readonly client: Pick<DeviceClient, 'call' | 'state'>,
    private readonly clock: Pick<Clock, 'setTimeout'>,
  ) {}

  lookup(id: string): Store<ApprovalLookup> {
    let lookup = this.lookups.get(id);
    if (!lookup) {
      lookup = new Store<ApprovalLookup>({ state: 'loading' });
      this.lookups.set(id, lookup);
      for (const old of this.lookups.keys()) {
        if (this.lookups.size <= MAX_LOOKUPS) break;
        this.lookups.delete(old);
      }
      if (this.client.state.name === 'open') void this.ask(id);
    }
    return lookup;
  }

  /** The connection (re)opened: every approval looked up is asked for, first of all the calls. */
  opened(): void {
    for (const id of this.lookups.keys()) void this.ask(id);
  }

  /**
   * Answers an approval, now or not at all: an answer is never kept to be sent later (the person
   * would be deciding about a moment that has passed), so without a connection it fails at once.
   */
  async answer(approvalId: string, decision: Decision, note?: string): Promise<Result<Approval>> {
    if (this.client.state.name !== 'open') {
      return fail('disconnected', 'not connected to the computer: the answer was not sent');
    }
    const result = await this.client.call('approvals.answer', { id: approvalId, decision, ...(note ? { note } : {}) });
    if (result.ok) this.changed(result.value.approval);
    else if (result.error.code === 'already-resolved') this.scheduleRefresh();
    return result.ok ? { ok: true, value: result.value.approval } : result;
  }

  /** An approval as an event or an answer gave it. */
  changed(approval: Approval): void {
    this.pending.update((list) => {
      const others = list.filter((a) => a.id !== approval.id);
      return approval.status === 'pending' ? [...others, approval] : others;
    });
    const lookup = this.lookups.get(approval.id);
    if (!lookup) return;
    const current = lookup.get();
    const sessionTitle = current.state === 'found' ? current.sessionTitle : undefined;
    lookup.set({ state: 'found', approval, ...(sessionTitle !== undefined ? { sessionTitle } : {}) });
  }

  scheduleRefresh(): void {
    if (this.timer !== undefined) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, REFRESH_DELAY_MS);
  }

  /** The waiting list from the host; a looked-up approval shown waiting but not in it was answered. */
  async refresh(): Promise<void> {
    const result = await this.client.call('approvals.list', {});
    if (!result.ok) return;
    const pending = result.value.approvals.filter((a) => a.status === 'pending');
    this.pending.set(pending);
    const ids = new Set(pending.map((a) => a.id));
    for (const [id, lookup] of this.lookups) {
      const current = lookup.get();
      if (current.state === 'found' && current.approval.status === 'pending' && !ids.has(id)) void this.ask(id);
    }
  }

  private async ask(id: string): Promise<void> {
    const result = await this.client.call('approvals.get', { id });
    const lookup = this.lookups.get(id);
    if (!lookup) return;
    if (result.ok) {
      const { approval, sessionTitle } = result.value;
      lookup.set({ state: 'found', approval, ...(sessionTitle !== undefined ? { sessionTitle } : {}) });
    } else if (result.error.code === 'not-found') lookup.set({ state: 'missing' });
    else if (result.error.code === 'unknown-method') {
      // A host from before approvals.get: its waiting list says whether the approval still waits.
      const listed = await this.client.call('approvals.list', {});
      const approval = listed.ok ? listed.value.approvals.find((a) => a.id === id) : undefined;
      if (listed.ok) lookup.set(approval ? { state: 'found', approval } : { state: 'missing' });
    }
    // Anything else (the connection dropped): asked again when it opens.
  }
}
