import * as v from 'valibot';
import { Name } from './common.js';

/**
 * Agents a session can be run by besides Tether's own loop: programs that speak the Agent Client
 * Protocol (Claude Code, Codex, Gemini CLI through their ACP adapters), configured on the host by
 * name. A session of kind `acp` names its agent in its `model` field.
 */

/** An agent's name as configured: letters, digits, `.`, `_` and `-`, 1 to 40 characters. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;
export const AgentName = v.pipe(v.string(), v.regex(AGENT_NAME));

export const AgentInfoSchema = v.object({
  name: AgentName,
  /** For people: "Claude Code". */
  title: Name,
  /** The program and its arguments as configured (never its environment). */
  command: v.pipe(v.string(), v.maxLength(2048)),
  /** Whether a session can be started with it now. */
  available: v.boolean(),
  /** Why not, when it is not ("claude-code-acp was not found on PATH"). */
  reason: v.optional(v.pipe(v.string(), v.maxLength(1000))),
});

export type AgentInfo = v.InferOutput<typeof AgentInfoSchema>;

export const ListAgentsResult = v.object({ agents: v.array(AgentInfoSchema) });
