import type { Db } from '../store/database.js';

/** The ACP session an agent keeps for a Tether session, so a new agent process can load it. */
export interface AcpSessionRef {
  agent: string;
  acpSessionId: string;
}

/** Characters of an agent's session id kept: its own text, bounded like any other. */
const MAX_ACP_SESSION_ID = 1000;

/**
 * Which ACP session each Tether session talks to, kept in the store's `settings` table (key
 * `acp.session.<session id>`), so that after the agent stops or the host restarts the next prompt
 * can load the agent's own session and the agent remembers the conversation.
 */
export class AcpSessionStore {
  constructor(private readonly db: Db) {}

  get(sessionId: string): AcpSessionRef | undefined {
    const value = this.db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(key(sessionId)) as
      string | undefined;
    if (value === undefined) return undefined;
    try {
      const parsed = JSON.parse(value) as Partial<AcpSessionRef>;
      return typeof parsed.agent === 'string' && typeof parsed.acpSessionId === 'string'
        ? { agent: parsed.agent, acpSessionId: parsed.acpSessionId }
        : undefined;
    } catch {
      // A damaged entry: the next prompt starts a new ACP session, which is the safe reading.
      return undefined;
    }
  }

  set(sessionId: string, ref: AcpSessionRef): void {
    if (ref.acpSessionId.length > MAX_ACP_SESSION_ID) return;
    this.db
      .prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      .run(key(sessionId), JSON.stringify(ref));
  }
}

function key(sessionId: string): string {
  return `acp.session.${sessionId}`;
}
