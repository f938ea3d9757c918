import type { Db } from '../../store/database.js';

/** The ACP session an agent keeps for a Tether session, so a new agent process can load it. */
export interface AcpSessionRef {
  agent: string;
  acpSessionId: string;
  /**
   * The session was started elsewhere (at the computer) and its conversation is not in the
   * Tether session's log yet: the next start loads it with its replay recorded as the transcript.
   */
  history?: 'pending';
}

/** Characters of an agent's session id kept: its own text, bounded like any other. */
const MAX_ACP_SESSION_ID = 1000;
const PREFIX = 'acp.session.';

/**
 * Which ACP session each Tether session talks to, kept in the store's `settings` table (key
 * `acp.session.<session id>`), so that after the agent stops or the host restarts the next prompt
 * can load the agent's own session and the agent remembers the conversation. At most one Tether
 * session talks to one ACP session: `find` is how continuing one again finds the first.
 */
export class AcpSessionStore {
  constructor(private readonly db: Db) {}

  get(sessionId: string): AcpSessionRef | undefined {
    const value = this.db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(key(sessionId)) as
      string | undefined;
    return value === undefined ? undefined : parse(value);
  }

  set(sessionId: string, ref: AcpSessionRef): void {
    if (ref.acpSessionId.length > MAX_ACP_SESSION_ID) return;
    this.db
      .prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      .run(key(sessionId), JSON.stringify(ref));
  }

  delete(sessionId: string): void {
    this.db.prepare('DELETE FROM settings WHERE key = ?').run(key(sessionId));
  }

  /** Every Tether session's ACP session, by agent and the agent's id: `${agent}\n${acpSessionId}` → session id. */
  byAgentSession(): Map<string, string> {
    const rows = this.db
      .prepare('SELECT key, value FROM settings WHERE key >= ? AND key < ? ORDER BY key')
      .all(PREFIX, `${PREFIX}\uffff`) as { key: string; value: string }[];
    const out = new Map<string, string>();
    for (const row of rows) {
      const ref = parse(row.value);
      if (ref) out.set(agentSessionKey(ref.agent, ref.acpSessionId), row.key.slice(PREFIX.length));
    }
    return out;
  }

  /** The Tether session that talks to the agent's session `acpSessionId`, if one does. */
  find(agent: string, acpSessionId: string): string | undefined {
    return this.byAgentSession().get(agentSessionKey(agent, acpSessionId));
  }
}

export function agentSessionKey(agent: string, acpSessionId: string): string {
  return `${agent}\n${acpSessionId}`;
}

function parse(value: string): AcpSessionRef | undefined {
  try {
    const parsed = JSON.parse(value) as Partial<AcpSessionRef>;
    if (typeof parsed.agent !== 'string' || typeof parsed.acpSessionId !== 'string') return undefined;
    return {
      agent: parsed.agent,
      acpSessionId: parsed.acpSessionId,
      ...(parsed.history === 'pending' ? { history: 'pending' as const } : {}),
    };
  } catch {
    // A damaged entry: the next prompt starts a new ACP session, which is the safe reading.
    return undefined;
  }
}

function key(sessionId: string): string {
  return `${PREFIX}${sessionId}`;
}
