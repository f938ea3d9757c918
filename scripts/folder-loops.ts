// Loops between the folders of a package's `src/`: drawn from the imports of their files (tests
// and test kits left out), each top-level folder (or file) one node. Two folders that import each
// other are one layer in two places, however their files are arranged.
import { relative } from 'node:path';
import type { ImportEdge } from './import-cycles.js';
import { findCycles } from './import-cycles.js';

export interface FolderLoop {
  /** The import behind the loop's first arrow. */
  file: string;
  line: number;
  /** `a → b → a`, then each arrow's first file import. */
  detail: string;
}

/** The top-level folder (or file) under `<pkg>/src` a file is in; tests, test kits and the rest: none. */
export function srcFolder(root: string, pkg: string, file: string): string | undefined {
  const rel = relative(root, file);
  if (/\.test\.tsx?$/.test(rel) || /\/testing\//.test(rel)) return undefined;
  return new RegExp(`^${pkg}/src/([^/]+)`).exec(rel)?.[1];
}

export function folderLoops(
  root: string,
  pkg: string,
  imports: ReadonlyMap<string, readonly ImportEdge[]>,
): FolderLoop[] {
  const folders = new Map<string, ImportEdge[]>();
  /** The first file import behind each folder edge, to name in the report. */
  const witness = new Map<string, { file: string; line: number; to: string }>();
  for (const [file, edges] of imports) {
    const from = srcFolder(root, pkg, file);
    if (!from) continue;
    const out = folders.get(from) ?? [];
    folders.set(from, out);
    for (const edge of edges) {
      const to = srcFolder(root, pkg, edge.to);
      if (!to || to === from || out.some((e) => e.to === to)) continue;
      out.push({ to, line: edge.line });
      witness.set(`${from} ${to}`, { file: relative(root, file), line: edge.line, to: relative(root, edge.to) });
    }
  }
  return findCycles(folders).map((cycle) => {
    const first = witness.get(`${cycle.path[0]} ${cycle.path[1]}`)!;
    const through = cycle.path.slice(0, -1).map((folder, i) => {
      const w = witness.get(`${folder} ${cycle.path[i + 1]}`)!;
      return `${w.file} → ${w.to}`;
    });
    return { file: first.file, line: first.line, detail: `${cycle.path.join(' → ')} (${through.join('; ')})` };
  });
}
