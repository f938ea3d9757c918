import { join, sep } from 'node:path';
import type { SearchHit } from '@tether/machine';
import type { ApprovalCheck, ToolContext } from './tool.js';
import { refusal } from './tool.js';

/**
 * Reads of hidden entries directly in the home folder (`.bashrc`, `.config/…`, `.some-tool-token`).
 * They hold per-user settings and, often, credentials that the private list does not name: the
 * list refuses the known ones outright, and the read tools ask the person before reading any
 * other. The place says where its home is (ExecutionContext.home); a place that does not say
 * gets no such question. A session whose folder was chosen inside such an entry (`~/.config/nvim`)
 * reads there without asking: the person chose to work there, and reads are confined to it.
 */

/** The hidden entry of `home` that `real` is or lies in (`.bashrc`, `.config`), if any. */
export function hiddenHomeEntry(real: string, home: string): string | undefined {
  const prefix = home.endsWith(sep) ? home : home + sep;
  if (!real.startsWith(prefix)) return undefined;
  const first = real.slice(prefix.length).split(sep)[0] ?? '';
  return first.startsWith('.') ? first : undefined;
}

/**
 * The approval a read of `path` (in the session's folder) needs: a question naming its real path
 * when it reaches a hidden entry of the home folder, else none. `verb` and `detail` say what the
 * read is ("Read", "List", "Search … for").
 */
export async function homeReadApproval(
  context: Pick<ToolContext, 'exec' | 'cwd'>,
  path: string,
  verb: string,
  detail = '',
): Promise<ApprovalCheck> {
  const [root, real] = await Promise.all([
    context.exec.realPath(context.cwd, '.'),
    context.exec.realPath(context.cwd, path),
  ]);
  // Any other error is the read's own to report, unchanged, when it runs.
  if (!real.ok) return real.error.code === 'unreachable' ? refusal(real.error) : { need: null };
  // Read after the calls: a machine says where its home is when it registers, which they wait for.
  const home = context.exec.home;
  if (home === undefined) return { need: null };
  const entry = hiddenHomeEntry(real.value, home);
  if (entry === undefined || (root.ok && hiddenHomeEntry(root.value, home) === entry)) return { need: null };
  return {
    need: {
      // The closed list of kinds has none for a read; `mcp` is the one shown as "Use TOOL?".
      kind: 'mcp',
      action: `${verb} ${real.value}${detail}\n(${entry} is a hidden entry in the home folder: settings, and often credentials)`,
      // What "allow for this session" then covers: this very file or folder, never the entry it is
      // in (a grant for `~/.config/git/config` is none for `~/.config/github-copilot/apps.json`).
      path: real.value,
    },
  };
}

/**
 * The hits of a search (paths relative to `rootReal`, which it started from `startReal`) that do
 * not lie in a hidden entry of the home folder the person was not asked about: a search of the
 * whole home folder answers from its ordinary files only. Also how many were left out.
 */
export function outsideHiddenHomeEntries(
  hits: readonly SearchHit[],
  home: string,
  rootReal: string,
  startReal: string,
): { hits: SearchHit[]; left: number } {
  const chosen = [hiddenHomeEntry(rootReal, home), hiddenHomeEntry(startReal, home)];
  const kept = hits.filter((hit) => {
    const entry = hiddenHomeEntry(join(rootReal, hit.path), home);
    return entry === undefined || chosen.includes(entry);
  });
  return { hits: kept, left: hits.length - kept.length };
}
