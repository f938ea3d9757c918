import type { Choice, ChoiceRef, SessionBudget, SessionCommand } from '@tether/shared-protocol';
import {
  ChoiceSchema,
  MAX_SESSION_COMMANDS,
  MAX_SESSION_MODELS,
  MAX_SESSION_MODES,
  SessionCommandSchema,
} from '@tether/shared-protocol';
import * as v from 'valibot';
import type { Db } from './database.js';

/** What a session is steered by: its mode, an agent's model, what its agent offers, its budget. */
export interface Steering {
  mode?: ChoiceRef;
  agentModel?: ChoiceRef;
  commands: SessionCommand[];
  modes: Choice[];
  models: Choice[];
  /** How the agent takes a change of mode (`set_mode`, or `config:<option id>`) and of model (`set_model`, or `config:…`). */
  modeVia?: string;
  modelVia?: string;
  budget?: SessionBudget;
}

/** The lists an agent offered last, whatever session it was, and whether its turns report usage. */
export interface AgentOffers {
  commands: SessionCommand[];
  modes: Choice[];
  models: Choice[];
  /** Undefined until one of its turns ended. */
  reportsUsage?: boolean;
}

export type OfferLists = Partial<Pick<Steering, 'commands' | 'modes' | 'models' | 'modeVia' | 'modelVia'>>;

interface SteeringRow {
  mode: string | null;
  mode_name: string | null;
  agent_model: string | null;
  agent_model_name: string | null;
  commands: string | null;
  modes: string | null;
  models: string | null;
  mode_via: string | null;
  model_via: string | null;
  budget_tokens: number | null;
  budget_usd: number | null;
}

interface OffersRow {
  commands: string | null;
  modes: string | null;
  models: string | null;
  reports_usage: number | null;
}

const Commands = v.pipe(v.array(SessionCommandSchema), v.maxLength(MAX_SESSION_COMMANDS));
const Modes = v.pipe(v.array(ChoiceSchema), v.maxLength(MAX_SESSION_MODES));
const Models = v.pipe(v.array(ChoiceSchema), v.maxLength(MAX_SESSION_MODELS));

/** A stored list, decoded: a row that does not decode reads as none, never as something else. */
function list<T>(schema: v.GenericSchema<unknown, T[]>, json: string | null): T[] {
  if (json === null) return [];
  try {
    const decoded = v.safeParse(schema, JSON.parse(json));
    return decoded.success ? decoded.output : [];
  } catch {
    return [];
  }
}

function ref(id: string | null, name: string | null): ChoiceRef | undefined {
  return id === null ? undefined : { id, name: name ?? id };
}

/**
 * Each session's steering (`session_steering`) and each agent's last offers (`agent_offers`).
 * The lists are an agent's own text, already bounded by whoever stored them; they are decoded
 * again on every read.
 */
export class SteeringStore {
  private readonly select;
  private readonly ensure;

  constructor(private readonly db: Db) {
    this.select = db.prepare('SELECT * FROM session_steering WHERE session_id = ?');
    this.ensure = db.prepare('INSERT OR IGNORE INTO session_steering (session_id) VALUES (?)');
  }

  get(sessionId: string): Steering {
    const row = this.select.get(sessionId) as SteeringRow | undefined;
    if (!row) return { commands: [], modes: [], models: [] };
    const mode = ref(row.mode, row.mode_name);
    const agentModel = ref(row.agent_model, row.agent_model_name);
    const budget: SessionBudget = {
      ...(row.budget_tokens !== null ? { tokens: row.budget_tokens } : {}),
      ...(row.budget_usd !== null ? { usd: row.budget_usd } : {}),
    };
    return {
      ...(mode ? { mode } : {}),
      ...(agentModel ? { agentModel } : {}),
      commands: list(Commands, row.commands),
      modes: list(Modes, row.modes),
      models: list(Models, row.models),
      ...(row.mode_via !== null ? { modeVia: row.mode_via } : {}),
      ...(row.model_via !== null ? { modelVia: row.model_via } : {}),
      ...(budget.tokens !== undefined || budget.usd !== undefined ? { budget } : {}),
    };
  }

  setMode(sessionId: string, mode: ChoiceRef | null): void {
    this.set(sessionId, { mode: mode?.id ?? null, mode_name: mode?.name ?? null });
  }

  setAgentModel(sessionId: string, model: ChoiceRef | null): void {
    this.set(sessionId, { agent_model: model?.id ?? null, agent_model_name: model?.name ?? null });
  }

  setBudget(sessionId: string, budget: SessionBudget | null): void {
    this.set(sessionId, { budget_tokens: budget?.tokens ?? null, budget_usd: budget?.usd ?? null });
  }

  /** Replaces the lists given (the others stay). */
  setOffers(sessionId: string, offers: OfferLists): void {
    this.set(sessionId, {
      ...(offers.commands ? { commands: JSON.stringify(offers.commands) } : {}),
      ...(offers.modes ? { modes: JSON.stringify(offers.modes) } : {}),
      ...(offers.models ? { models: JSON.stringify(offers.models) } : {}),
      ...(offers.modeVia !== undefined ? { mode_via: offers.modeVia } : {}),
      ...(offers.modelVia !== undefined ? { model_via: offers.modelVia } : {}),
    });
  }

  agentOffers(agent: string): AgentOffers | undefined {
    const row = this.db.prepare('SELECT * FROM agent_offers WHERE agent = ?').get(agent) as OffersRow | undefined;
    if (!row) return undefined;
    return {
      commands: list(Commands, row.commands),
      modes: list(Modes, row.modes),
      models: list(Models, row.models),
      ...(row.reports_usage !== null ? { reportsUsage: row.reports_usage !== 0 } : {}),
    };
  }

  /** Keeps what an agent offered (the lists given) or whether it reports usage, for its next sessions. */
  keepAgentOffers(
    agent: string,
    offers: Omit<OfferLists, 'modeVia' | 'modelVia'> & { reportsUsage?: boolean },
    at: number,
  ): void {
    const columns: Record<string, unknown> = {
      ...(offers.commands ? { commands: JSON.stringify(offers.commands) } : {}),
      ...(offers.modes ? { modes: JSON.stringify(offers.modes) } : {}),
      ...(offers.models ? { models: JSON.stringify(offers.models) } : {}),
      ...(offers.reportsUsage !== undefined ? { reports_usage: offers.reportsUsage ? 1 : 0 } : {}),
      updated_at: at,
    };
    const names = Object.keys(columns);
    this.db
      .prepare(
        `INSERT INTO agent_offers (agent, ${names.join(', ')}) VALUES (@agent, ${names.map((n) => `@${n}`).join(', ')})
         ON CONFLICT (agent) DO UPDATE SET ${names.map((n) => `${n} = excluded.${n}`).join(', ')}`,
      )
      .run({ agent, ...columns });
  }

  private set(sessionId: string, columns: Record<string, unknown>): void {
    const names = Object.keys(columns);
    if (names.length === 0) return;
    this.ensure.run(sessionId);
    this.db
      .prepare(`UPDATE session_steering SET ${names.map((n) => `${n} = @${n}`).join(', ')} WHERE session_id = @id`)
      .run({ ...columns, id: sessionId });
  }
}
