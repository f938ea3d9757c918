import * as v from 'valibot';
import { Count, Id, Path } from './common.js';

/**
 * `git.*`: the session folder's repository as the phone sees and changes it. Every write is the
 * real `git` (or `gh`) run in the session's place, and its exact command line goes into the
 * session's transcript as an `info` notice beginning with `$ git` (or `$ gh`).
 */

/** Changed files one status lists at most (then `truncated`). */
export const MAX_GIT_FILES = 2000;
/** Files one stage or unstage names at most. */
export const MAX_GIT_PATHS = 500;
/** Characters of one file's diff (then `truncated`). */
export const MAX_GIT_DIFF = 512 * 1024;
/** Characters of a commit message. */
export const MAX_COMMIT_MESSAGE = 16 * 1024;

/** A path as git names it, relative to the repository's top: never empty, never a NUL. */
export const GitPath = v.pipe(Path, v.regex(/^[^\0]+$/, 'a path holds no NUL'));

/** Short text git printed: a branch, a ref, a line of its output (hostile: escaped by every surface). */
const GitText = (max: number) => v.pipe(v.string(), v.maxLength(max));

/**
 * One changed file. `index` and `worktree` are git's porcelain letters (`M`, `A`, `D`, `R`, `C`,
 * `U`, `?` for untracked, `.` for unchanged); `from` is a rename's or copy's old path.
 */
export const GitFileSchema = v.object({
  path: GitPath,
  from: v.optional(GitPath),
  index: v.pipe(v.string(), v.length(1)),
  worktree: v.pipe(v.string(), v.length(1)),
});
export type GitFile = v.InferOutput<typeof GitFileSchema>;

export const GitStatusResult = v.object({
  /** The repository's top folder. */
  root: Path,
  /** The branch checked out; absent when HEAD is detached. */
  branch: v.optional(GitText(1000)),
  /** The commit HEAD names (absent in a repository with no commit yet). */
  head: v.optional(GitText(64)),
  /** The branch's upstream (`origin/main`), where it has one. */
  upstream: v.optional(GitText(1000)),
  ahead: Count,
  behind: Count,
  files: v.pipe(v.array(GitFileSchema), v.maxLength(MAX_GIT_FILES)),
  truncated: v.boolean(),
});
export type GitStatus = v.InferOutput<typeof GitStatusResult>;

export const GitDiffParams = v.object({
  id: Id,
  path: GitPath,
  /** The staged change (index against HEAD) rather than the unstaged one. */
  staged: v.optional(v.boolean()),
});
export const GitDiffResult = v.object({
  path: GitPath,
  /** A unified diff (an untracked file: against nothing), as text. */
  diff: GitText(MAX_GIT_DIFF),
  truncated: v.boolean(),
});

export const GitPathsParams = v.object({
  id: Id,
  paths: v.pipe(v.array(GitPath), v.minLength(1), v.maxLength(MAX_GIT_PATHS)),
});

export const GitCommitParams = v.object({
  id: Id,
  message: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(MAX_COMMIT_MESSAGE),
    v.regex(/\S/, 'a message says something'),
  ),
});

/**
 * A push to the branch's upstream (or, with none, to `origin` under the same name, set as its
 * upstream). `forceWithLease` replaces what the remote holds if it is still what this clone last
 * saw: commits someone else pushed since are kept safe, but commits of the branch that are not in
 * the local one are dropped from the remote. Never sent unless the person chose it.
 */
export const GitPushParams = v.object({ id: Id, forceWithLease: v.optional(v.boolean()) });

/** What a write did: the exact command line run, its output, and the status after it. */
export const GitWriteResult = v.object({
  command: GitText(20_000),
  output: GitText(64 * 1024),
  status: GitStatusResult,
});
export type GitWrite = v.InferOutput<typeof GitWriteResult>;

/**
 * A pull request: opened with `gh` (`via: 'gh'`, its URL), or, without a signed-in `gh`, the
 * remote's page to open one (`via: 'compare'`, with `reason` saying why gh was not used). No URL
 * when the remote is not a web host Tether knows the shape of (then `reason`).
 */
export const GitPullRequestResult = v.object({
  via: v.picklist(['gh', 'compare', 'none']),
  url: v.optional(GitText(4096)),
  command: v.optional(GitText(20_000)),
  reason: v.optional(GitText(4000)),
});
export type GitPullRequest = v.InferOutput<typeof GitPullRequestResult>;
