import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ChoiceRef, Clock } from '@tether/shared-protocol';
import type { OfferLists, SteeringStore } from '../../store/steering-store.js';
import type { RunContext } from '../session-backend.js';
import type { AcpConnection } from './acp-connection.js';
import { errorText } from './acp-error-text.js';
import type { Offered } from './acp-offers.js';
import { commandsOf, modelsOf, modesOf } from './acp-offers.js';
import { settle } from './settle.js';

/** Milliseconds an agent has to answer a change of mode or model. */
export const STEER_TIMEOUT_MS = 15_000;

/** Where what the agent says about its steering goes: the session's log and its devices. */
export type SteerSink = Pick<RunContext, 'append' | 'announce' | 'progress'>;

/** An ACP request that switches a mode or model: `set_mode`, `set_model`, or `config:<option id>`. */
export function switchRequest(
  via: string,
  acpSessionId: string,
  value: string,
  what: 'mode' | 'model',
): { method: string; params: Record<string, string> } {
  if (via.startsWith('config:')) {
    return {
      method: 'session/set_config_option',
      params: { sessionId: acpSessionId, configId: via.slice('config:'.length), value },
    };
  }
  return what === 'mode'
    ? { method: 'session/set_mode', params: { sessionId: acpSessionId, modeId: value } }
    : { method: 'session/set_model', params: { sessionId: acpSessionId, modelId: value } };
}

/** Asks the agent to switch; undefined when it did, else why not in its words. */
export async function askSwitch(
  connection: AcpConnection,
  request: { method: string; params: Record<string, string> },
  clock: Clock,
): Promise<string | undefined> {
  const answer = await settle(connection.agent.request(request.method, request.params), {
    clock,
    ms: STEER_TIMEOUT_MS,
    ended: connection.ended,
  });
  if (answer.kind === 'value') return undefined;
  if (answer.kind === 'error') return errorText(answer.error);
  if (answer.kind === 'ended') return `it stopped (${answer.why})`;
  return `it did not answer within ${STEER_TIMEOUT_MS / 1000} s`;
}

/**
 * One agent process's steering, for the Tether session it serves: what its session answer and
 * its updates say of its commands, modes and models is kept (for the session and, as its last
 * offers, for the agent), a mode or model it switches to itself is said in the transcript, and
 * the session's own choice is applied whenever a process starts (a loaded or resumed session
 * comes back in the agent's default mode).
 */
export class AcpSteer {
  constructor(
    private readonly deps: {
      store: SteeringStore;
      sessionId: string;
      agent: string;
      title: string;
      clock: Clock;
      sink: SteerSink;
      /** Mode ids never offered on (agent-family.ts `withheldModes`); the agent is asked out of one. */
      withheld?: readonly string[];
    },
  ) {}

  /** The agent's process and session, once it answered: where a withheld mode is switched out of. */
  private live: { connection: AcpConnection; acpSessionId: string } | undefined;

  private allowed(offered: Offered & { via: string }): Offered & { via: string } {
    const withheld = this.deps.withheld ?? [];
    return { ...offered, choices: offered.choices.filter((c) => !withheld.includes(c.id)) };
  }

  private isWithheld(id: string | undefined): boolean {
    return id !== undefined && (this.deps.withheld ?? []).includes(id);
  }

  /**
   * `session/new` (or load, or resume) answered: its modes and models are kept, and the session's
   * chosen ones asked for where the agent's differ (the agent's are taken where it has none).
   */
  async answered(answer: unknown, connection: AcpConnection, acpSessionId: string): Promise<void> {
    const { store, sessionId } = this.deps;
    this.live = { connection, acpSessionId };
    const offeredModes = modesOf(answer);
    const modes = offeredModes && this.allowed(offeredModes);
    const models = modelsOf(answer);
    this.keep({
      ...(modes ? { modes: modes.choices, modeVia: modes.via } : {}),
      ...(models ? { models: models.choices, modelVia: models.via } : {}),
    });
    const chosen = store.get(sessionId);
    // An agent that starts in a withheld mode is asked into the session's, or its first other.
    const mode = chosen.mode ?? (this.isWithheld(modes?.current?.id) ? modes?.choices[0] : undefined);
    if (modes) await this.apply('mode', mode, modes, connection, acpSessionId);
    if (models) await this.apply('model', chosen.agentModel, models, connection, acpSessionId);
  }

