import { methods } from '@agentclientprotocol/sdk';
import type { Clock } from '@tether/shared-protocol';
import type { RunContext, RunResult } from '../session-backend.js';
import type { AgentSpec } from './agent-config.js';
import type { AcpAgentPool, AgentPoolLimits, LiveAgent } from './acp-agent-pool.js';
import { AcpConnection } from './acp-connection.js';
import { errorText } from './acp-error-text.js';
import { AcpHistory } from './acp-history.js';
import type { AcpSessionStore } from './acp-session-store.js';
import type { FolderTrust } from '../trust/folder-trust.js';
import type { AgentBounds } from './agent-bounds.js';
import { agentBounds } from './agent-bounds.js';
import { AcpSteer } from './acp-steer.js';
import type { SteeringStore } from '../../store/steering-store.js';
import { agentEnv } from './agent-env.js';
import { agentFamily, withheldModes } from './agent-family.js';
import { cut } from './acp-content-text.js';
import type { Settled } from './settle.js';
import { settle } from './settle.js';

/**
 * Starting an ACP agent for a run: its process through the session's execution context, the
 * `initialize` handshake, then its session loaded, resumed or made new, each step within one
 * deadline, and a start that fails reported in the agent's words.
 */

export interface AcpLimits extends AgentPoolLimits {
  /** Milliseconds from starting an agent to its session being ready (initialize, then new or load). */
  startTimeoutMs: number;
  /**
   * Milliseconds an agent may be silent during a prompt, while nothing of its waits on us (an
   * approval, a command), before it counts as hung: the built-in loop's idle watchdog, 5 min.
   */
  idleLimitMs: number;
}

export const DEFAULT_ACP_LIMITS: AcpLimits = {
  startTimeoutMs: 60_000,
  idleLimitMs: 5 * 60_000,
  cancelGraceMs: 10_000,
  keepIdleMs: 15 * 60_000,
  maxLiveAgents: 8,
};

/** What a start needs of the back-end. */
export interface AcpStartDeps {
  agents: AcpAgentPool;
  limits: AcpLimits;
  sessions: AcpSessionStore;
  clock: Clock;
  /** The host's own environment, from which an agent's `passEnv` variables are taken. */
  env: NodeJS.ProcessEnv;
  /** Whether a folder's own configuration may load (absent: never, as for an untrusted folder). */
  trust?: FolderTrust;
  /** What the agent offers (commands, modes, models) and the session's choice among them. */
  steering?: SteeringStore;
}

/**
 * Whether the folder's own configuration may load for this agent (asking the person when it
 * must), and what the agent is told accordingly; a run interrupted while asked ends there.
 */
async function prepare(deps: AcpStartDeps, run: RunContext, spec: AgentSpec): Promise<AgentBounds | RunResult> {
  const family = agentFamily(spec);
  let trusted = false;
  if (family !== 'other' && deps.trust) {
    const outcome = await deps.trust.decide(run, family);
    if (outcome.cancelled) return { status: 'interrupted' };
    if (outcome.notice !== undefined)
      run.append({ type: 'notice', level: outcome.trusted ? 'info' : 'warning', text: outcome.notice });
    trusted = outcome.trusted;
  }
  return agentBounds({ family, trusted, context: run.context, cwd: run.record().cwd });
}

