import type { AnsweredBy, Approval, Clock, Decision, ProtocolError, Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { ApprovalStore } from '../store/approval-store.js';
import type { EventLog } from '../store/event-log.js';
import type { ApprovalNeed } from '../tools/tool.js';

export interface ApprovalOutcome {
  status: 'allowed' | 'denied' | 'cancelled';
  decision?: Decision;
  note?: string;
  prefix?: string;
  approval: Approval;
}

export interface AnswerInput {
  decision: Decision;
  note?: string;
  prefix?: string;
  /**
   * Why the note is kept from the agent, when it is: a note reaches the agent as the person's
   * words, so only a surface that may send messages gives one (device-handlers.ts). The note is
   * still recorded with the answer, for people, and the transcript says it was kept back.
   */
  noteKept?: string;
}

interface Waiter {
  resolve: (outcome: ApprovalOutcome) => void;
  /** Checks an answer before it is recorded (e.g. that a chosen prefix fits the command). */
  validate: (answer: AnswerInput) => string | undefined;
}

/**
 * Raises approvals and takes answers from any surface (the local CLI, any device, a push action).
 * The first answer wins: it is recorded with a conditional update, so a second one, from wherever,
 * gets `already-resolved`. Every request and answer is in the session's event log.
 */
export class ApprovalBroker {
  private readonly waiters = new Map<string, Waiter>();

  constructor(
    private readonly store: ApprovalStore,
    private readonly log: EventLog,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly newId: () => string,
  ) {}

  /**
   * Raises an approval (recorded and announced before this returns) and gives the answer to come:
   * from any surface, or a cancellation when `signal` aborts (an interrupt).
   */
  request(
    input: {
      sessionId: string;
      toolCallId: string;
      tool: string;
      need: ApprovalNeed;
      cwd: string;
      place: string;
      /** The agent's own answer that outlives the session, in its words: offered as `allow-always`. */
      always?: string;
    },
    signal: AbortSignal,
    validate: (answer: AnswerInput) => string | undefined = () => undefined,
  ): { approval: Approval; outcome: Promise<ApprovalOutcome> } {
    const approval = this.store.insert({
      id: this.newId(),
      sessionId: input.sessionId,
      toolCallId: input.toolCallId,
      tool: input.tool,
      kind: input.need.kind,
      action: input.need.action,
      cwd: input.cwd,
      place: input.place,
      ...(input.always !== undefined ? { always: input.always } : {}),
      createdAt: this.clock.now(),
    });
    const outcome = new Promise<ApprovalOutcome>((resolve) => {
      const onAbort = () => {
        this.resolve(approval.id, { status: 'cancelled', by: { kind: 'local', label: 'interrupted' } });
      };
      this.waiters.set(approval.id, {
        validate,
        resolve: (outcome) => {
          signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      });
      this.log.append(input.sessionId, { type: 'approval.requested', approval });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    return { approval, outcome };
  }

  answer(id: string, answer: AnswerInput, by: AnsweredBy): Result<Approval> {
    const existing = this.store.get(id);
    if (!existing) return fail('not-found', `no approval ${id}`);
    if (existing.status !== 'pending') return alreadyResolved(existing);
    if (answer.prefix !== undefined && answer.decision !== 'allow-session') {
      return fail('invalid-params', 'a prefix goes with allow-session');
    }
    if (answer.decision === 'allow-always' && existing.always === undefined) {
      return fail('invalid-params', 'this approval offers no answer that outlives the session');
    }
    const problem = this.waiters.get(id)?.validate(answer);
    if (problem) return fail('invalid-params', problem);
    const status = answer.decision === 'deny' ? 'denied' : 'allowed';
    const { noteKept, ...recorded } = answer;
    const kept = noteKept !== undefined && answer.note !== undefined && answer.note !== '';
    const resolved = this.resolve(id, { status, ...recorded, by }, kept);
    if (resolved?.ok && kept) {
      this.log.append(existing.sessionId, {
        type: 'notice',
        level: 'info',
        text: `The note with this answer was not given to the agent: ${noteKept}. The agent got the plain answer.`,
      });
    }
    return resolved ?? alreadyResolved(this.store.get(id) ?? existing);
  }

  /** One approval, pending or answered. */
  get(id: string): Approval | undefined {
    return this.store.get(id);
  }

  /** Pending approvals, oldest first; of one session when given. */
  pending(sessionId?: string): Approval[] {
    return this.store.list({ pendingOnly: true, ...(sessionId !== undefined ? { sessionId } : {}) });
  }

  /** Cancels what is pending for a session with no live run to wait for it (after a restart). */
  cancelOrphans(sessionId: string): void {
    for (const approval of this.pending(sessionId)) {
      this.resolve(approval.id, { status: 'cancelled', by: { kind: 'local', label: 'host restarted' } });
    }
  }

  /** Records the answer and hands it to the waiting run; `keepNote`: the run does not get the note. */
  private resolve(
    id: string,
    answer: { status: ApprovalOutcome['status']; decision?: Decision; note?: string; prefix?: string; by: AnsweredBy },
    keepNote = false,
  ): Result<Approval> | undefined {
    const at = this.clock.now();
    if (!this.store.resolve(id, { ...answer, at })) return undefined;
    const approval = this.store.get(id)!;
    this.log.append(approval.sessionId, { type: 'approval.resolved', approval });
    const waiter = this.waiters.get(id);
    this.waiters.delete(id);
    const { note, ...rest } = answer;
    waiter?.resolve({ status: answer.status, ...optional(keepNote ? rest : { ...rest, note }), approval });
    return ok(approval);
  }
}

function optional(answer: { decision?: Decision; note?: string; prefix?: string }) {
  const out: { decision?: Decision; note?: string; prefix?: string } = {};
  if (answer.decision !== undefined) out.decision = answer.decision;
  if (answer.note !== undefined) out.note = answer.note;
  if (answer.prefix !== undefined) out.prefix = answer.prefix;
  return out;
}

function alreadyResolved(approval: Approval): { ok: false; error: ProtocolError } {
  const who = approval.answeredBy ? ` by ${approval.answeredBy.label}` : '';
  return fail('already-resolved', `approval ${approval.id} was already ${approval.status}${who}`);
}
