// `npm test`: every check and every suite, then one closing line that adds them all up:
//   N passed, N failed, N skipped
// Lint, typecheck and build count as one check each. Exits non-zero when anything failed.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bin, root, run } from './run.mjs';

const out = join(root, '.test-output');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];

function record(name, counts) {
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  lines.push(`${name.padEnd(11)} ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
}

function check(name, command, args, options) {
  console.log(`\n── ${name} ──`);
  const ok = run(command, args, options) === 0;
  record(name, { passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0 });
  return ok;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const built = check('build', 'node', ['scripts/build.mjs']);
check('lint', 'npm', ['run', '--silent', 'lint']);
check('typecheck', 'node', ['scripts/typecheck.mjs']);

console.log('\n── unit and integration (vitest) ──');
const vitestJson = join(out, 'vitest.json');
const vitestStatus = run(bin('vitest'), [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestJson}`,
]);
const vitest = readJson(vitestJson);
if (vitest) {
  const counts = {
    passed: vitest.numPassedTests,
    failed: vitest.numFailedTests,
    skipped: vitest.numPendingTests + vitest.numTodoTests,
  };
  // A suite that failed to load has no tests in it but still fails the run.
  if (vitestStatus !== 0 && counts.failed === 0) counts.failed = Math.max(1, vitest.numFailedTestSuites);
  record('vitest', counts);
} else {
  record('vitest', { passed: 0, failed: 1, skipped: 0 });
}

console.log('\n── browser and end-to-end (playwright) ──');
const playwrightJson = join(out, 'playwright.json');
// The Chromium tests, then the WebKit ones on their own: beside another browser on a 2-core machine,
// a WebKit phone coming back online has not reconnected within the tests' time. Two runs, so that a
// failure in one engine never skips the other's tests.
const playwright = { passed: 0, failed: 0, skipped: 0 };
for (const project of ['chromium', 'webkit']) {
  rmSync(playwrightJson, { force: true });
  const status = built ? run(bin('playwright'), ['test', '--project', project], { cwd: join(root, 'e2e') }) : 1;
  const stats = existsSync(playwrightJson) ? readJson(playwrightJson)?.stats : undefined;
  const counts = stats
    ? { passed: stats.expected + stats.flaky, failed: stats.unexpected, skipped: stats.skipped }
    : { passed: 0, failed: 1, skipped: 0 };
  if (status !== 0 && counts.failed === 0) counts.failed = 1;
  for (const key of Object.keys(playwright)) playwright[key] += counts[key];
}
record('playwright', playwright);

console.log(`\n${lines.join('\n')}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