/** Starts the agent and gets its session ready: loaded or resumed where it can, else new. */
export async function startAgent(deps: AcpStartDeps, run: RunContext, spec: AgentSpec): Promise<LiveAgent | RunResult> {
  if (deps.agents.isClosed) return failure('the host is stopping');
  const bounds = await prepare(deps, run, spec);
  if ('status' in bounds) return bounds;
  if (deps.agents.isClosed) return failure('the host is stopping');
  if (!deps.agents.makeRoom()) {
    return failure(
      `${deps.limits.maxLiveAgents} agent processes are running already; try again when one of their runs ends`,
    );
  }
  const record = run.record();
  const started = await AcpConnection.start({
    context: run.context,
    spec: { ...spec, args: [...spec.args, ...bounds.args] },
    cwd: record.cwd,
    env: { ...agentEnv(spec, run.context.place, deps.env), ...bounds.env },
    clock: deps.clock,
  });
  // On a machine that is offline the spawn waits for it, and an interrupt drops it unsent:
  // nothing started, so the run was interrupted, not failed (as a waiting tool call is).
  if (!started.ok) return run.signal.aborted ? { status: 'interrupted' } : failure(started.message);
  const connection = started.value;
  const steer =
    deps.steering &&
    new AcpSteer({
      store: deps.steering,
      sessionId: run.sessionId,
      agent: spec.name,
      title: spec.title,
      clock: deps.clock,
      sink: run,
      withheld: withheldModes(agentFamily(spec)),
    });
  connection.steer = steer;
  const live: LiveAgent = {
    sessionId: run.sessionId,
    spec,
    place: run.context.place,
    cwd: record.cwd,
    connection,
    acpSessionId: '',
    busy: true,
    idleTimer: undefined,
  };
  deps.agents.add(live);
  const deadline = deps.clock.now() + deps.limits.startTimeoutMs;
  const step = <T>(promise: Promise<T>) =>
    settle(promise, {
      clock: deps.clock,
      ms: Math.max(0, deadline - deps.clock.now()),
      signal: run.signal,
      ended: connection.ended,
    });
  /** A step that did not give its answer ends the start: the process goes, and says why. */
  const stop = (outcome: Exclude<Settled<unknown>, { kind: 'value' }>, what: string): RunResult => {
    deps.agents.discard(live);
    if (outcome.kind === 'aborted') return { status: 'interrupted' };
    reportStderr(run, live);
    if (outcome.kind === 'timeout') {
      return failure(
        `${spec.title} did not get ready within ${Math.round(deps.limits.startTimeoutMs / 1000)} s (${what})`,
      );
    }
    if (outcome.kind === 'ended') return failure(`${spec.title} stopped while starting (${what}): ${outcome.why}`);
    return failure(`${spec.title} refused ${what}: ${errorText(outcome.error)}`);
  };

  const init = await step(connection.initialize());
  if (init.kind !== 'value') return stop(init, 'initialize');
  if (init.value.protocolVersion !== 1) {
    deps.agents.discard(live);
    return failure(`${spec.title} speaks ACP version ${String(init.value.protocolVersion)}; Tether speaks version 1`);
  }
  const capabilities = init.value.agentCapabilities;
  live.takesImages = capabilities?.promptCapabilities?.image === true;
  const resume = capabilities?.sessionCapabilities?.resume;
  const canResume = typeof resume === 'object' && resume !== null;
  const canLoad = capabilities?.loadSession === true;
  const earlier = deps.sessions.get(run.sessionId);
  const previous = earlier?.agent === spec.name ? earlier.acpSessionId : undefined;

  if (previous !== undefined && earlier?.history === 'pending') {
    // Started elsewhere: loaded with its replay recorded as the transcript so far (resumed,
    // without it, by an agent that can only resume). Tried once so: after an error the next
    // start loads it as any earlier session, or starts afresh and says so.
    const ref = { agent: spec.name, acpSessionId: previous };
    if (!canLoad && !canResume) {
      deps.sessions.delete(run.sessionId);
      deps.agents.discard(live);
      return failure(
        `${spec.title} can neither load nor resume a session, so it cannot continue this one; the next message starts a new one`,
      );
    }
    const history = canLoad ? new AcpHistory(run) : undefined;
    connection.setSession(previous);
    if (history) connection.history = { acpSessionId: previous, record: (update) => history.record(update) };
    const params = { sessionId: previous, cwd: record.cwd, mcpServers: [], ...meta(bounds) };
    const loaded = await step(
      history
        ? connection.agent.request(methods.agent.session.load, params)
        : connection.agent.request(methods.agent.session.resume, params),
    );
    connection.history = undefined;
    if (loaded.kind === 'error') deps.sessions.set(run.sessionId, ref);
    if (loaded.kind !== 'value') return stop(loaded, history ? 'session/load' : 'session/resume');
    deps.sessions.set(run.sessionId, ref);
    await steer?.answered(loaded.value, connection, previous);
    const shown = history?.finish();
    run.append({
      type: 'notice',
      level: 'info',
      text:
        shown === undefined
          ? `${spec.title} goes on from its earlier session, but cannot replay it: the conversation so far is not shown here.`
          : shown === 0
            ? `${spec.title} loaded its earlier session and replayed none of it; what you send now goes on from there.`
            : `Above is ${spec.title}'s earlier conversation, as it replayed it; what you send now goes on from there.`,
    });
    live.acpSessionId = previous;
    return live;
  }

  if (previous !== undefined && (canResume || canLoad)) {
    // A loading agent replays the conversation as updates first: the log has it already.
    connection.setSession(previous);
    connection.replaying = !canResume;
    const params = { sessionId: previous, cwd: record.cwd, mcpServers: [], ...meta(bounds) };
    const what = canResume ? 'session/resume' : 'session/load';
    const loaded = await step(
      canResume
        ? connection.agent.request(methods.agent.session.resume, params)
        : connection.agent.request(methods.agent.session.load, params),
    );
    connection.replaying = false;
    if (loaded.kind === 'value') {
      live.acpSessionId = previous;
      await steer?.answered(loaded.value, connection, previous);
      return live;
    }
    if (loaded.kind !== 'error') return stop(loaded, what);
    run.append({
      type: 'notice',
      level: 'warning',
      text: `${spec.title} could not load its earlier session (${errorText(loaded.error)}); it starts a new one without the conversation so far.`,
    });
  } else if (previous !== undefined) {
    run.append({
      type: 'notice',
      level: 'warning',
      text: `${spec.title} was started again and cannot load its earlier session; it starts afresh without the conversation so far.`,
    });
  }
  const created = await step(
    connection.agent.request(methods.agent.session.new, { cwd: record.cwd, mcpServers: [], ...meta(bounds) }),
  );
  if (created.kind !== 'value') return stop(created, 'session/new');
  live.acpSessionId = created.value.sessionId;
  connection.setSession(live.acpSessionId);
  deps.sessions.set(run.sessionId, { agent: spec.name, acpSessionId: live.acpSessionId });
  await steer?.answered(created.value, connection, live.acpSessionId);
  return live;
}

const meta = (bounds: AgentBounds) => (bounds.meta ? { _meta: bounds.meta } : {});

/** The end of the agent's stderr, as a notice: why it stopped, in its own words. */
export function reportStderr(run: RunContext, live: LiveAgent): void {
  const tail = live.connection.stderrText();
  run.append({
    type: 'notice',
    level: 'error',
    text:
      tail === '' ? `${live.spec.title} wrote nothing to stderr.` : cut(`${live.spec.title} stderr:\n${tail}`, 4000),
  });
}

export function failure(error: string): RunResult {
  return { status: 'error', error };
}
