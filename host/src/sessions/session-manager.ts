import type {
  Attachment,
  Clock,
  NotifyLevel,
  Result,
  SessionEventBody,
  SessionKind,
  SessionSummary,
} from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { ExecutionContext } from '@tether/machine';
import type { EventLog } from '../store/event-log.js';
import type { SessionRecord, SessionStore, UserMessage } from '../store/session-store.js';
import type { ApprovalBroker } from './approval-broker.js';
import { ApprovalGate } from './approval-gate.js';
import { folderPlaces } from './approval-policy.js';
import { recordProgress, spendOf } from './run-accounts.js';
import type { RunCommand, RunResult, SessionBackend } from './session-backend.js';
import { SessionJournal } from './session-journal.js';
import { userMessageEvent } from './user-message.js';

export interface SessionManagerDeps {
  sessions: SessionStore;
  log: EventLog;
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
  defaultModel: string;
  /** Notices every session should see once, at its next run (an MCP server that failed). */
  startNotices?: () => readonly string[];
  /** Where sessions are written; one over `sessions` and `log` when absent. */
  journal?: SessionJournal;
  /** The attachment `blobId` is in `sessionId` (blob-store.ts); without, messages take none. */
  attachments?: (sessionId: string, blobId: string) => Attachment | undefined;
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

const TITLE_CHARS = 80;

/**
 * Sessions and their runs: creates sessions, starts a run per message (queuing follow-ups while
 * one is busy), interrupts, and recovers after a crash. The session's status and summary follow
 * every change and are announced as `session.updated` events.
 */
export class SessionManager {
  private readonly runs = new Map<string, ActiveRun>();
  /** How many of the start notices each session has been shown. */
  private readonly noticesShown = new Map<string, number>();
  private readonly journal: SessionJournal;

  constructor(private readonly deps: SessionManagerDeps) {
    this.journal = deps.journal ?? new SessionJournal(deps);
  }

  list(includeArchived = false): SessionSummary[] {
    return this.deps.sessions.list(includeArchived).map((r) => this.deps.sessions.summary(r));
  }

  get(id: string): SessionSummary | undefined {
    const record = this.deps.sessions.get(id);
    return record && this.deps.sessions.summary(record);
  }

  /**
   * A new session, and its first run. Without `text` the run starts with no message (a session
   * continued from elsewhere loads its conversation); `prepare` is called once the session is
   * stored, before that run starts.
   */
  async create(input: {
    cwd: string;
    text?: string;
    title?: string;
    model?: string;
    place?: string;
    kind?: SessionKind;
    prepare?: (sessionId: string) => void;
    /** Stored without a first run (`/clear`: a new session that waits for its first message). */
    idle?: boolean;
  }): Promise<Result<SessionSummary>> {
    const kind = input.kind ?? 'agent';
    const backend = this.deps.backends[kind];
    if (!backend) return fail('unsupported', `this host does not run sessions of kind ${kind}`);
    const place = input.place ?? 'local';
    const context = this.deps.contexts(place);
    if (!context) return fail('not-found', `no machine named ${place}`);
    const folder = await context.checkFolder(input.cwd);
    if (!folder.ok) {
      return fail(folder.error.code === 'unreachable' ? 'unavailable' : 'invalid-params', folder.error.message);
    }
    const model = input.model ?? this.deps.defaultModel;
    const checked = backend.check(model);
    if (!checked.ok) return checked;
    const now = this.deps.clock.now();
    const agent = backend.agent?.(model);
    const record = this.deps.sessions.insert({
      id: this.deps.newId('s'),
      title: titleOf(input.title ?? input.text ?? ''),
      kind,
      place,
      cwd: folder.value,
      model,
      ...(agent !== undefined ? { agent } : {}),
      status: 'idle',
      createdAt: now,
      updatedAt: now,
    });
    input.prepare?.(record.id);
    if (input.idle) this.announce(record.id);
    else this.startRun(record.id, input.text === undefined ? [] : [{ text: input.text }]);
    return ok(this.get(record.id)!);
  }

  /**
   * Sends a message: starts a run, or queues it for the end of the current run's turn. With a
   * `clientId` the host takes the message once: a resend of an id already taken (after a dropped
   * connection) changes nothing and gets the first answer, marked `duplicate`.
   */
  send(
    id: string,
    text: string,
    clientId?: string,
    attachmentIds: readonly string[] = [],
  ): Result<{ queued: boolean; duplicate?: boolean }> {
    const record = this.deps.sessions.get(id);
    if (!record) return fail('not-found', `no session ${id}`);
    const earlier = clientId === undefined ? undefined : this.deps.sessions.receipt(id, clientId);
    if (earlier) return ok({ ...earlier, duplicate: true });
    const message = this.message(record, text, attachmentIds);
    if (!message.ok) return message;
    const result = this.take(record, message.value);
    if (clientId === undefined) return result;
    if (result.ok) this.deps.sessions.keepReceipt(id, clientId, result.value.queued, this.deps.clock.now());
    return result;
  }

