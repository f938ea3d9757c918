import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { Worktrees } from './worktrees.js';

/**
 * `sessions.archive` with `removeWorktree`: the worktree goes first, and only when it may (no
 * uncommitted work, or `force`); when it may not, nothing is archived and the refusal says why.
 */
export async function archiveSession(
  sessions: { archive: (id: string, archived: boolean) => Result<Record<string, never>> },
  worktrees: Worktrees | undefined,
  p: { id: string; archived?: boolean | undefined; removeWorktree?: boolean | undefined; force?: boolean | undefined },
): Promise<Result<Record<string, never>>> {
  const archived = p.archived ?? true;
  if (p.removeWorktree === true) {
    if (!archived) return fail('invalid-params', 'a worktree is removed when the session is archived, not restored');
    if (!worktrees) return fail('unsupported', 'this host does not make worktrees');
    const removed = await worktrees.remove(p.id, p.force === true);
    if (!removed.ok) return removed;
    if (removed.value === undefined) {
      return fail('invalid-params', 'this session does not work in a worktree Tether made: nothing to remove');
    }
  }
  const done = sessions.archive(p.id, archived);
  return done.ok ? ok({}) : done;
}
