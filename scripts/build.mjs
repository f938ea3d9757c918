// Builds what `tether start` needs: the TypeScript packages (tsc project references, in
// dependency order) and the app bundle the host serves.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bin, root, runOrExit } from './run.mjs';

runOrExit(bin('tsc'), ['-b', 'tsconfig.build.json']);
if (existsSync(join(root, 'pwa', 'vite.config.ts'))) {
  runOrExit(bin('vite'), ['build', '--logLevel', 'warn'], { cwd: join(root, 'pwa') });
}
