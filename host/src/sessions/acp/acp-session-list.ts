import { methods } from '@agentclientprotocol/sdk';
import type { AgentSession, AgentSessionList, Clock, Result } from '@tether/shared-protocol';
import { MAX_AGENT_SESSIONS, MAX_AGENT_SESSION_ID, MAX_AGENT_SESSION_TITLE, fail, ok } from '@tether/shared-protocol';
import type { ExecutionContext } from '@tether/machine';
import * as v from 'valibot';
import { errorText } from './acp-error-text.js';
import { AcpConnection } from './acp-connection.js';
import type { AgentSpec } from './agent-config.js';
import type { Settled } from './settle.js';
import { settle } from './settle.js';

/** Pages of `session/list` followed at most, each up to one ACP message (8 MiB). */
export const MAX_LIST_PAGES = 10;
/** Entries read over all pages at most: past it the listing stops and says it is cut. */
export const MAX_LIST_ENTRIES = 20_000;

/** A page as ACP says it looks; the SDK does not check what an agent answers, so it is checked here. */
const PageSchema = v.object({
  sessions: v.array(v.unknown()),
  nextCursor: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(4096)))),
});

const EntrySchema = v.object({
  sessionId: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_AGENT_SESSION_ID)),
  cwd: v.pipe(v.string(), v.minLength(1), v.maxLength(4096)),
  title: v.optional(v.nullable(v.string())),
  updatedAt: v.optional(v.nullable(v.string())),
});

export interface ListOptions {
  context: ExecutionContext;
  spec: AgentSpec;
  /** The folder, as the place it is on resolved it (a real path). */
  cwd: string;
  env: Record<string, string>;
  clock: Clock;
  /** Milliseconds for all of it: starting the agent, initialize, every page. */
  timeoutMs: number;
}

/**
 * An agent's own sessions in a folder, newest first: the agent is
 * started in the folder for this alone, asked `initialize` and then `session/list` page by page,
 * and ended. What it answers is hostile text: each entry is decoded, bounded (its id, a one-line
 * title, the time, a folder that must be this one) or skipped; at most MAX_AGENT_SESSIONS are
 * kept, read from at most MAX_LIST_PAGES pages and MAX_LIST_ENTRIES entries. An agent that does
 * not list its sessions, or cannot open one, is an answer saying so, not an error.
 */
export async function listAgentSessions(options: ListOptions): Promise<Result<AgentSessionList>> {
  const { spec, clock } = options;
  const started = await AcpConnection.start({
    context: options.context,
    spec,
    cwd: options.cwd,
    env: options.env,
    clock,
  });
  if (!started.ok) return fail('unavailable', started.message);
  const connection = started.value;
  const deadline = clock.now() + options.timeoutMs;
  const step = <T>(promise: Promise<T>) =>
    settle(promise, { clock, ms: Math.max(0, deadline - clock.now()), ended: connection.ended });
  const refused = (outcome: Exclude<Settled<unknown>, { kind: 'value' }>, what: string): Result<never> => {
    if (outcome.kind === 'timeout') {
      return fail('timeout', `${spec.title} did not answer ${what} within ${Math.round(options.timeoutMs / 1000)} s`);
    }
    if (outcome.kind === 'ended') return fail('unavailable', `${spec.title} stopped (${what}): ${outcome.why}`);
    return fail(
      'unavailable',
      `${spec.title} refused ${what}: ${errorText(outcome.kind === 'error' ? outcome.error : undefined)}`,
    );
  };
  try {
    const init = await step(connection.initialize());
    if (init.kind !== 'value') return refused(init, 'initialize');
    const capabilities = init.value.agentCapabilities;
    const has = (value: unknown) => typeof value === 'object' && value !== null;
    const canList = has(capabilities?.sessionCapabilities?.list);
    const canLoad = capabilities?.loadSession === true;
    const canResume = has(capabilities?.sessionCapabilities?.resume);
    const none = { showsHistory: false, sessions: [], truncated: false };
    if (!canList) {
      return ok({
        canContinue: false,
        reason: `${spec.title} does not list its earlier sessions (no ACP session/list)`,
        ...none,
      });
    }
    if (!canLoad && !canResume) {
      return ok({
        canContinue: false,
        reason: `${spec.title} lists its sessions but can neither load nor resume one`,
        ...none,
      });
    }

    const found = new Map<string, AgentSession>();
    const cursors = new Set<string>();
    let cursor: string | undefined;
    let entries = 0;
    let truncated = false;
    for (let page = 0; ; page++) {
      if (page === MAX_LIST_PAGES) {
        truncated = true;
        break;
      }
      const answer = await step(
        connection.agent.request(methods.agent.session.list, {
          cwd: options.cwd,
          ...(cursor !== undefined ? { cursor } : {}),
        }),
      );
      if (answer.kind !== 'value') {
        // What came before stands; a first page that fails is the listing failing.
        if (page > 0) {
          truncated = true;
          break;
        }
        return refused(answer, 'session/list');
      }
      const decoded = v.safeParse(PageSchema, answer.value);
      if (!decoded.success)
        return fail('unavailable', `${spec.title} answered session/list with something that is not a list of sessions`);
      for (const item of decoded.output.sessions) {
        if (++entries > MAX_LIST_ENTRIES) break;
        const session = listed(item, options.cwd);
        if (session && !found.has(session.id)) found.set(session.id, session);
      }
      const next = decoded.output.nextCursor ?? undefined;
      if (entries > MAX_LIST_ENTRIES) {
        truncated = true;
        break;
      }
      if (next === undefined || next === '' || cursors.has(next)) break;
      cursors.add(next);
      cursor = next;
    }
    const sessions = [...found.values()].sort((a, b) => (b.updatedAt ?? -1) - (a.updatedAt ?? -1));
    if (sessions.length > MAX_AGENT_SESSIONS) truncated = true;
    return ok({ canContinue: true, showsHistory: canLoad, sessions: sessions.slice(0, MAX_AGENT_SESSIONS), truncated });
  } finally {
    // Started for this listing alone.
    connection.kill();
  }
}

/** One entry, decoded and bounded; undefined when it is malformed or in another folder. */
function listed(item: unknown, folder: string): AgentSession | undefined {
  const entry = v.safeParse(EntrySchema, item);
  if (!entry.success) return undefined;
  const { sessionId, cwd, title, updatedAt } = entry.output;
  if (!sameFolder(folder, cwd)) return undefined;
  const time = typeof updatedAt === 'string' ? Date.parse(updatedAt) : NaN;
  return {
    id: sessionId,
    title: typeof title === 'string' ? oneLine(title) : '',
    updatedAt: Number.isFinite(time) && time >= 0 ? Math.round(time) : null,
    cwd: folder,
  };
}

/**
 * Whether `path` (an agent's text) names `folder` itself. Not a folder inside it: one may be a link
 * out of the folders the place shares, and only the folder asked about was checked.
 */
export function sameFolder(folder: string, path: string): boolean {
  return (path.length > 1 ? path.replace(/\/+$/, '') : path) === folder;
}

/** A title on one line (every run of white space one space), cut to MAX_AGENT_SESSION_TITLE. */
export function oneLine(title: string): string {
  const line = title
    .slice(0, MAX_AGENT_SESSION_TITLE * 4)
    .replace(/\s+/gu, ' ')
    .trim();
  if (line.length <= MAX_AGENT_SESSION_TITLE) return line;
  let head = line.slice(0, MAX_AGENT_SESSION_TITLE - 1);
  // Never half of a character pair.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head}…`;
}