  /**
   * The message as the session will keep it: each attachment id must name a blob sent to this
   * very session (another session's blob is as unknown as none), and the back-end must take
   * attachments at all (a program in a terminal takes typed text only).
   */
  private message(record: SessionRecord, text: string, ids: readonly string[]): Result<UserMessage> {
    if (ids.length === 0) return ok({ text });
    if (this.deps.backends[record.kind]?.live) {
      return fail('unsupported', 'a program in a terminal takes typed text only; it cannot be sent a photo or a file');
    }
    const attachments: Attachment[] = [];
    for (const blobId of new Set(ids)) {
      const attachment = this.deps.attachments?.(record.id, blobId);
      if (!attachment) return fail('not-found', `no attachment ${blobId.slice(0, 12)}… in this session`);
      attachments.push(attachment);
    }
    return ok({ text, attachments });
  }

  private take(record: SessionRecord, message: UserMessage): Result<{ queued: boolean }> {
    const id = record.id;
    // A back-end whose session is a live program takes the message itself.
    const live = this.deps.backends[record.kind]?.live;
    if (live) return live.send(id, message.text);
    if (this.runs.has(id)) {
      this.deps.sessions.enqueue(id, message, this.deps.clock.now());
      this.announce(id);
      return ok({ queued: true });
    }
    // Messages still queued from an interrupted run go first, in the order they were sent.
    return ok({ queued: !this.startRun(id, [...this.deps.sessions.takeQueued(id), message]) });
  }

  interrupt(id: string): Result<Record<string, never>> {
    const record = this.deps.sessions.get(id);
    if (!record) return fail('not-found', `no session ${id}`);
    const live = this.deps.backends[record.kind]?.live;
    if (live) return live.interrupt(id);
    this.runs.get(id)?.controller.abort();
    return ok({});
  }

  archive(id: string, archived: boolean): Result<Record<string, never>> {
    if (!this.deps.sessions.get(id)) return fail('not-found', `no session ${id}`);
    this.deps.sessions.update(id, { archived });
    this.announce(id);
    return ok({});
  }

  setAutoApprove(id: string, enabled: boolean): Result<Record<string, never>> {
    if (!this.deps.sessions.get(id)) return fail('not-found', `no session ${id}`);
    this.deps.sessions.update(id, { autoApprove: enabled });
    this.deps.log.append(id, {
      type: 'notice',
      level: enabled ? 'warning' : 'info',
      text: enabled ? 'Auto-approve is on: actions run without asking.' : 'Auto-approve is off.',
    });
    this.announce(id);
    return ok({});
  }

  /**
   * Sets a session's own model-call limit per run (null: the host's default). Takes effect at its
   * next run; a session waiting at its limit stays so until someone says go on.
   */
  setMaxModelCalls(id: string, limit: number | null): Result<SessionSummary> {
    if (!this.deps.sessions.get(id)) return fail('not-found', `no session ${id}`);
    const activity = this.deps.sessions.activity;
    activity.setLimit(id, limit);
    this.deps.log.append(id, {
      type: 'notice',
      level: 'info',
      text:
        limit === null
          ? `Runs stop after ${activity.hostLimit} model calls (the computer's default).`
          : `Runs of this session stop after ${limit} model calls.`,
    });
    this.announce(id);
    return ok(this.get(id)!);
  }

  /** Sets when devices are notified of a session (push): needs, done or off. */
  setNotify(id: string, level: NotifyLevel): Result<SessionSummary> {
    if (!this.deps.sessions.get(id)) return fail('not-found', `no session ${id}`);
    this.deps.sessions.update(id, { notify: level });
    this.announce(id);
    return ok(this.get(id)!);
  }

  isRunning(id: string): boolean {
    return this.runs.has(id);
  }

  /**
   * Starts a run with no new message: one that carries out a command (`/compact`), or one that
   * goes on where the last stopped (its budget was raised). Refused while a run is busy.
   */
  goOn(id: string, command?: RunCommand): Result<Record<string, never>> {
    if (!this.deps.sessions.get(id)) return fail('not-found', `no session ${id}`);
    if (this.runs.has(id)) return fail('busy', 'a run is going: try again when it ends');
    // Messages held back at the budget go in first.
    this.startRun(id, command ? [] : this.deps.sessions.takeQueued(id), command);
    return ok({});
  }

