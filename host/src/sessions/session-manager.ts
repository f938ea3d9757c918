import type { Attachment, Clock, NotifyLevel, Result, SessionKind, SessionSummary } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { EventLog } from '../store/event-log.js';
import type { SessionRecord, UserMessage } from '../store/session-store.js';
import type { RunCommand } from './session-backend.js';
import { SessionJournal } from './session-journal.js';
import type { SessionRunsDeps } from './session-runs.js';
import { SessionRuns } from './session-runs.js';

export interface SessionManagerDeps extends SessionRunsDeps {
  log: EventLog;
  defaultModel: string;
  /** Where sessions are written; one over `sessions` and `log` when absent. */
  journal?: SessionJournal;
  /** The attachment `blobId` is in `sessionId` (blob-store.ts); without, messages take none. */
  attachments?: (sessionId: string, blobId: string) => Attachment | undefined;
}

const TITLE_CHARS = 80;

/**
 * Sessions and their runs: creates sessions, starts a run per message (queuing follow-ups while
 * one is busy), interrupts, and recovers after a crash. The session's status and summary follow
 * every change and are announced as `session.updated` events.
 */
export class SessionManager {
  private readonly journal: SessionJournal;
  private readonly runs: SessionRuns;

  constructor(private readonly deps: SessionManagerDeps) {
    this.journal = deps.journal ?? new SessionJournal(deps);
    this.runs = new SessionRuns(deps, this.journal);
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
    else this.runs.start(record.id, input.text === undefined ? [] : [{ text: input.text }]);
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
    return ok({ queued: !this.runs.start(id, [...this.deps.sessions.takeQueued(id), message]) });
  }

  interrupt(id: string): Result<Record<string, never>> {
    const record = this.deps.sessions.get(id);
    if (!record) return fail('not-found', `no session ${id}`);
    const live = this.deps.backends[record.kind]?.live;
    if (live) return live.interrupt(id);
    this.runs.abort(id);
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
    this.runs.start(id, command ? [] : this.deps.sessions.takeQueued(id), command);
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
    const ended = this.runs.abortAll();
    this.journal.close();
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    await Promise.race([
      Promise.all(ended),
      new Promise<void>((resolve) => (timer = this.deps.clock.setTimeout(resolve, timeoutMs))),
    ]);
    if (timer !== undefined) this.deps.clock.clearTimeout(timer);
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
