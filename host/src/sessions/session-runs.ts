import type { Clock, SessionKind } from '@tether/shared-protocol';
import type { ExecutionContext } from '@tether/machine';
import type { SessionRecord, SessionStore, UserMessage } from '../store/session-store.js';
import type { ApprovalBroker } from './approval-broker.js';
import { ApprovalGate } from './approval-gate.js';
import { folderPlaces } from './approval-policy.js';
import { recordProgress, spendOf } from './run-accounts.js';
import type { RunCommand, RunResult, SessionBackend } from './session-backend.js';
import type { SessionJournal } from './session-journal.js';
import { userMessageEvent } from './user-message.js';

/** What the runs of sessions are given (the session manager's deps are a superset). */
export interface SessionRunsDeps {
  sessions: SessionStore;
  approvals: ApprovalBroker;
  /** The back-end that runs each kind of session; a kind without one cannot be created or run. */
  backends: Partial<Record<SessionKind, SessionBackend>>;
  /**
   * Where a session's tools act. With `run`, the context serves that run: a machine that is offline
   * makes its calls wait (with notices in the transcript) and its interrupt drops them; without,
   * it answers at once (creating a session checks its folder that way).
   */
  contexts: (place: string, run?: ContextRun) => ExecutionContext | undefined;
  clock: Clock;
  newId: (prefix: string) => string;
  /** Notices every session should see once, at its next run (an MCP server that failed). */
  startNotices?: () => readonly string[];
  /** The bytes of a blob, for a run that gives an attachment to its model or agent. */
  attachmentBytes?: (blobId: string) => Uint8Array | undefined;
}

/** What a run lends the context it runs in. */
export interface ContextRun {
  notice(level: 'info' | 'warning', text: string): void;
  signal: AbortSignal;
}

interface ActiveRun {
  controller: AbortController;
  done: Promise<void>;
}

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

/**
 * The runs of sessions, one at a time per session: starts one with its messages (or a command),
 * hands it to the session's back-end with an approval gate and its execution context, records how
 * it ended, and starts the next with what was queued meanwhile.
 */
export class SessionRuns {
  private readonly runs = new Map<string, ActiveRun>();
  /** How many of the start notices each session has been shown. */
  private readonly noticesShown = new Map<string, number>();

  constructor(
    private readonly deps: SessionRunsDeps,
    private readonly journal: SessionJournal,
  ) {}

  has(id: string): boolean {
    return this.runs.has(id);
  }

  abort(id: string): void {
    this.runs.get(id)?.controller.abort();
  }

  /** Interrupts every run; the promises settle once each has recorded how it ended. */
  abortAll(): Promise<void>[] {
    const runs = [...this.runs.values()];
    for (const run of runs) run.controller.abort();
    return runs.map((r) => r.done);
  }

  /**
   * Starts a run with `messages`; false when the back-end may not be sent them under the session's
   * budget (an agent whose own calls Tether cannot check): they are kept queued, and it waits.
   */
  start(id: string, messages: readonly UserMessage[], command?: RunCommand): boolean {
    const { sessions } = this.deps;
    const record = sessions.get(id)!;
    const refused =
      messages.length > 0 ? this.deps.backends[record.kind]?.budgetRefusal?.(record, spendOf(sessions, id)) : undefined;
    if (refused !== undefined) {
      for (const message of messages) sessions.enqueue(id, message, this.deps.clock.now());
      sessions.activity.change(id, { budgetReached: true });
      this.journal.append(id, { type: 'notice', level: 'warning', text: refused });
      this.journal.append(id, { type: 'session.waiting', reason: 'budget', text: refused.slice(0, 1000) });
      this.journal.announce(id);
      return false;
    }
    const runId = this.deps.newId('r');
    for (const message of messages) this.journal.append(id, userMessageEvent(this.deps.newId('m'), message));
    const notices = this.deps.startNotices?.() ?? [];
    for (const notice of notices.slice(this.noticesShown.get(id) ?? 0)) {
      this.journal.append(id, { type: 'notice', level: 'warning', text: notice });
    }
    this.noticesShown.set(id, notices.length);
    sessions.activity.change(id, {
      runStartedAt: this.deps.clock.now(),
      runEndedAt: null,
      modelCalls: 0,
      now: 'starting',
      paused: false,
      budgetReached: false,
      newRun: true,
    });
    sessions.update(id, { status: 'running' });
    this.journal.announce(id);
    // Registered before it executes: a run that fails before its first await ends (and
    // unregisters itself) inside `execute`, and must find itself registered when it does.
    const run: ActiveRun = { controller: new AbortController(), done: Promise.resolve() };
    this.runs.set(id, run);
    run.done = this.execute(record, runId, run, command);
    return true;
  }