  /**
   * After a restart: every run that was in flight is marked interrupted, with a notice, and
   * anything it was waiting for is cancelled. Nothing that was recorded is lost.
   */
  recover(): number {
    const stale = this.deps.sessions.listInFlight();
    for (const record of stale) {
      const live = this.deps.backends[record.kind]?.live;
      if (live) {
        // Its program was the host's child and ended with it.
        this.deps.log.append(record.id, { type: 'notice', level: 'warning', text: live.lostWithHost(record) });
        this.deps.sessions.update(record.id, { status: 'interrupted' });
        this.announce(record.id);
        continue;
      }
      this.deps.approvals.cancelOrphans(record.id);
      this.deps.log.append(record.id, {
        type: 'notice',
        level: 'warning',
        text: 'The host stopped while this session was running; the run was interrupted. Send a message to go on.',
      });
      this.deps.log.append(record.id, {
        type: 'run.finished',
        runId: this.deps.newId('r'),
        status: 'interrupted',
        usage: { inputTokens: 0, outputTokens: 0 },
      });
      this.deps.sessions.update(record.id, { status: 'interrupted' });
      this.announce(record.id);
    }
    return stale.length;
  }

  /** Interrupts every run and waits (up to `timeoutMs`) for them to record how they ended. */
  async shutdown(timeoutMs = 5000): Promise<void> {
    const runs = [...this.runs.values()];
    for (const run of runs) run.controller.abort();
    this.journal.close();
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    await Promise.race([
      Promise.all(runs.map((r) => r.done)),
      new Promise<void>((resolve) => (timer = this.deps.clock.setTimeout(resolve, timeoutMs))),
    ]);
    if (timer !== undefined) this.deps.clock.clearTimeout(timer);
  }

  /**
   * Starts a run with `messages`; false when the back-end may not be sent them under the session's
   * budget (an agent whose own calls Tether cannot check): they are kept queued, and it waits.
   */
  private startRun(id: string, messages: readonly UserMessage[], command?: RunCommand): boolean {
    const { sessions } = this.deps;
    const record = sessions.get(id)!;
    const refused =
      messages.length > 0 ? this.deps.backends[record.kind]?.budgetRefusal?.(record, spendOf(sessions, id)) : undefined;
    if (refused !== undefined) {
      for (const message of messages) sessions.enqueue(id, message, this.deps.clock.now());
      sessions.activity.change(id, { budgetReached: true });
      this.appendEvent(id, { type: 'notice', level: 'warning', text: refused });
      this.appendEvent(id, { type: 'session.waiting', reason: 'budget', text: refused.slice(0, 1000) });
      this.announce(id);
      return false;
    }
    const runId = this.deps.newId('r');
    for (const message of messages) this.appendEvent(id, userMessageEvent(this.deps.newId('m'), message));
    const notices = this.deps.startNotices?.() ?? [];
    for (const notice of notices.slice(this.noticesShown.get(id) ?? 0)) {
      this.appendEvent(id, { type: 'notice', level: 'warning', text: notice });
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
    this.announce(id);
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
      this.appendEvent(id, { type: 'notice', level: 'error', text: result.error ?? 'the run failed' });
    this.appendEvent(id, {
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
      this.appendEvent(id, {
        type: 'session.waiting',
        reason: 'limit',
        text: `Stopped after ${limit ?? 'the limit of'} model calls; say go on to continue.`,
      });
    }
    if (result.budgetReached !== undefined) {
      this.appendEvent(id, { type: 'session.waiting', reason: 'budget', text: result.budgetReached.slice(0, 1000) });
    }
    this.announce(id);
    // A follow-up queued just as the run ended goes out now rather than waiting for another message.
    const leftover = result.status === 'done' && !result.budgetReached ? this.deps.sessions.takeQueued(id) : [];
    if (leftover.length > 0) this.startRun(id, leftover);
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
      notice: (level, text) => this.appendEvent(id, { type: 'notice', level, text }),
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
        this.announce(id);
      },
      // The context confines a real path to the folder and refuses the private folders.
      inFolder: folderPlaces(context, () => this.deps.sessions.get(id)!.cwd),
    });
    return backend.run({
      sessionId: id,
      record: () => this.deps.sessions.get(id)!,
      append: (body) => this.appendEvent(id, body),
      takeQueued: () => {
        const queued = this.deps.sessions.takeQueued(id);
        if (queued.length > 0) this.announce(id);
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
        this.announceSoon(id);
      },
      spend: () => spendOf(this.deps.sessions, id),
      announce: () => this.announce(id),
      ...(command ? { command } : {}),
    });
  }

  private appendEvent(id: string, body: SessionEventBody): void {
    this.journal.append(id, body);
  }

  private announceSoon(id: string): void {
    this.journal.announceSoon(id);
  }

  /** Appends a `session.updated` carrying the summary as of that very event. */
  announce(id: string): void {
    this.journal.announce(id);
  }
}

function titleOf(text: string): string {
  const first = text.trim().split('\n')[0] ?? '';
  return first.length > TITLE_CHARS ? `${first.slice(0, TITLE_CHARS - 1)}…` : first || 'New session';
}
