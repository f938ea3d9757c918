import type { Decision } from '@tether/shared-protocol';
import type { AllowRule, SessionRecord } from '../store/session-store.js';
import type { ApprovalNeed } from '../tools/tool.js';
import type { AnswerInput, ApprovalBroker } from './approval-broker.js';
import type { InFolder } from './approval-policy.js';
import { isAllowedByRules, ruleForAnswer } from './approval-policy.js';

/** What a back-end asks to do, and where. */
export interface GateRequest {
  toolCallId: string;
  tool: string;
  need: ApprovalNeed;
  /** `local`, or the machine's name: shown on the approval card. */
  place: string;
  /**
   * The agent's own answer that outlives the session (an ACP agent's allow-always option), in its
   * words: offered to the person as `allow-always`, and never chosen by a rule or auto-approve.
   */
  always?: string;
}

export type GateOutcome =
  | { allowed: true; by: 'auto' | 'rule' }
  /** `decision` says whether the person allowed it once, for the session, or always (the agent's own option). */
  | { allowed: true; by: 'person'; decision: Exclude<Decision, 'deny'> }
  | { allowed: false; reason: 'denied'; note?: string }
  | { allowed: false; reason: 'cancelled' };

/** What the gate needs of the session it guards. */
export interface GatedSession {
  /** The session as stored now: its rules and auto-approve may change during a run. */
  record(): SessionRecord;
  addAllowRule(rule: AllowRule): void;
  /** The session waits for the person (true) or runs again (false). */
  setWaiting(waiting: boolean): void;
  /**
   * Whether a path (absolute, or relative to the session folder) really lies in the session folder
   * and outside the private folders, on the computer the session runs on: a prefix rule covers
   * only words that do.
   */
  inFolder: InFolder;
}

/**
 * The one approval gate every session back-end goes through (the built-in loop, an ACP agent):
 * auto-approve and the session's "allow for this session" rules first, else an approval raised
 * with the broker, where the first answer from any surface wins. An interrupt cancels it.
 */
export class ApprovalGate {
  constructor(
    private readonly broker: ApprovalBroker,
    private readonly session: GatedSession,
  ) {}

  async ask(request: GateRequest, signal: AbortSignal): Promise<GateOutcome> {
    const record = this.session.record();
    // A plan is the person's to accept, whatever auto-approve or a rule would allow.
    const personOnly = request.need.kind === 'plan';
    if (record.autoApprove && !personOnly) return { allowed: true, by: 'auto' };
    if (!personOnly && (await isAllowedByRules(record.allowRules, request.tool, request.need, this.session.inFolder))) {
      return { allowed: true, by: 'rule' };
    }
    const answer = await this.raise(request, signal, (answer) => {
      if (answer.decision !== 'allow-session') return undefined;
      const rule = ruleForAnswer(request.tool, request.need, answer.prefix);
      return 'error' in rule ? rule.error : undefined;
    });
    if (!answer.allowed) return answer;
    if (answer.decision === 'allow-session') {
      const rule = ruleForAnswer(request.tool, request.need, answer.prefix);
      if (!('error' in rule)) this.session.addAllowRule(rule);
    }
    return { allowed: true, by: 'person', decision: answer.decision };
  }

  /**
   * Asks the person whatever auto-approve and the session's rules say, and makes no rule of the
   * answer: for a decision that outlives the run (trusting a folder's own configuration), which
   * no switch or rule made for commands may give.
   */
  async askPerson(request: GateRequest, signal: AbortSignal): Promise<GateOutcome & { answeredBy?: string }> {
    const answer = await this.raise(request, signal, (answer) =>
      answer.prefix !== undefined ? 'a prefix goes with a command' : undefined,
    );
    if (!answer.allowed) return answer;
    const { prefix: _prefix, ...outcome } = answer;
    return outcome;
  }

  private async raise(
    request: GateRequest,
    signal: AbortSignal,
    validate: (answer: AnswerInput) => string | undefined,
  ): Promise<Exclude<GateOutcome, { by: 'auto' | 'rule' }> & { prefix?: string; answeredBy?: string }> {
    const record = this.session.record();
    const raised = this.broker.request(
      {
        sessionId: record.id,
        toolCallId: request.toolCallId,
        tool: request.tool,
        need: request.need,
        cwd: record.cwd,
        place: request.place,
        ...(request.always !== undefined ? { always: request.always } : {}),
      },
      signal,
      validate,
    );
    // Announced after the approval exists, so the summary counts it.
    this.session.setWaiting(true);
    const answer = await raised.outcome;
    if (!signal.aborted) this.session.setWaiting(false);
    if (answer.status === 'cancelled') return { allowed: false, reason: 'cancelled' };
    if (answer.status === 'denied') {
      return { allowed: false, reason: 'denied', ...(answer.note ? { note: answer.note } : {}) };
    }
    return {
      allowed: true,
      by: 'person',
      decision:
        answer.decision === 'allow-session' || answer.decision === 'allow-always' ? answer.decision : 'allow-once',
      ...(answer.prefix !== undefined ? { prefix: answer.prefix } : {}),
      ...(answer.approval.answeredBy ? { answeredBy: answer.approval.answeredBy.label } : {}),
    };
  }
}
