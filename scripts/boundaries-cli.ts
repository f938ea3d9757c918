// `npm run boundaries`: checks the boundary rules on this repository and that docs/architecture.md
// shows them; `-- --write-docs` first rewrites that part of the page from the rules.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkBoundaries, formatViolation, hostLayerGaps } from './boundaries.js';
import { RULES_DOC, withRulesSection, writeRulesSection } from './boundaries-doc.js';

const root = new URL('..', import.meta.url).pathname;
if (process.argv.includes('--write-docs') && writeRulesSection(root)) console.log(`boundaries: wrote ${RULES_DOC}`);
const page = readFileSync(join(root, RULES_DOC), 'utf8');
const problems = [
  ...checkBoundaries(root).map(formatViolation),
  ...hostLayerGaps(root),
  ...(withRulesSection(page) === page
    ? []
    : [`${RULES_DOC} does not show the rules: npm run boundaries -- --write-docs`]),
];
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
console.log('boundaries: every rule holds');
