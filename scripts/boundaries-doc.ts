// The part of docs/architecture.md that shows the boundary rules, written from the rules themselves
// (boundaries.ts, host-layers.ts) between two marker lines, so that the page cannot say one thing
// while the check enforces another.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAUNCHER_EXCEPTIONS, MAY_DEPEND_ON, PACKAGES } from './boundaries.js';
import { HOST_LAYERS } from './host-layers.js';

export const RULES_DOC = 'docs/architecture.md';
const BEGIN =
  '<!-- boundary rules: written from scripts/boundaries.ts and scripts/host-layers.ts by `npm run boundaries -- --write-docs`; edit those, not this -->';
const END = '<!-- end of boundary rules -->';

const code = (name: string) => `\`${name}\``;
const folder = (name: string) => code(/\.tsx?$/.test(name) ? name : `${name}/`);

/** The rules as the page shows them, markers included. */
export function rulesSection(): string {
  const packages = PACKAGES.map((pkg) => {
    const allowed = [...MAY_DEPEND_ON[pkg]].map(code).join(', ') || 'none';
    const launchers = LAUNCHER_EXCEPTIONS.filter((e) => e.file.startsWith(`${pkg}/`)).map(
      (e) => ` (and ${code(e.file)}, the launcher, hands a command to ${code(e.target)})`,
    );
    return `- ${code(pkg)}: ${allowed}${launchers.join('')}`;
  });
  const layers = HOST_LAYERS.map(
    (layer, i) => `${i + 1}. **${layer.name}** (${layer.folders.map(folder).join(', ')}): ${layer.why}.`,
  );
  return [
    BEGIN,
    '',
    'Dependencies point one way: the workspace packages each of ours may import, nothing else, and nothing imports the host:',
    '',
    ...packages,
    '',
    'Inside the host the folders are layers, from the top down. A folder never imports one of a higher layer; folders of one layer may use each other:',
    '',
    ...layers,
    '',
    "In every package no files import each other in a circle, and no two folders of its `src/` (a top-level file counts as one) import each other, through whichever files. Tests and test kits are left out of the folders' rules.",
    '',
    END,
  ].join('\n');
}

/** The page with its rules section as the rules would write it; throws when the markers are missing. */
export function withRulesSection(page: string): string {
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${RULES_DOC} has no boundary rules section (its marker lines)`);
  return page.slice(0, start) + rulesSection() + page.slice(end + END.length);
}

/** Rewrites the section in place; true when the page changed. */
export function writeRulesSection(root: string): boolean {
  const path = join(root, RULES_DOC);
  const page = readFileSync(path, 'utf8');
  const next = withRulesSection(page);
  if (next !== page) writeFileSync(path, next);
  return next !== page;
}
