import type {
  ChoiceRef,
  Result,
  SessionBudget,
  SessionControls,
  SessionKind,
  SessionSummary,
} from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { SessionStore } from '../store/session-store.js';
import { OWN_MODES } from './builtin/plan-mode.js';
import type { SessionBackend } from './session-backend.js';
import type { SessionJournal } from './session-journal.js';
import type { SessionManager } from './session-manager.js';

export interface SessionSteeringDeps {
  manager: Pick<SessionManager, 'create' | 'get' | 'goOn' | 'isRunning'>;
  sessions: SessionStore;
  journal: SessionJournal;
  backends: Partial<Record<SessionKind, SessionBackend>>;
  /** The model of a session created without one. */
  defaultModel: string;
  /** A configured ACP agent's title ("Claude Code"); undefined for a name not configured. */
  agentTitle?: (agent: string) => string | undefined;
}

type CreateInput = Parameters<SessionManager['create']>[0];

/** What a new session starts with besides its model: `sessions.create`'s steering fields. */
export interface SteeringAtStart {
  mode?: string | undefined;
  agentModel?: string | undefined;
  budget?: SessionBudget | undefined;
}

/**
 * Steering a session from any surface: what it offers (its commands, modes and models), switching
 * its mode or model, and its budget. The back-end says what it offers and whether a change is
 * possible; this keeps the choice, says it in the transcript and tells every device. Raising the
 * budget of a session that stopped at it goes on at once.
 */
export class SessionSteering {
  constructor(private readonly deps: SessionSteeringDeps) {}

  async controls(id: string): Promise<Result<SessionControls>> {
    const record = this.deps.sessions.get(id);
    if (!record) return fail('not-found', `no session ${id}`);
    const steering = this.deps.backends[record.kind]?.steering;
    if (!steering) {
      return ok({ commands: [], modes: [], models: [], note: 'A program in a terminal: type its own commands.' });
    }
    return ok(await steering.controls(record));
  }

  /** What an agent offered the last time it ran on this host (New session offers its modes and models). */
  agentControls(agent: string): Result<SessionControls> {
    const title = this.deps.agentTitle?.(agent);
    if (title === undefined) return fail('not-found', `no agent named ${agent} is configured on this host`);
    const offers = this.deps.sessions.steering.agentOffers(agent);
    if (!offers)
      return ok({
        commands: [],
        modes: [],
        models: [],
        note: `${title} has not run here yet: it says what it offers once it has.`,
      });
    return ok({ commands: offers.commands, modes: offers.modes, models: offers.models });
  }

  async setMode(id: string, mode: string): Promise<Result<SessionSummary>> {
    const record = this.deps.sessions.get(id);
    if (!record) return fail('not-found', `no session ${id}`);
    const steering = this.deps.backends[record.kind]?.steering;
    if (!steering) return fail('unsupported', 'a program in a terminal has no modes Tether can switch');
    const changed = await steering.setMode(record, mode);
    if (!changed.ok) return changed;
    this.deps.sessions.steering.setMode(id, changed.value);
    return ok(this.said(id, `Mode: ${changed.value.name}.`));
  }

  async setModel(id: string, model: string): Promise<Result<SessionSummary>> {
    const record = this.deps.sessions.get(id);
    if (!record) return fail('not-found', `no session ${id}`);
    const steering = this.deps.backends[record.kind]?.steering;
    if (!steering) return fail('unsupported', 'a program in a terminal has no models Tether can switch');
    const changed = await steering.setModel(record, model);
    if (!changed.ok) return changed;
    const later = this.deps.manager.isRunning(id) ? ' (from the next turn)' : '';
    if (record.kind === 'agent') this.deps.journal.update(id, { model: changed.value.id });
    else this.deps.sessions.steering.setAgentModel(id, changed.value);
    return ok(this.said(id, `Model: ${changed.value.name}${record.kind === 'agent' ? later : ''}.`));
  }

