import type { ContentBlock, StopReason } from '@agentclientprotocol/sdk';
import { methods, RequestError } from '@agentclientprotocol/sdk';
import type { Clock, Result, SessionEvent } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import type { PriceBook } from '../../models/prices.js';
import type { SteeringStore } from '../../store/steering-store.js';
import type { BackendSteering, RunContext, RunResult, SessionBackend } from '../session-backend.js';
import type { SpendState } from '../spend-guard.js';
import { promptRefusal } from '../spend-guard.js';
import { acpSteering } from './acp-steering.js';
import type { TurnUsage } from './acp-usage.js';
import { turnCost, turnUsage } from './acp-usage.js';
import type { EventLog } from '../../store/event-log.js';
import type { FolderTrust } from '../trust/folder-trust.js';
import type { SessionRecord, UserMessage } from '../../store/session-store.js';
import { userMessageEvent } from '../user-message.js';
import { promptBlocks } from './acp-prompt.js';
import type { AgentCatalog } from './agent-catalog.js';
import type { LiveAgent } from './acp-agent-pool.js';
import { AcpAgentPool } from './acp-agent-pool.js';
import { errorText } from './acp-error-text.js';
import type { AcpLimits, AcpStartDeps } from './acp-start.js';
import { DEFAULT_ACP_LIMITS, failure, reportStderr, startAgent } from './acp-start.js';
import type { AcpSessionStore } from './acp-session-store.js';
import { AcpTurn } from './acp-turn.js';
import { settle } from './settle.js';

export type { AcpLimits } from './acp-start.js';
export { DEFAULT_ACP_LIMITS } from './acp-start.js';

export interface AcpBackendDeps {
  catalog: AgentCatalog;
  log: EventLog;
  sessions: AcpSessionStore;
  clock: Clock;
  /** The host's own environment, from which an agent's `passEnv` variables are taken. */
  env: NodeJS.ProcessEnv;
  limits?: Partial<AcpLimits>;
  /** Folder trust: without it, no folder's own configuration loads. */
  trust?: FolderTrust;
  /** What agents offer (commands, modes, models) and each session's choice; without, none is kept. */
  steering?: SteeringStore;
  /** What models cost, for the turns whose usage an agent reports. */
  prices?: PriceBook;
}

const REQUEST_CANCELLED = -32800;
type PromptOutcome =
  | { kind: 'stopped'; stopReason: StopReason; usage?: TurnUsage }
  | { kind: 'failed'; message: string }
  | { kind: 'ended'; why: string }
  | { kind: 'hung' }
  | { kind: 'killed' };

/**
 * Sessions run by an agent that speaks the Agent Client Protocol, with Tether as its client. The
 * agent is a child process started through the session's execution context, in the session's
 * folder; it is kept between runs (up to a bound, for a while) so it remembers the conversation,
 * and when a new process is needed its own session is loaded where it supports that.
 *
 * A run sends the new messages as one prompt, then any follow-ups queued meanwhile, until the
 * agent ends its turn. An interrupt sends `session/cancel` and ends the process if it does not
 * stop in time; an agent that exits or stays silent too long ends the run as an error with the
 * end of its stderr as a notice, and the next prompt starts a new process. What a turn used is
 * counted where the agent says (acp-usage.ts); a run none of whose turns said reports no usage
 * (shown as unknown, never as 0). Under a budget, each prompt is sent only while the session has
 * spent less than it (spend-guard.ts).
 */
export class AcpBackend implements SessionBackend {
  private readonly limits: AcpLimits;
  private readonly agents: AcpAgentPool;
  private readonly startDeps: AcpStartDeps;
  readonly steering: BackendSteering | undefined;

  constructor(private readonly deps: AcpBackendDeps) {
    this.limits = { ...DEFAULT_ACP_LIMITS, ...deps.limits };
    this.agents = new AcpAgentPool(deps.clock, this.limits);
    this.startDeps = {
      agents: this.agents,
      limits: this.limits,
      sessions: deps.sessions,
      clock: deps.clock,
      env: deps.env,
      ...(deps.trust ? { trust: deps.trust } : {}),
      ...(deps.steering ? { steering: deps.steering } : {}),
    };
    this.steering =
      deps.steering &&
      acpSteering({
        store: deps.steering,
        agents: this.agents,
        catalog: deps.catalog,
        clock: deps.clock,
        ...(deps.prices ? { prices: deps.prices } : {}),
      });
  }

