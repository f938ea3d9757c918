#!/usr/bin/env node
// The `tether` command. Runs the built CLI; `npm ci` (or `npm run build`) builds it.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('tether: the host is not built yet. Run `npm run build` in the Tether repository.');
  process.exit(1);
}
await import(entry.href);
