// Checks the dependency direction between the workspace packages (every package → shared-protocol,
// host → machine, nothing else), the host's layers (host-layers.ts), that no package's files nor
// the folders of its src/ import each other in a circle, and that shared-protocol stays
// runtime-neutral (no Node, DOM or Buffer), so that the PWA can bundle it. Each violation carries
// the rule it breaks and why the rule exists. docs/architecture.md shows these rules
// (boundaries-doc.ts writes that part of it).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { folderLoops, srcFolder } from './folder-loops.js';
import { HOST_LAYERS, hasHostLayer, hostLayerRefusal } from './host-layers.js';
import type { ImportEdge } from './import-cycles.js';
import { findCycles, resolveRelative } from './import-cycles.js';

export const PACKAGES = ['shared-protocol', 'host', 'machine', 'relay', 'pwa', 'e2e'] as const;
type Package = (typeof PACKAGES)[number];
/** The only workspace packages each package may depend on. Everything else is refused. */
export const MAY_DEPEND_ON: Record<Package, ReadonlySet<string>> = {
  'shared-protocol': new Set(),
  machine: new Set(['shared-protocol']),
  host: new Set(['shared-protocol', 'machine']),
  relay: new Set(['shared-protocol']),
  pwa: new Set(['shared-protocol']),
  e2e: new Set(['shared-protocol']),
};
/**
 * The only places one app may reach another, each with its reason. The `tether` launcher hands
 * `tether relay …` to the relay's `main`, so that one command runs both programs in one process
 * (signals and the exit status are the relay's own, no path to another package's files is
 * guessed). It is a launcher, not the host: the host's code (`host/src`) still never imports the
 * relay, and the host package depends on it only for this file.
 */
export const LAUNCHER_EXCEPTIONS: readonly { file: string; target: string }[] = [
  { file: 'host/bin/tether.js', target: 'relay' },
];

function launcherMayImport(file: string, target: string): boolean {
  return LAUNCHER_EXCEPTIONS.some((e) => e.file === file && e.target === target);
}

function launcherNeeds(pkg: string, target: string): boolean {
  return LAUNCHER_EXCEPTIONS.some((e) => e.file.startsWith(`${pkg}/`) && e.target === target);
}

/** Subpaths shared-protocol exports besides its root (package.json#exports). */
const PUBLIC_SUBPATHS = new Set(['/testing', '/test-vectors.json', '/machine-link-vectors.json']);
const NEUTRAL_DEPENDENCIES = new Set(['tweetnacl', 'valibot']);
const NODE_BUILTINS = new Set([
  'assert',
  'buffer',
  'child_process',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'process',
  'readline',
  'stream',
  'tls',
  'url',
  'util',
  'worker_threads',
  'zlib',
]);
/** Globals that exist only in a browser or only in Node. */
const RUNTIME_GLOBALS = [
  'Buffer',
  'process',
  'window',
  'document',
  'navigator',
  'localStorage',
  'sessionStorage',
  'indexedDB',
  'require',
  '__dirname',
];

export interface Violation {
  file: string;
  line: number;
  rule: string;
  reason: string;
}

