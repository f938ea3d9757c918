import type { AnsweredBy, Approval, Decision } from '@tether/shared-protocol';
import type { Db } from './database.js';

interface Row {
  id: string;
  session_id: string;
  tool_call_id: string;
  tool: string;
  kind: Approval['kind'];
  action: string;
  cwd: string;
  place: string;
  always: string | null;
  created_at: number;
  status: Approval['status'];
  decision: Decision | null;
  note: string | null;
  prefix: string | null;
  answered_by: string | null;
  answered_at: number | null;
}

function fromRow(row: Row): Approval {
  const approval: Approval = {
    id: row.id,
    sessionId: row.session_id,
    toolCallId: row.tool_call_id,
    tool: row.tool,
    kind: row.kind,
    action: row.action,
    cwd: row.cwd,
    place: row.place,
    createdAt: row.created_at,
    status: row.status,
  };
  if (row.always !== null) approval.always = row.always;
  if (row.decision) approval.decision = row.decision;
  if (row.note) approval.note = row.note;
  if (row.prefix) approval.prefix = row.prefix;
  if (row.answered_by) approval.answeredBy = JSON.parse(row.answered_by) as AnsweredBy;
  if (row.answered_at !== null) approval.answeredAt = row.answered_at;
  return approval;
}

export interface Answer {
  status: 'allowed' | 'denied' | 'cancelled';
  decision?: Decision;
  note?: string;
  prefix?: string;
  by: AnsweredBy;
  at: number;
}

/** Approvals, persisted so that a restart knows which were pending. */
export class ApprovalStore {
  constructor(private readonly db: Db) {}

  insert(approval: Omit<Approval, 'status'>): Approval {
    this.db
      .prepare(
        `INSERT INTO approvals (id, session_id, tool_call_id, tool, kind, action, cwd, place, always, created_at, status)
         VALUES (@id, @sessionId, @toolCallId, @tool, @kind, @action, @cwd, @place, @always, @createdAt, 'pending')`,
      )
      .run({ ...approval, always: approval.always ?? null });
    return { ...approval, status: 'pending' };
  }

  get(id: string): Approval | undefined {
    const row = this.db.prepare('SELECT * FROM approvals WHERE id = ?').get(id) as Row | undefined;
    return row && fromRow(row);
  }

  list(filter: { sessionId?: string; pendingOnly: boolean }): Approval[] {
    const where: string[] = [];
    if (filter.pendingOnly) where.push("status = 'pending'");
    if (filter.sessionId) where.push('session_id = @sessionId');
    const rows = this.db
      .prepare(`SELECT * FROM approvals ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at`)
      .all({ sessionId: filter.sessionId }) as Row[];
    return rows.map(fromRow);
  }

  /** Records an answer if the approval is still pending. False when someone answered first. */
  resolve(id: string, answer: Answer): boolean {
    const result = this.db
      .prepare(
        `UPDATE approvals SET status = @status, decision = @decision, note = @note, prefix = @prefix,
           answered_by = @by, answered_at = @at
         WHERE id = @id AND status = 'pending'`,
      )
      .run({
        id,
        status: answer.status,
        decision: answer.decision ?? null,
        note: answer.note ?? null,
        prefix: answer.prefix ?? null,
        by: JSON.stringify(answer.by),
        at: answer.at,
      });
    return result.changes === 1;
  }
}
