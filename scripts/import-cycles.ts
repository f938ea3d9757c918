// Finds import circles among the files of one package: groups of files that reach each other
// through relative imports (strongly connected components, Tarjan's algorithm), each shown as one
// concrete circle through its first file.
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** One relative import: the file it names (resolved) and the line it is on. */
export interface ImportEdge {
  to: string;
  line: number;
}

export interface ImportCycle {
  /** Every file in the knot, sorted. */
  files: string[];
  /** One circle through the first of `files`, ending where it starts: a → b → a. */
  path: string[];
  /** The line in `path[0]` of its import of `path[1]`. */
  line: number;
}

/** Source extensions an import of `x.js` (as NodeNext spells it) may stand for, in order. */
const SOURCE_FOR: Record<string, string[]> = {
  '.js': ['.ts', '.tsx', '.js'],
  '.mjs': ['.mts', '.mjs'],
  '.jsx': ['.tsx', '.jsx'],
};

/** The source file a relative import in `from` refers to, or undefined when there is none. */
export function resolveRelative(from: string, spec: string): string | undefined {
  const target = resolve(dirname(from), spec);
  const isFile = (path: string) => existsSync(path) && statSync(path).isFile();
  const ext = /\.[cm]?jsx?$/.exec(target)?.[0];
  if (ext && SOURCE_FOR[ext]) {
    const stem = target.slice(0, -ext.length);
    for (const candidate of SOURCE_FOR[ext]) if (isFile(stem + candidate)) return stem + candidate;
    return undefined;
  }
  if (isFile(target)) return target;
  for (const candidate of ['.ts', '.tsx', '/index.ts', '/index.tsx']) {
    if (isFile(target + candidate)) return target + candidate;
  }
  return undefined;
}

export function findCycles(graph: ReadonlyMap<string, readonly ImportEdge[]>): ImportCycle[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;

  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const { to } of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = (graph.get(file) ?? []).some((e) => e.to === file);
    if (component.length > 1 || selfImport) components.push(component.sort());
  };

  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return components
    .map((files) => ({ files, ...circleThrough(graph, files) }))
    .sort((a, b) => a.files[0]!.localeCompare(b.files[0]!));
}

/** The shortest circle from the first file back to itself, staying inside the knot. */
function circleThrough(
  graph: ReadonlyMap<string, readonly ImportEdge[]>,
  files: string[],
): { path: string[]; line: number } {
  const start = files[0]!;
  const inside = new Set(files);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const { to } of graph.get(file) ?? []) {
      if (!inside.has(to)) continue;
      if (to === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        path.push(start);
        const line = graph.get(start)!.find((e) => e.to === path[1])!.line;
        return { path, line };
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, file);
        queue.push(to);
      }
    }
  }
  // Unreachable for a strongly connected component, which always has a circle through each file.
  return { path: [start, start], line: 1 };
}