  check(agent: string): Result<void> {
    const checked = this.deps.catalog.check(agent);
    return checked.ok ? ok(undefined) : checked;
  }

  /** An ACP session's model is the name of the agent it talks to. */
  agent(model: string): string {
    return model;
  }

  async run(run: RunContext): Promise<RunResult> {
    const record = run.record();
    const agent = record.agent ?? record.model;
    const spec = this.deps.catalog.get(agent);
    if (!spec) return failure(`no agent named ${agent} is configured on this host`);
    const texts = promptMessages(this.deps.log.readAll(run.sessionId));
    // A session continued from elsewhere starts with a run of no message: it loads the conversation.
    const continuing = this.deps.sessions.get(run.sessionId)?.history === 'pending';
    if (texts.length === 0 && !continuing) return { status: 'done' };

    let live = this.agents.reusable(run.sessionId, run.context.place, spec);
    if (!live) {
      const started = await startAgent(this.startDeps, run, spec);
      if ('status' in started) return started;
      live = started;
    }
    this.agents.hold(live);
    if (texts.length === 0) {
      this.agents.release(live);
      return { status: 'done' };
    }
    const turn = new AcpTurn(run, spec, () => live.connection.kill());
    live.connection.attach(live.acpSessionId, turn);
    let ending = 'The run ended before the agent finished this.';
    const used: { usage?: { inputTokens: number; outputTokens: number } } = {};
    const withUsage = (result: RunResult): RunResult => (used.usage ? { ...result, usage: used.usage } : result);
    try {
      let prompt = texts;
      for (;;) {
        const outcome = await this.prompt(live, turn, prompt, run);
        if (outcome.kind === 'stopped') this.count(run, spec.name, outcome.usage, used);
        switch (outcome.kind) {
          case 'stopped': {
            if (outcome.stopReason === 'cancelled') {
              if (run.signal.aborted || turn.denials === 0) return withUsage({ status: 'interrupted' });
              // Nobody interrupted: the agent ended its turn because the person said no.
              run.append({
                type: 'notice',
                level: 'info',
                text: `${spec.title} ended its turn after the denial: send a message to say what to do instead.`,
              });
              ending = 'Not run: the agent ended its turn after the denial.';
              return withUsage({ status: 'done' });
            }
            const notice = STOP_NOTICES[outcome.stopReason];
            if (notice) run.append({ type: 'notice', level: 'warning', text: notice(spec.title) });
            break;
          }
          case 'failed':
            return withUsage(failure(`${spec.title} could not answer: ${outcome.message}`));
          case 'ended':
            ending = 'The agent stopped before finishing this.';
            reportStderr(run, live);
            return withUsage(failure(`${spec.title} stopped: ${outcome.why}`));
          case 'hung':
            ending = 'The agent stopped answering before finishing this.';
            this.agents.discard(live);
            reportStderr(run, live);
            return withUsage(
              failure(
                `${spec.title} said nothing for ${Math.round(this.limits.idleLimitMs / 1000)} s and was stopped; the next message starts it again`,
              ),
            );
          case 'killed':
            ending = 'Interrupted.';
            this.agents.discard(live);
            return withUsage({ status: 'interrupted' });
        }
        if (run.signal.aborted) return withUsage({ status: 'interrupted' });
        // Follow-ups wait, queued, while the budget is reached: they go when it is raised.
        const refused = this.budgetRefusal(run.record(), run.spend?.());
        if (refused !== undefined) {
          run.append({ type: 'notice', level: 'warning', text: refused });
          return withUsage({ status: 'done', budgetReached: refused });
        }
        const queued = run.takeQueued();
        if (queued.length === 0) return withUsage({ status: 'done' });
        turn.log.endMessage();
        for (const message of queued) run.append(userMessageEvent(run.newId('m'), message));
        prompt = queued;
      }
    } finally {
      turn.close(run.signal.aborted ? 'Interrupted.' : ending);
      live.connection.detach();
      this.agents.release(live);
    }
  }

  /** Why the next prompt may not be sent under the session's budget, if it may not. */
  budgetRefusal(record: SessionRecord, spend: SpendState | undefined): string | undefined {
    if (!spend?.budget) return undefined;
    const agent = record.agent ?? record.model;
    const title = this.deps.catalog.get(agent)?.title ?? agent;
    return promptRefusal(spend, this.deps.steering?.agentOffers(agent)?.reportsUsage, title);
  }

