import type { ChoiceRef, Clock, Result, SessionControls } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { PriceBook } from '../../models/prices.js';
import type { SessionRecord } from '../../store/session-store.js';
import type { Steering, SteeringStore } from '../../store/steering-store.js';
import type { BackendSteering } from '../session-backend.js';
import type { AcpAgentPool } from './acp-agent-pool.js';
import { askSwitch, switchRequest } from './acp-steer.js';
import type { AgentCatalog } from './agent-catalog.js';

export interface AcpSteeringDeps {
  store: SteeringStore;
  agents: AcpAgentPool;
  catalog: Pick<AgentCatalog, 'get'>;
  clock: Clock;
  prices?: PriceBook;
}

/**
 * An ACP session's commands, modes and models: what its agent offered in this session, or, before
 * it has started here, what it offered last time (to choose from at New session). A change goes
 * to the agent at once while its process lives (`session/set_mode`, `session/set_model`, or
 * `session/set_config_option`, as it offered them), else at its next start.
 */
export function acpSteering(deps: AcpSteeringDeps): BackendSteering {
  const agentOf = (record: Pick<SessionRecord, 'agent' | 'model'>) => record.agent ?? record.model;
  const titleOf = (agent: string) => deps.catalog.get(agent)?.title ?? agent;
  /** This session's lists, or the agent's last ones before it has started here. */
  const lists = (
    record: SessionRecord,
  ): { own: Steering; offered: Pick<Steering, 'commands' | 'modes' | 'models'>; started: boolean } => {
    const own = deps.store.get(record.id);
    const started = own.commands.length + own.modes.length + own.models.length > 0;
    const last = deps.store.agentOffers(agentOf(record));
    return { own, offered: started ? own : (last ?? { commands: [], modes: [], models: [] }), started };
  };

  const set = async (record: SessionRecord, what: 'mode' | 'model', id: string): Promise<Result<ChoiceRef>> => {
    const title = titleOf(agentOf(record));
    const { own, offered } = lists(record);
    const list = what === 'mode' ? offered.modes : offered.models;
    if (list.length === 0)
      return fail('unsupported', `${title} has not said which ${what}s it has (it says once it has started)`);
    const found = list.find((c) => c.id === id);
    if (!found)
      return fail('invalid-params', `${title} has no ${what} ${id}: choose one of ${list.map((c) => c.id).join(', ')}`);
    const live = deps.agents.find(record.id);
    if (live) {
      const via = (what === 'mode' ? own.modeVia : own.modelVia) ?? (what === 'mode' ? 'set_mode' : 'set_model');
      const refused = await askSwitch(live.connection, switchRequest(via, live.acpSessionId, id, what), deps.clock);
      if (refused !== undefined)
        return fail('unavailable', `${title} did not take the ${what} ${found.name}: ${refused}`);
    }
    return ok({ id: found.id, name: found.name });
  };

  return {
    controls(record: SessionRecord): Promise<SessionControls> {
      const title = titleOf(agentOf(record));
      const { own, offered, started } = lists(record);
      const price = own.agentModel ? deps.prices?.priceOf(own.agentModel.id) : undefined;
      const empty = offered.commands.length + offered.modes.length + offered.models.length === 0;
      const note = started
        ? undefined
        : empty
          ? `${title} says which commands, modes and models it has once it has started.`
          : `${title} has not started in this session yet: this is what it offered last time.`;
      return Promise.resolve({
        commands: offered.commands,
        modes: offered.modes,
        ...(own.mode ? { mode: own.mode.id } : {}),
        models: offered.models,
        ...(own.agentModel ? { model: own.agentModel.id } : {}),
        ...(price ? { price } : {}),
        ...(note ? { note } : {}),
      });
    },
    setMode: (record, mode) => set(record, 'mode', mode),
    setModel: (record, model) => set(record, 'model', model),
    budgetProblem(record) {
      const agent = agentOf({ agent: null, model: record.model });
      return deps.store.agentOffers(agent)?.reportsUsage === false
        ? `${titleOf(agent)} does not say what its turns use, so a budget cannot be kept for it`
        : undefined;
    },
  };
}