  setBudget(id: string, budget: SessionBudget | null): Result<SessionSummary> {
    const record = this.deps.sessions.get(id);
    if (!record) return fail('not-found', `no session ${id}`);
    const steering = this.deps.backends[record.kind]?.steering;
    if (!steering) return fail('unsupported', 'a program in a terminal does not say what it spends');
    const problem = budget && steering.budgetProblem?.(record, budget);
    if (problem) return fail('invalid-params', problem);
    this.deps.sessions.steering.setBudget(id, budget);
    const stopped = this.deps.sessions.activity.get(id).budgetReached === true && !this.deps.manager.isRunning(id);
    const summary = this.said(id, budget ? `Budget: ${budgetText(budget)}.` : 'Budget removed.');
    // Stopped at the old budget: it goes on now (and stops again at once if the new one is no room).
    if (stopped) {
      const going = this.deps.manager.goOn(id);
      if (going.ok) return ok(this.deps.manager.get(id) ?? summary);
    }
    return ok(summary);
  }

  /** A new session, started in the mode, with the agent's model and the budget asked for. */
  async create(input: CreateInput, start: SteeringAtStart): Promise<Result<SessionSummary>> {
    const kind = input.kind ?? 'agent';
    const model = input.model ?? this.deps.defaultModel;
    const prepare = this.atStart(kind, model, kind === 'acp' ? model : undefined, start);
    if (!prepare.ok) return prepare;
    return this.deps.manager.create({ ...input, prepare: prepare.value });
  }

  /**
   * Checks what a new session asks to start with, and returns what stores it once the session
   * exists (before its first run): its mode, an agent's model, its budget.
   */
  private atStart(
    kind: SessionKind,
    model: string,
    agent: string | undefined,
    start: SteeringAtStart,
  ): Result<(id: string) => void> {
    if (kind === 'agent' && start.agentModel !== undefined) {
      return fail('invalid-params', "agentModel is an ACP agent's model; Tether's own loop takes model");
    }
    const problem =
      start.budget && this.deps.backends[kind]?.steering?.budgetProblem?.({ id: '', model }, start.budget);
    if (problem) return fail('invalid-params', problem);
    const offers = agent === undefined ? undefined : this.deps.sessions.steering.agentOffers(agent);
    const modes = kind === 'agent' ? OWN_MODES : offers?.modes;
    const mode = pick(start.mode, modes, 'mode');
    if (!mode.ok) return mode;
    const agentModel = pick(start.agentModel, offers?.models, 'model');
    if (!agentModel.ok) return agentModel;
    return ok((id: string) => {
      if (mode.value) this.deps.sessions.steering.setMode(id, mode.value);
      if (agentModel.value) this.deps.sessions.steering.setAgentModel(id, agentModel.value);
      if (start.budget) this.deps.sessions.steering.setBudget(id, start.budget);
    });
  }

  /** Says `text` in the session's transcript and tells every device of its new summary. */
  private said(id: string, text: string): SessionSummary {
    this.deps.journal.append(id, { type: 'notice', level: 'info', text });
    this.deps.journal.announce(id);
    return this.deps.manager.get(id)!;
  }
}

/** "50,000 tokens", "$2.50", or both. */
export function budgetText(budget: SessionBudget): string {
  const parts = [
    ...(budget.tokens !== undefined ? [`${budget.tokens.toLocaleString('en-US')} tokens`] : []),
    ...(budget.usd !== undefined ? [`$${budget.usd.toFixed(2)}`] : []),
  ];
  return parts.join(' or ');
}

/** The choice named `id` among `choices`; any id when the list is not known yet (an agent not run before). */
function pick(
  id: string | undefined,
  choices: readonly { id: string; name: string }[] | undefined,
  what: string,
): Result<ChoiceRef | undefined> {
  if (id === undefined) return ok(undefined);
  if (!choices || choices.length === 0) return ok({ id, name: id });
  const found = choices.find((c) => c.id === id);
  return found
    ? ok({ id: found.id, name: found.name })
    : fail('invalid-params', `no ${what} ${id}: choose one of ${choices.map((c) => c.id).join(', ')}`);
}
