import * as v from 'valibot';
import { Id, Name, Path, Timestamp } from './common.js';

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
  /** How to set it up on the computer, when it is not found and the host knows how (a ready agent). */
  setup: v.optional(v.pipe(v.string(), v.maxLength(1000))),
});

export type AgentInfo = v.InferOutput<typeof AgentInfoSchema>;

export const ListAgentsResult = v.object({ agents: v.array(AgentInfoSchema) });

/**
 * An agent's own sessions, started at the computer (in an editor, or the agent's own CLI), which
 * a Tether session can continue: `agents.sessions` lists them for a folder, `sessions.continue`
 * loads one into a new Tether session. What the agent says of them is its own text: bounded here,
 * escaped by each surface.
 */

/** Characters of an agent's id for one of its sessions: its text, bounded like any other. */
export const MAX_AGENT_SESSION_ID = 1000;
export const AgentSessionId = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_AGENT_SESSION_ID));
/** Sessions one listing carries at most: the newest. */
export const MAX_AGENT_SESSIONS = 100;
/** Characters of a listed session's title, on one line. */
export const MAX_AGENT_SESSION_TITLE = 200;

export const AgentSessionSchema = v.object({
  /** The agent's own id for it. */
  id: AgentSessionId,
  /** The agent's title for it, on one line ('' when it gave none). */
  title: v.pipe(v.string(), v.maxLength(MAX_AGENT_SESSION_TITLE)),
  /** When it was last active, as the agent says (ms); null when it does not. */
  updatedAt: v.nullable(Timestamp),
  /** The folder it ran in: the one the listing asked about. */
  cwd: Path,
  /** The Tether session that continues it already, if one does. */
  continuedBy: v.optional(Id),
});

export type AgentSession = v.InferOutput<typeof AgentSessionSchema>;

export const ListAgentSessionsParams = v.object({
  agent: AgentName,
  cwd: Path,
  /** `local` (the default) or a machine name. */
  place: v.optional(Name),
});

export const ListAgentSessionsResult = v.object({
  /** Whether the agent lists its sessions and can open one; when not, `reason` says why. */
  canContinue: v.boolean(),
  reason: v.optional(v.pipe(v.string(), v.maxLength(1000))),
  /** Whether continuing shows the conversation so far (the agent replays it), or only goes on from it. */
  showsHistory: v.boolean(),
  /** Newest first. */
  sessions: v.pipe(v.array(AgentSessionSchema), v.maxLength(MAX_AGENT_SESSIONS)),
  /** The agent had more than are listed. */
  truncated: v.boolean(),
});

export type AgentSessionList = v.InferOutput<typeof ListAgentSessionsResult>;

export const ContinueSessionParams = v.object({
  agent: AgentName,
  /** The agent's id for the session (from `agents.sessions`). */
  id: AgentSessionId,
  /** The folder it ran in (the listed `cwd`): under the host's roots, as for `sessions.create`. */
  cwd: Path,
  place: v.optional(Name),
  /** The Tether session's title (the listed title); the agent's name when absent. */
  title: v.optional(Name),
});