  /** A `session/update` about steering; true when it was one (it is not part of the transcript). */
  update(update: SessionUpdate): boolean {
    switch (update.sessionUpdate) {
      case 'available_commands_update':
        this.keep({ commands: commandsOf(update.availableCommands) });
        return true;
      case 'current_mode_update': {
        const steering = this.deps.store.get(this.deps.sessionId);
        const id = update.currentModeId;
        // A mode it is in already, or no id at all, is nothing to say.
        if (id === '' || id.length > 200 || id === steering.mode?.id) return true;
        if (this.isWithheld(id)) {
          void this.switchBack(id);
          return true;
        }
        const mode = steering.modes.find((m) => m.id === id);
        this.switched('mode', mode ?? { id, name: id.replace(/\s+/g, ' ').slice(0, 100) });
        return true;
      }
      case 'config_option_update': {
        const configModes = modesOf({ configOptions: update.configOptions });
        const modes = configModes && this.allowed(configModes);
        const models = modelsOf({ configOptions: update.configOptions });
        const steering = this.deps.store.get(this.deps.sessionId);
        // Only where the mode was a config option in the first place: else `modes` stays the list.
        const modeList = modes && steering.modeVia?.startsWith('config:') ? modes : undefined;
        const modelList = models && steering.modelVia?.startsWith('config:') ? models : undefined;
        this.keep({
          ...(modeList ? { modes: modeList.choices } : {}),
          ...(modelList ? { models: modelList.choices } : {}),
        });
        if (this.isWithheld(modeList?.current?.id)) void this.switchBack(modeList!.current!.id);
        else if (modeList?.current && modeList.current.id !== steering.mode?.id)
          this.switched('mode', modeList.current);
        if (modelList?.current && modelList.current.id !== steering.agentModel?.id)
          this.switched('model', modelList.current);
        return true;
      }
      case 'usage_update':
        // How full the agent's context is (Codex says so); not what it spent.
        if (update.size > 0 && update.used >= 0) {
          this.deps.sink.progress?.({ context: { tokens: Math.floor(update.used), window: Math.floor(update.size) } });
        }
        return true;
      default:
        return false;
    }
  }

  private keep(lists: OfferLists): void {
    const { store, sessionId, agent, clock } = this.deps;
    store.setOffers(sessionId, lists);
    store.keepAgentOffers(
      agent,
      {
        ...(lists.commands ? { commands: lists.commands } : {}),
        ...(lists.modes ? { modes: lists.modes } : {}),
        ...(lists.models ? { models: lists.models } : {}),
      },
      clock.now(),
    );
  }

  /**
   * The agent put itself in a withheld mode (its own command, or its model's doing): it is asked
   * back into the session's mode at once, and said so; one that will not go back is stopped, since
   * in that mode it would run its own tools unasked.
   */
  private async switchBack(id: string): Promise<void> {
    const { store, sessionId, sink, title, clock } = this.deps;
    const steering = store.get(sessionId);
    const back = steering.mode ?? steering.modes[0];
    const live = this.live;
    const refused =
      back === undefined || live === undefined
        ? 'Tether has no other mode to ask for'
        : await askSwitch(
            live.connection,
            switchRequest(steering.modeVia ?? 'set_mode', live.acpSessionId, back.id, 'mode'),
            clock,
          );
    const name = id.replace(/\s+/g, ' ').slice(0, 100);
    if (refused === undefined) {
      sink.append({
        type: 'notice',
        level: 'warning',
        text: `${title} switched itself to the mode ${name}, where it would run its own tools without asking; Tether switched it back to ${back!.name}.`,
      });
    } else {
      live?.connection.kill();
      sink.append({
        type: 'notice',
        level: 'error',
        text: `${title} switched itself to the mode ${name}, where it would run its own tools without asking, and did not switch back (${refused}): Tether stopped it.`,
      });
    }
    sink.announce?.();
  }

  /** The agent switched on its own: kept, said, and every device told. */
  private switched(what: 'mode' | 'model', to: ChoiceRef): void {
    const { store, sessionId, sink, title } = this.deps;
    if (what === 'mode') store.setMode(sessionId, to);
    else store.setAgentModel(sessionId, to);
    sink.append({ type: 'notice', level: 'info', text: `${title} switched to the ${what} ${to.name}.` });
    sink.announce?.();
  }

  private async apply(
    what: 'mode' | 'model',
    chosen: ChoiceRef | undefined,
    offered: Offered & { via: string },
    connection: AcpConnection,
    acpSessionId: string,
  ): Promise<void> {
    const { store, sessionId, sink, title, clock } = this.deps;
    const record = (ref: ChoiceRef) =>
      what === 'mode' ? store.setMode(sessionId, ref) : store.setAgentModel(sessionId, ref);
    const current = offered.current;
    if (!chosen || chosen.id === current?.id) {
      if (current) record(current);
      return;
    }
    const wanted = offered.choices.find((c) => c.id === chosen.id);
    const refused = wanted
      ? await askSwitch(connection, switchRequest(offered.via, acpSessionId, chosen.id, what), clock)
      : `it does not offer it`;
    if (refused === undefined) return record({ id: wanted!.id, name: wanted!.name });
    if (current) record(current);
    sink.append({
      type: 'notice',
      level: 'warning',
      text: `${title} did not take the ${what} ${chosen.name} (${refused}); it is in ${current?.name ?? 'its own default'}.`,
    });
    sink.announce?.();
  }
}
