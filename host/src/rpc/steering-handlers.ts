import type { Result, SessionBudget, SessionSummary } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import type { SessionSteering } from '../sessions/session-steering.js';

const asSession = (result: Result<SessionSummary>) => (result.ok ? ok({ session: result.value }) : result);

/**
 * `sessions.controls`, `sessions.setMode`, `sessions.setModel`, `sessions.setBudget`: one view of
 * the same steering for the device and control surfaces (the scope is the dispatch's to check).
 */
export function steeringHandlers(steering: SessionSteering) {
  return {
    'sessions.controls': ({ id }: { id: string }) => steering.controls(id),
    'sessions.setMode': async ({ id, mode }: { id: string; mode: string }) =>
      asSession(await steering.setMode(id, mode)),
    'sessions.setModel': async ({ id, model }: { id: string; model: string }) =>
      asSession(await steering.setModel(id, model)),
    'sessions.setBudget': ({ id, budget }: { id: string; budget: SessionBudget | null }) =>
      asSession(steering.setBudget(id, budget)),
  };
}

/** `agents.controls` (devices only: the CLI's New session names the agent's model itself). */
export function agentControlsHandler(steering: SessionSteering) {
  return {
    'agents.controls': ({ agent }: { agent: string }) => steering.agentControls(agent),
  };
}