const REASONS = {
  appToApp:
    'packages depend on shared-protocol, and the host also on machine, nothing else; share code by moving it down, so no app grows into another',
  intoHost:
    'nothing imports the host: it is the top of the graph, so what another package needs from it belongs in machine or shared-protocol',
  machineAlone:
    'machine runs on computers that lend themselves to a host: it depends only on shared-protocol and Node, never on the host or an app',
  protocolAlone: 'shared-protocol is the bottom of the graph: it imports no other package of ours',
  deepImport: "a package's exports are its API: import '@tether/<name>', not its files",
  escape: "a relative import may not leave its package: it would reach another package's internals",
  neutralImport: 'shared-protocol must run in the browser and in Node: no Node built-ins',
  neutralGlobal: 'shared-protocol must run in the browser and in Node: no Node or DOM globals',
  neutralDependency: 'shared-protocol depends only on tweetnacl and valibot, which both runtimes load',
  hostLayer: "the host's folders are layers (scripts/host-layers.ts), and a lower one never imports a higher one",
  folderCycle:
    "a package's folders are its layers: two that import each other are one layer split in two, and neither can be read or changed alone; move what both need below them",
  cycle:
    'files that import each other (types too) can be neither read, tested nor loaded alone, and at load time one side sees the other half-initialised; move what both need into a file of its own',
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Blanks comments so that prose about `Buffer` or `window` does not count. Keeps line numbers. */
function stripComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`])\/\/.*$/gm, (m, pre: string) => pre + ' '.repeat(m.length - pre.length));
}

const IMPORT =
  /(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/g;

export function checkBoundaries(root: string): Violation[] {
  const violations: Violation[] = [];
  for (const pkg of PACKAGES) {
    const pkgDir = join(root, pkg);
    let files: string[];
    try {
      files = sourceFiles(pkgDir);
    } catch {
      continue;
    }
    const imports = new Map<string, ImportEdge[]>();
    for (const file of files) {
      const rel = relative(root, file);
      const edges: ImportEdge[] = [];
      imports.set(file, edges);
      const text = stripComments(readFileSync(file, 'utf8'));
      const lineOf = (index: number) => text.slice(0, index).split('\n').length;
      const add = (index: number, rule: keyof typeof REASONS, detail: string) =>
        violations.push({ file: rel, line: lineOf(index), rule: `${rule}: ${detail}`, reason: REASONS[rule] });
      const neutral = pkg === 'shared-protocol' && rel.startsWith('shared-protocol/src/');
      for (const match of text.matchAll(IMPORT)) {
        const spec = match[1] ?? match[2] ?? match[3] ?? match[4] ?? '';
        const at = match.index;
        const tether = /^@tether\/([^/]+)(\/.*)?$/.exec(spec);
        if (tether) {
          const [, target, sub] = tether;
          if (!mayDepend(pkg, target!) && !launcherMayImport(rel, target!))
            add(at, refusal(pkg, target!), `${pkg} imports ${spec}`);
          if (sub && !PUBLIC_SUBPATHS.has(sub)) add(at, 'deepImport', spec);
        } else if (spec.startsWith('.')) {
          const target = resolve(file, '..', spec);
          if (!target.startsWith(pkgDir + '/')) add(at, 'escape', spec);
          else {
            const never =
              pkg === 'host' ? hostLayerRefusal(hostFolder(root, file), hostFolder(root, target)) : undefined;
            if (never) add(at, 'hostLayer', `${rel} imports ${spec}: ${never}`);
            const to = resolveRelative(file, spec);
            if (to) edges.push({ to, line: lineOf(at) });
          }
        } else if (neutral) {
          const bare = spec.replace(/^node:/, '');
          if (spec.startsWith('node:') || NODE_BUILTINS.has(bare)) add(at, 'neutralImport', spec);
          else if (!NEUTRAL_DEPENDENCIES.has(spec.split('/')[0]!) && !rel.endsWith('.test.ts')) {
            add(at, 'neutralDependency', spec);
          }
        }
      }
      if (neutral) {
        for (const name of RUNTIME_GLOBALS) {
          for (const m of text.matchAll(new RegExp(`(?<![.\\w$'"/-])${name}\\b(?!\\s*:)`, 'g')))
            add(m.index, 'neutralGlobal', name);
        }
      }
    }
    violations.push(...cycleViolations(root, imports));
    for (const loop of folderLoops(root, pkg, imports)) {
      violations.push({
        file: loop.file,
        line: loop.line,
        rule: `folderCycle: ${loop.detail}`,
        reason: REASONS.folderCycle,
      });
    }
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })) {
      const target = /^@tether\/(.+)$/.exec(dep)?.[1];
      if (target && !mayDepend(pkg, target) && !launcherNeeds(pkg, target)) {
        const rule = refusal(pkg, target);
        violations.push({
          file: `${pkg}/package.json`,
          line: 1,
          rule: `${rule}: depends on ${dep}`,
          reason: REASONS[rule],
        });
      } else if (pkg === 'shared-protocol' && !NEUTRAL_DEPENDENCIES.has(dep)) {
        violations.push({
          file: `${pkg}/package.json`,
          line: 1,
          rule: `neutralDependency: ${dep}`,
          reason: REASONS.neutralDependency,
        });
      }
    }
  }
  return violations;
}

function cycleViolations(root: string, imports: ReadonlyMap<string, readonly ImportEdge[]>): Violation[] {
  const out: Violation[] = [];
  for (const cycle of findCycles(imports)) {
    const files = cycle.files.map((f) => relative(root, f));
    const path = cycle.path.map((f) => relative(root, f));
    const others = files.filter((f) => !path.includes(f));
    out.push({
      file: path[0]!,
      line: cycle.line,
      rule: `cycle: ${path.join(' → ')}${others.length > 0 ? ` (tied in the same knot: ${others.join(', ')})` : ''}`,
      reason: REASONS.cycle,
    });
  }
  return out;
}

/** The host's top-level folder (or file) a non-test file is in, for the layer rule. */
function hostFolder(root: string, file: string): string {
  return srcFolder(root, 'host', file) ?? '';
}

/** Top-level folders and files of host/src that stand in no layer, and layers' entries that name none. */
export function hostLayerGaps(root: string): string[] {
  const present = new Set(sourceFiles(join(root, 'host', 'src')).map((f) => hostFolder(root, f)));
  present.delete('');
  const unplaced = [...present].filter((f) => !hasHostLayer(f)).map((f) => `host/src/${f} stands in no layer`);
  const stale = HOST_LAYERS.flatMap((l) => l.folders)
    .filter((f) => !present.has(f))
    .map((f) => `${f} is in a layer but not in host/src`);
  return [...unplaced.sort(), ...stale];
}

function mayDepend(pkg: Package, target: string): boolean {
  return target === pkg || MAY_DEPEND_ON[pkg].has(target);
}

/** The rule a refused dependency breaks, most specific first. */
function refusal(pkg: Package, target: string): 'intoHost' | 'machineAlone' | 'protocolAlone' | 'appToApp' {
  if (target === 'host') return 'intoHost';
  if (pkg === 'machine') return 'machineAlone';
  if (pkg === 'shared-protocol') return 'protocolAlone';
  return 'appToApp';
}

export function formatViolation(v: Violation): string {
  return `${v.file}:${v.line}  ${v.rule}\n    because ${v.reason}`;
}
