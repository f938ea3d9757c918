import type { AgentSessionList, Clock, Result, SessionSummary } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { ExecutionContext } from '@tether/machine';
import type { SessionManager } from '../session-manager.js';
import type { AcpSessionStore } from './acp-session-store.js';
import { agentSessionKey } from './acp-session-store.js';
import { listAgentSessions } from './acp-session-list.js';
import type { AgentCatalog } from './agent-catalog.js';
import { agentEnv } from './agent-env.js';

/**
 * Listings running at once: each starts an agent process for a moment. A device asking for more
 * is told `busy` rather than starting processes without end.
 */
export const MAX_LISTINGS = 2;

export interface AgentSessionsDeps {
  catalog: Pick<AgentCatalog, 'check'>;
  sessions: Pick<SessionManager, 'create' | 'get' | 'archive'>;
  store: AcpSessionStore;
  /** The execution context of a place (`local` or a machine's name), answering at once. */
  contexts: (place: string) => ExecutionContext | undefined;
  /** The host's own environment, from which an agent's `passEnv` variables are taken. */
  env: NodeJS.ProcessEnv;
  clock: Clock;
  /** Milliseconds a listing may take, start to end: the agents' start timeout. */
  timeoutMs: number;
}

export interface AgentSessionsQuery {
  agent: string;
  place: string;
  /** Checked by the caller against the roots of its place. */
  cwd: string;
}

/**
 * Sessions started at the computer, continued in Tether: an agent's own earlier sessions in a
 * folder (`list`), and a Tether session that loads one (`continue`): its conversation replayed
 * into the transcript by the first run (acp-backend.ts), every later turn live. Only a session the
 * agent lists as run in the very folder asked about is continued. At most one Tether session
 * continues one agent session: continuing it again answers that one.
 */
export class AgentSessions {
  private listings = 0;
  /** Continues being set up now, by agent session: a second call for the same one joins the first. */
  private readonly continuing = new Map<string, Promise<Result<SessionSummary>>>();

  constructor(private readonly deps: AgentSessionsDeps) {}

  async list(query: AgentSessionsQuery): Promise<Result<AgentSessionList>> {
    const listed = await this.listIn(query);
    return listed.ok ? ok(listed.value.list) : listed;
  }

  /** The listing, and the folder as the place resolved it (a real path). */
  private async listIn(query: AgentSessionsQuery): Promise<Result<{ folder: string; list: AgentSessionList }>> {
    const spec = this.deps.catalog.check(query.agent);
    if (!spec.ok) return spec;
    const context = this.deps.contexts(query.place);
    if (!context) return fail('not-found', `no machine named ${query.place}`);
    const folder = await context.checkFolder(query.cwd);
    if (!folder.ok) {
      return fail(folder.error.code === 'unreachable' ? 'unavailable' : 'invalid-params', folder.error.message);
    }
    if (this.listings >= MAX_LISTINGS) {
      return fail('busy', `${MAX_LISTINGS} listings of agents' sessions are running already; try again in a moment`);
    }
    this.listings++;
    try {
      const listed = await listAgentSessions({
        context,
        spec: spec.value,
        cwd: folder.value,
        env: agentEnv(spec.value, query.place, this.deps.env),
        clock: this.deps.clock,
        timeoutMs: this.deps.timeoutMs,
      });
      if (!listed.ok) return listed;
      const continued = this.deps.store.byAgentSession();
      for (const session of listed.value.sessions) {
        const by = continued.get(agentSessionKey(query.agent, session.id));
        if (by !== undefined && this.deps.sessions.get(by)) session.continuedBy = by;
      }
      return ok({ folder: folder.value, list: listed.value });
    } finally {
      this.listings--;
    }
  }

  /** A Tether session that continues the agent's session `id`: a new one, or the one that does already. */
  continue(query: AgentSessionsQuery & { id: string; title?: string }): Promise<Result<SessionSummary>> {
    const key = agentSessionKey(query.agent, query.id);
    const pending = this.continuing.get(key);
    if (pending) return pending;
    const made = this.start(query).finally(() => this.continuing.delete(key));
    this.continuing.set(key, made);
    return made;
  }

  private async start(query: AgentSessionsQuery & { id: string; title?: string }): Promise<Result<SessionSummary>> {
    const spec = this.deps.catalog.check(query.agent);
    if (!spec.ok) return spec;
    const existing = this.deps.store.find(query.agent, query.id);
    const session = existing === undefined ? undefined : this.deps.sessions.get(existing);
    if (session) {
      if (session.archived) this.deps.sessions.archive(session.id, false);
      return ok(this.deps.sessions.get(session.id)!);
    }
    // Only a session the agent lists as run in this very folder (which the caller checked against
    // the roots, as a real path): an id from elsewhere, or from a folder inside this one (a link
    // may lead out), would replay work done outside the folders shared (files, in its diffs).
    const listed = await this.listIn(query);
    if (!listed.ok) return listed;
    const { folder, list } = listed.value;
    if (!list.canContinue) return fail('unsupported', list.reason ?? `${spec.value.title} cannot continue a session`);
    const found = list.sessions.find((s) => s.id === query.id && s.cwd === folder);
    if (!found) {
      return fail('not-found', `${spec.value.title} lists no session ${query.id.slice(0, 100)} in ${query.cwd}`);
    }
    const title = query.title?.trim() || found.title || `${spec.value.title} session`;
    return this.deps.sessions.create({
      cwd: folder,
      place: query.place,
      kind: 'acp',
      model: query.agent,
      title,
      prepare: (sessionId) =>
        this.deps.store.set(sessionId, { agent: query.agent, acpSessionId: query.id, history: 'pending' }),
    });
  }
}
