/**
 * What an agent process is given, in one place. Its environment is built in three layers:
 *
 * 1. the person's environment, as the place it runs on has it (on this computer, the host's own;
 *    on a machine, the machine agent's), without Tether's credentials (`HOST_CREDENTIALS` and
 *    every `TETHER_*` variable): the execution context takes those out for everything it starts;
 * 2. the agent's `env` from the agents config, as written;
 * 3. on this computer only, the host's values of the names in the agent's `passEnv`, which is how
 *    an agent gets one of the keys of the first layer (a machine never receives the host's keys).
 *
 * A later layer wins over an earlier one. docs/agents.md lists the same.
 */

/** The API keys Tether itself reads: an agent gets one only when its `passEnv` names it. */
export const HOST_CREDENTIALS: readonly string[] = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'];

/** Tether's own variables (its data folder, a machine's token): never an agent's, not even by `passEnv`. */
export const TETHER_VARIABLES = /^TETHER_/;

/** Whether the place an agent runs on takes `name` out of the environment it starts from. */
export function isHidden(name: string): boolean {
  return HOST_CREDENTIALS.includes(name) || TETHER_VARIABLES.test(name);
}

/**
 * The variables set for an agent on top of the person's environment: its `env`, then the values
 * `passEnv` names (when it runs on this computer; unset and empty ones are left out).
 */
export function agentEnv(
  /** An agent's `env` and `passEnv` (`AgentSpec`; named here so the config may use this file). */
  spec: { env: Record<string, string>; passEnv: readonly string[] },
  place: string,
  hostEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const env = { ...spec.env };
  if (place !== 'local') return env;
  for (const name of spec.passEnv) {
    if (TETHER_VARIABLES.test(name)) continue;
    const value = hostEnv[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  return env;
}
