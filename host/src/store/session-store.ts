import type { Attachment, NotifyLevel, SessionKind, SessionStatus, SessionSummary } from '@tether/shared-protocol';
import { AttachmentListSchema, isSessionKind } from '@tether/shared-protocol';
import * as v from 'valibot';
import { ActivityStore } from './activity-store.js';
import type { Db } from './database.js';
import { SteeringStore } from './steering-store.js';

/**
 * What "allow for this session" has allowed: a tool; for `shell` an exact command or a prefix; for a
 * read tool, reads of one hidden entry of the home folder (`path`, its real path).
 */
export type AllowRule =
  | { tool: string }
  | { tool: 'shell'; command: string }
  | { tool: 'shell'; prefix: string }
  | { tool: string; path: string };

export interface SessionRecord {
  id: string;
  title: string;
  kind: SessionKind;
  place: string;
  cwd: string;
  model: string;
  /** The agent the session talks to: an ACP agent's name, a wrapped program's; null for Tether's own loop. */
  agent: string | null;
  status: SessionStatus;
  archived: boolean;
  autoApprove: boolean;
  allowRules: AllowRule[];
  lastSeq: number;
  lastLine: string;
  /** When devices are notified of it (push). */
  notify: NotifyLevel;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string;
  title: string;
  kind: string;
  place: string;
  cwd: string;
  model: string;
  agent: string | null;
  status: string;
  archived: number;
  auto_approve: number;
  allow_rules: string;
  last_line: string;
  notify: string;
  created_at: number;
  updated_at: number;
  /** Read from the session's newest event (SESSION_ROWS), not stored beside it. */
  last_seq: number;
  last_at: number | null;
}

/**
 * Sessions with their last sequence number and the time of their newest event, both read from the
 * event log's own index: an append writes one row and touches nothing else.
 */
const SESSION_ROWS = `SELECT sessions.*,
  COALESCE((SELECT seq FROM events WHERE session_id = sessions.id ORDER BY seq DESC LIMIT 1), 0) AS last_seq,
  (SELECT at FROM events WHERE session_id = sessions.id ORDER BY seq DESC LIMIT 1) AS last_at
  FROM sessions`;

function isNotifyLevel(value: string): value is NotifyLevel {
  return value === 'needs' || value === 'done' || value === 'off';
}

function fromRow(row: Row): SessionRecord | undefined {
  // A kind this host does not know (written by a newer one): the session is left out, not
  // reinterpreted as something else.
  if (!isSessionKind(row.kind)) return undefined;
  let allowRules: AllowRule[] = [];
  try {
    allowRules = JSON.parse(row.allow_rules) as AllowRule[];
  } catch {
    // A damaged rule list allows nothing, which is the safe reading.
  }
  return {
    id: row.id,
    title: row.title,
    kind: row.kind,
    place: row.place,
    cwd: row.cwd,
    model: row.model,
    agent: row.agent,
    status: row.status as SessionStatus,
    archived: row.archived !== 0,
    autoApprove: row.auto_approve !== 0,
    allowRules,
    lastSeq: row.last_seq,
    lastLine: row.last_line,
    // A level this host does not know (a newer one wrote it) reads as the default.
    notify: isNotifyLevel(row.notify) ? row.notify : 'needs',
    createdAt: row.created_at,
    updatedAt: Math.max(row.updated_at, row.last_at ?? 0),
  };
}

const COLUMNS = {
  status: 'status',
  archived: 'archived',
  autoApprove: 'auto_approve',
  allowRules: 'allow_rules',
  lastLine: 'last_line',
  title: 'title',
  notify: 'notify',
  model: 'model',
} as const;
type UpdatableField = keyof typeof COLUMNS;

/** Message ids kept per session for telling a resent message from a new one. */
export const MAX_RECEIPTS = 1000;

/** Sessions and their queued follow-up messages. */
export class SessionStore {
  /** A `terminal` session's terminal while the host holds it (not stored: terminals end with the host). */
  readonly terminals = new Map<string, string>();

  constructor(
    private readonly db: Db,
    /** A run at a glance and each session's own model-call limit. */
    readonly activity = new ActivityStore(db),
    /** Its mode, an agent's model and what the agent offers, its budget. */
    readonly steering = new SteeringStore(db),
  ) {}

  insert(
    record: Omit<
      SessionRecord,
      'lastSeq' | 'archived' | 'allowRules' | 'lastLine' | 'autoApprove' | 'agent' | 'notify'
    > & {
      agent?: string;
    },
  ): SessionRecord {
    this.db
      .prepare(
        `INSERT INTO sessions (id, title, kind, place, cwd, model, agent, status, created_at, updated_at)
         VALUES (@id, @title, @kind, @place, @cwd, @model, @agent, @status, @createdAt, @updatedAt)`,
      )
      .run({ ...record, agent: record.agent ?? null });
    return this.get(record.id)!;
  }

  get(id: string): SessionRecord | undefined {
    const row = this.db.prepare(`${SESSION_ROWS} WHERE id = ?`).get(id) as Row | undefined;
    return row && fromRow(row);
  }

  list(includeArchived: boolean): SessionRecord[] {
    const rows = this.db
      .prepare(`${SESSION_ROWS} ${includeArchived ? '' : 'WHERE archived = 0'} ORDER BY created_at DESC`)
      .all() as Row[];
    return rows.flatMap((row) => fromRow(row) ?? []);
  }

