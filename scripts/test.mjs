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
// The whole suite runs the WebKit tests after the Chromium ones (e2e/playwright.config.ts).
const playwrightStatus = built
  ? run(bin('playwright'), ['test'], { cwd: join(root, 'e2e'), env: { ...process.env, TETHER_E2E_WEBKIT_LAST: '1' } })
  : 1;
const playwright = existsSync(playwrightJson) ? readJson(playwrightJson) : undefined;
if (playwright?.stats) {
  const { expected, unexpected, flaky, skipped } = playwright.stats;
  const counts = { passed: expected + flaky, failed: unexpected, skipped };
  if (playwrightStatus !== 0 && counts.failed === 0) counts.failed = 1;
  record('playwright', counts);
} else {
  record('playwright', { passed: 0, failed: 1, skipped: 0 });
}

console.log(`\n${lines.join('\n')}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
