import type { ExecutionContext } from '@tether/machine';
import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { commandLine, runGit } from './git-runner.js';
import { refuseSettingsThatRun } from './git-settings.js';
import type { SessionGitDeps } from './session-git.js';

/**
 * Sessions in a worktree of their own (docs/git.md): `git worktree add -b tether/<short-id>` makes
 * `<repo>/../.tether-worktrees/<repo>-<short-id>` beside the repository, on a new branch from its
 * HEAD, and the session works there. Archiving such a session may remove the worktree, only when
 * nothing in it is uncommitted (or when forced); its branch, and so every commit, stays.
 */

/** The folder beside a repository that holds its sessions' worktrees. */
export const WORKTREES_FOLDER = '.tether-worktrees';
/** The branch prefix of a session's worktree. */
export const WORKTREE_BRANCH_PREFIX = 'tether/';

export interface NewWorktree {
  /** The session's folder: the worktree, or the same subfolder in it that `cwd` was. */
  cwd: string;
  branch: string;
  command: string;
  /** The worktree's top folder, and the top of the repository it was made from. */
  folder: string;
  top: string;
}

export class Worktrees {
  constructor(private readonly deps: SessionGitDeps) {}

  /** Adds a worktree for a session about to start in `cwd`, at `place`. */
  async add(place: string, cwd: string, shortId: string): Promise<Result<NewWorktree>> {
    const context = this.deps.contexts(place);
    if (!context) return fail('unavailable', `${place} is not connected`);
    const top = await topOf(context, cwd);
    if (!top.ok) return top;
    // Checking out the worktree runs the repository's filters: refused as for git from the phone.
    const settings = await refuseSettingsThatRun(context, top.value);
    if (!settings.ok) return settings;
    const folder = posix.join(posix.dirname(top.value), WORKTREES_FOLDER, `${posix.basename(top.value)}-${shortId}`);
    const branch = `${WORKTREE_BRANCH_PREFIX}${shortId}`;
    const args = ['worktree', 'add', '--quiet', '-b', branch, '--', folder, 'HEAD'];
    const run = await runGit(context, top.value, args);
    if (!run.ok) return run;
    if (run.value.code !== 0) {
      return fail('conflict', `git worktree add failed: ${run.value.stderr.trim() || `exit code ${run.value.code}`}`);
    }
    const inside = posix.relative(top.value, cwd);
    const command = commandLine('git', args);
    return ok({ cwd: inside ? posix.join(folder, inside) : folder, branch, command, folder, top: top.value });
  }

  /**
   * Starts a session through `create`, in a new worktree of `input.cwd`'s repository when `wanted`:
   * the worktree's command line opens its transcript; a session that could not start leaves no
   * worktree or branch behind.
   */
  async create<I extends { cwd: string; place?: string }, S extends { id: string }>(
    wanted: boolean | undefined,
    input: I,
    create: (input: I) => Promise<Result<S>>,
  ): Promise<Result<S>> {
    if (wanted !== true) return create(input);
    const place = input.place ?? 'local';
    const made = await this.add(place, input.cwd, randomBytes(4).toString('hex'));
    if (!made.ok) return made;
    const created = await create({ ...input, cwd: made.value.cwd });
    const context = this.deps.contexts(place);
    if (created.ok) this.deps.note(created.value.id, 'info', `$ ${made.value.command}`);
    else if (context) {
      await runGit(context, made.value.top, ['worktree', 'remove', '--force', '--', made.value.folder]);
      await runGit(context, made.value.top, ['branch', '--quiet', '-D', '--', made.value.branch]);
    }
    return created;
  }

  /**
   * Removes the worktree a session works in, when it is one Tether made. Refused while it holds
   * uncommitted work (changed, staged or untracked files) unless `force`; the refusal names them.
   */
  async remove(id: string, force: boolean): Promise<Result<{ removed: string } | undefined>> {
    const session = this.deps.session(id);
    if (!session) return fail('not-found', `no session ${id}`);
    const context = this.deps.contexts(session.place);
    if (!context) return fail('unavailable', `${session.place} is not connected`);
    const top = await topOf(context, session.cwd);
    if (!top.ok) return ok(undefined);
    if (posix.basename(posix.dirname(top.value)) !== WORKTREES_FOLDER) return ok(undefined);
    const common = await runGit(context, top.value, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
    if (!common.ok) return common;
    const main = posix.dirname(common.value.stdout.trim());
    if (common.value.code !== 0 || main === top.value) return ok(undefined);
    if (!force) {
      const status = await runGit(context, top.value, ['status', '--porcelain', '--untracked-files=all']);
      if (!status.ok) return status;
      const lines = status.value.stdout.split('\n').filter((line) => line !== '');
      if (status.value.code !== 0 || lines.length > 0) {
        const shown = lines.slice(0, 10).join('\n');
        return fail(
          'conflict',
          `the worktree ${top.value} has uncommitted work (${lines.length} file${lines.length === 1 ? '' : 's'}); commit it, archive without removing the worktree, or remove it anyway (its changes are lost):\n${shown}`,
        );
      }
    }
    const args = ['worktree', 'remove', ...(force ? ['--force'] : []), '--', top.value];
    const run = await runGit(context, main, args);
    if (!run.ok) return run;
    const command = commandLine('git', args);
    if (run.value.code !== 0) {
      const reason = run.value.stderr.trim() || `exit code ${run.value.code}`;
      this.deps.note(id, 'warning', `$ ${command}\n${reason}`);
      return fail('conflict', `git worktree remove failed: ${reason}`);
    }
    this.deps.note(id, 'info', `$ ${command}`);
    return ok({ removed: top.value });
  }
}

async function topOf(context: ExecutionContext, cwd: string): Promise<Result<string>> {
  const top = await runGit(context, cwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok) return top;
  if (top.value.code !== 0) {
    return fail('unsupported', `${cwd} is not in a git repository: a session in a new worktree needs one`);
  }
  return ok(top.value.stdout.replace(/\n$/, ''));
}
