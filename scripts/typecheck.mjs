// Type-checks every project: the build (project references, which also refuse cycles) and each
// package's full tsconfig.json, which includes its tests, benches and scripts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bin, root, run } from './run.mjs';

const projects = [
  'tsconfig.json',
  'shared-protocol/tsconfig.json',
  'shared-protocol/scripts/tsconfig.json',
  'shared-protocol/bench/tsconfig.json',
  'shared-protocol/fuzz/tsconfig.json',
  'host/bench/tsconfig.json',
  'host/fuzz/tsconfig.json',
  'host/tsconfig.json',
  'machine/tsconfig.json',
  'machine/bench/tsconfig.json',
  'relay/tsconfig.json',
  'pwa/tsconfig.json',
  'e2e/tsconfig.json',
].filter((p) => existsSync(join(root, p)));

let failed = run(bin('tsc'), ['-b', 'tsconfig.build.json']) !== 0;
for (const project of projects) {
  if (run(bin('tsc'), ['-p', project, '--noEmit']) !== 0) {
    console.error(`typecheck: ${project} has errors`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
