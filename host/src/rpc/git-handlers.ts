import type { SessionGit } from '../git/session-git.js';

/** `git.*`: one view of a session's repository for the device and control surfaces (scope: the dispatch's). */
export function gitHandlers(git: SessionGit) {
  return {
    'git.status': ({ id }: { id: string }) => git.status(id),
    'git.diff': ({ id, path, staged }: { id: string; path: string; staged?: boolean | undefined }) =>
      git.diff(id, path, staged ?? false),
    'git.stage': ({ id, paths }: { id: string; paths: string[] }) => git.stage(id, paths),
    'git.unstage': ({ id, paths }: { id: string; paths: string[] }) => git.unstage(id, paths),
    'git.commit': ({ id, message }: { id: string; message: string }) => git.commit(id, message),
    'git.push': ({ id, forceWithLease }: { id: string; forceWithLease?: boolean | undefined }) =>
      git.push(id, forceWithLease ?? false),
    'git.pullRequest': ({ id }: { id: string }) => git.pullRequest(id),
  };
}