  /** Sessions whose last known status says a run was in flight. */
  listInFlight(): SessionRecord[] {
    const rows = this.db.prepare(`${SESSION_ROWS} WHERE status IN ('running', 'waiting')`).all() as Row[];
    return rows.flatMap((row) => fromRow(row) ?? []);
  }

  update(id: string, changes: Partial<Pick<SessionRecord, UpdatableField>>): void {
    const sets: string[] = [];
    const values: Record<string, unknown> = { id };
    for (const [field, column] of Object.entries(COLUMNS) as [UpdatableField, string][]) {
      const value = changes[field];
      if (value === undefined) continue;
      sets.push(`${column} = @${field}`);
      values[field] = typeof value === 'boolean' ? Number(value) : Array.isArray(value) ? JSON.stringify(value) : value;
    }
    if (sets.length === 0) return;
    this.db.prepare(`UPDATE sessions SET ${sets.join(', ')} WHERE id = @id`).run(values);
  }

  enqueue(sessionId: string, message: UserMessage, at: number): void {
    const attachments = message.attachments?.length ? JSON.stringify(message.attachments) : null;
    this.db
      .prepare('INSERT INTO queued_messages (session_id, text, created_at, attachments) VALUES (?, ?, ?, ?)')
      .run(sessionId, message.text, at, attachments);
  }

  /** Takes every queued message of a session, oldest first. */
  takeQueued(sessionId: string): UserMessage[] {
    return this.db.transaction(() => {
      const rows = this.db
        .prepare('SELECT id, text, attachments FROM queued_messages WHERE session_id = ? ORDER BY id')
        .all(sessionId) as { id: number; text: string; attachments: string | null }[];
      this.db.prepare('DELETE FROM queued_messages WHERE session_id = ?').run(sessionId);
      return rows.map((r) => userMessage(r.text, r.attachments));
    })();
  }

  /** The answer given to the first send of a device's message id, if the host has taken it. */
  receipt(sessionId: string, clientId: string): { queued: boolean } | undefined {
    const queued = this.db
      .prepare('SELECT queued FROM message_receipts WHERE session_id = ? AND client_id = ?')
      .pluck()
      .get(sessionId, clientId) as number | undefined;
    return queued === undefined ? undefined : { queued: queued === 1 };
  }

  /**
   * Keeps a device's message id with the answer it got. At most MAX_RECEIPTS per session: past it
   * the oldest go (a device resends within minutes, not after a thousand newer messages).
   */
  keepReceipt(sessionId: string, clientId: string, queued: boolean, at: number): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          'INSERT OR IGNORE INTO message_receipts (session_id, client_id, queued, received_at) VALUES (?, ?, ?, ?)',
        )
        .run(sessionId, clientId, queued ? 1 : 0, at);
      this.db
        .prepare(
          `DELETE FROM message_receipts WHERE session_id = ? AND client_id IN (
             SELECT client_id FROM message_receipts WHERE session_id = ?
             ORDER BY received_at DESC, client_id LIMIT -1 OFFSET ?)`,
        )
        .run(sessionId, sessionId, MAX_RECEIPTS);
    })();
  }

  queuedCount(sessionId: string): number {
    return this.db
      .prepare('SELECT COUNT(*) FROM queued_messages WHERE session_id = ?')
      .pluck()
      .get(sessionId) as number;
  }

  pendingApprovals(sessionId: string): number {
    return this.db
      .prepare("SELECT COUNT(*) FROM approvals WHERE session_id = ? AND status = 'pending'")
      .pluck()
      .get(sessionId) as number;
  }

  /** The summary devices and the CLI see. `lastSeq` may be given for a summary inside an event. */
  summary(record: SessionRecord, lastSeq = record.lastSeq): SessionSummary {
    const { mode, agentModel, budget } = this.steering.get(record.id);
    return {
      id: record.id,
      title: record.title,
      kind: record.kind,
      place: record.place,
      cwd: record.cwd,
      model: record.model,
      ...(record.agent !== null ? { agent: record.agent } : {}),
      status: record.status,
      archived: record.archived,
      autoApprove: record.autoApprove,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      lastSeq,
      pendingApprovals: this.pendingApprovals(record.id),
      queued: this.queuedCount(record.id),
      lastLine: record.lastLine,
      activity: this.activity.get(record.id),
      ...(this.terminals.has(record.id) ? { terminalId: this.terminals.get(record.id) } : {}),
      notify: record.notify,
      ...(mode ? { mode } : {}),
      ...(agentModel ? { agentModel } : {}),
      ...(budget ? { budget } : {}),
    };
  }
}

/** A message a person sent: its text and what was attached (by reference). */
export interface UserMessage {
  text: string;
  attachments?: Attachment[];
}

/** A queued row as a message; attachments that no longer decode (a hand-edited row) are dropped. */
function userMessage(text: string, attachments: string | null): UserMessage {
  if (attachments === null) return { text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(attachments);
  } catch {
    return { text };
  }
  const checked = v.safeParse(AttachmentListSchema, parsed);
  return checked.success ? { text, attachments: checked.output } : { text };
}
