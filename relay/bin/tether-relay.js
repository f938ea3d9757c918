#!/usr/bin/env node
// The `tether-relay` command. Runs the built relay; `npm ci` (or `npm run build`) builds it.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('tether-relay: the relay is not built yet. Run `npm run build` in the Tether repository.');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