  /**
   * A prompt's usage, where the agent said it: into the session's totals (priced where the model
   * is) and the run's; whether it said is kept for the agent (a budget needs an agent that does).
   */
  private count(
    run: RunContext,
    agent: string,
    usage: TurnUsage | undefined,
    used: { usage?: { inputTokens: number; outputTokens: number } },
  ): void {
    this.deps.steering?.keepAgentOffers(agent, { reportsUsage: usage !== undefined }, this.deps.clock.now());
    if (!usage) return;
    const model = this.deps.steering?.get(run.sessionId).agentModel?.id;
    run.progress?.({
      usage: {
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        ...turnCost(usage, this.deps.prices, model),
      },
    });
    used.usage = {
      inputTokens: (used.usage?.inputTokens ?? 0) + usage.inputTokens,
      outputTokens: (used.usage?.outputTokens ?? 0) + usage.outputTokens,
    };
  }

  /** Ends every agent process (the host is stopping). Runs were interrupted before this. */
  close(): Promise<void> {
    return this.agents.close();
  }

  /** How many agent processes are alive now (running or kept). */
  get liveAgents(): number {
    return this.agents.size;
  }

  /**
   * One prompt, to its end: the agent's answer, or its process ending, or its silence past the
   * idle limit. An interrupt sends `session/cancel`; an agent that has not stopped within the
   * grace period is ended.
   */
  private async prompt(
    live: LiveAgent,
    turn: AcpTurn,
    messages: readonly UserMessage[],
    run: RunContext,
  ): Promise<PromptOutcome> {
    const { connection } = live;
    const prompt: ContentBlock[] = promptBlocks(messages, live, run);
    const request = connection.agent.request(methods.agent.session.prompt, { sessionId: live.acpSessionId, prompt });
    let cancelDeadline: number | undefined;
    for (;;) {
      const now = this.deps.clock.now();
      const ms =
        cancelDeadline !== undefined
          ? cancelDeadline - now
          : Math.max(1, this.limits.idleLimitMs - connection.silentFor());
      const outcome = await settle(request, {
        clock: this.deps.clock,
        ms,
        ended: connection.ended,
        ...(cancelDeadline === undefined ? { signal: run.signal } : {}),
      });
      switch (outcome.kind) {
        case 'value': {
          turn.log.endMessage();
          const usage = turnUsage(outcome.value);
          return { kind: 'stopped', stopReason: outcome.value.stopReason, ...(usage ? { usage } : {}) };
        }
        case 'ended':
          return { kind: 'ended', why: outcome.why };
        case 'error':
          if (connection.closedSignal.aborted) return { kind: 'ended', why: await connection.ended };
          if (
            cancelDeadline !== undefined &&
            outcome.error instanceof RequestError &&
            outcome.error.code === REQUEST_CANCELLED
          ) {
            return { kind: 'stopped', stopReason: 'cancelled' };
          }
          return { kind: 'failed', message: errorText(outcome.error) };
        case 'aborted':
          cancelDeadline = this.deps.clock.now() + this.limits.cancelGraceMs;
          void connection.agent
            .notify(methods.agent.session.cancel, { sessionId: live.acpSessionId })
            .catch(() => undefined);
          break;
        case 'timeout':
          if (cancelDeadline !== undefined) {
            connection.kill();
            return { kind: 'killed' };
          }
          if (connection.silentFor() >= this.limits.idleLimitMs) return { kind: 'hung' };
          break;
      }
    }
  }
}

const STOP_NOTICES: Partial<Record<StopReason, (agent: string) => string>> = {
  max_tokens: (agent) => `${agent} reached its output token limit and stopped.`,
  max_turn_requests: (agent) => `${agent} reached its limit of model requests for one turn and stopped.`,
  refusal: (agent) => `${agent} refused to go on with this.`,
};

/** The user messages of the run about to start: every one after the last run ended. */
export function promptMessages(events: Iterable<SessionEvent>): UserMessage[] {
  let messages: UserMessage[] = [];
  for (const event of events) {
    if (event.type === 'run.finished') messages = [];
    else if (event.type === 'message' && event.role === 'user')
      messages.push(event.attachments ? { text: event.text, attachments: event.attachments } : { text: event.text });
  }
  return messages;
}