  private async execute(record: SessionRecord, runId: string, run: ActiveRun, command?: RunCommand): Promise<void> {
    const id = record.id;
    let result: RunResult;
    try {
      result = await this.runBackend(record, run.controller.signal, command);
    } catch (error) {
      // A back-end that throws (a bug, or a failure before its first await) ends the run as an error.
      result = {
        status: 'error',
        error: `the run failed: ${error instanceof Error ? error.message : String(error)}`,
        usage: NO_USAGE,
      };
    }
    // No longer busy from here on: a message sent now starts a run (below, if it was queued).
    if (this.runs.get(id) === run) this.runs.delete(id);
    if (result.status === 'error')
      this.journal.append(id, { type: 'notice', level: 'error', text: result.error ?? 'the run failed' });
    this.journal.append(id, {
      type: 'run.finished',
      runId,
      status: result.status,
      ...(result.error !== undefined ? { error: result.error.slice(0, 4000) } : {}),
      usage: result.usage ?? NO_USAGE,
      ...(result.usage === undefined ? { usageReported: false } : {}),
    });
    this.deps.sessions.activity.change(id, {
      runEndedAt: this.deps.clock.now(),
      now: '',
      paused: result.limitReached === true,
      budgetReached: result.budgetReached !== undefined,
      ...(result.usage === undefined ? { addUnreportedRuns: 1 } : {}),
    });
    this.deps.sessions.update(id, { status: result.status === 'done' ? 'idle' : result.status });
    if (result.limitReached) {
      const limit = this.deps.sessions.activity.get(id)?.maxModelCalls;
      this.journal.append(id, {
        type: 'session.waiting',
        reason: 'limit',
        text: `Stopped after ${limit ?? 'the limit of'} model calls; say go on to continue.`,
      });
    }
    if (result.budgetReached !== undefined) {
      this.journal.append(id, { type: 'session.waiting', reason: 'budget', text: result.budgetReached.slice(0, 1000) });
    }
    this.journal.announce(id);
    // A follow-up queued just as the run ended goes out now rather than waiting for another message.
    const leftover = result.status === 'done' && !result.budgetReached ? this.deps.sessions.takeQueued(id) : [];
    if (leftover.length > 0) this.start(id, leftover);
  }

  private runBackend(record: SessionRecord, signal: AbortSignal, command?: RunCommand): Promise<RunResult> {
    const id = record.id;
    const backend = this.deps.backends[record.kind];
    if (!backend) {
      return Promise.resolve({
        status: 'error',
        error: `this host does not run sessions of kind ${record.kind}`,
        usage: NO_USAGE,
      });
    }
    const context = this.deps.contexts(record.place, {
      notice: (level, text) => this.journal.append(id, { type: 'notice', level, text }),
      signal,
    });
    if (!context) {
      return Promise.resolve({ status: 'error', error: `the machine ${record.place} is not known`, usage: NO_USAGE });
    }
    const gate = new ApprovalGate(this.deps.approvals, {
      record: () => this.deps.sessions.get(id)!,
      addAllowRule: (rule) => {
        const current = this.deps.sessions.get(id)!.allowRules;
        this.deps.sessions.update(id, { allowRules: [...current, rule] });
      },
      setWaiting: (waiting) => {
        this.deps.sessions.update(id, { status: waiting ? 'waiting' : 'running' });
        this.journal.announce(id);
      },
      // The context confines a real path to the folder and refuses the private folders.
      inFolder: folderPlaces(context, () => this.deps.sessions.get(id)!.cwd),
    });
    return backend.run({
      sessionId: id,
      record: () => this.deps.sessions.get(id)!,
      append: (body) => this.journal.append(id, body),
      takeQueued: () => {
        const queued = this.deps.sessions.takeQueued(id);
        if (queued.length > 0) this.journal.announce(id);
        return queued;
      },
      gate,
      context,
      attachmentBytes: (blobId) => this.deps.attachmentBytes?.(blobId),
      clock: this.deps.clock,
      newId: this.deps.newId,
      signal,
      maxModelCalls: this.deps.sessions.activity.limitFor(id),
      progress: (progress) => {
        recordProgress(this.deps.sessions, id, progress);
        this.journal.announceSoon(id);
      },
      spend: () => spendOf(this.deps.sessions, id),
      announce: () => this.journal.announce(id),
      ...(command ? { command } : {}),
    });
  }
}
