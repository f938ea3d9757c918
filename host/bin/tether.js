#!/usr/bin/env node
// The `tether` command. Runs the built CLI; `npm ci` (or `npm run build`) builds it.
import { existsSync } from 'node:fs';

if (process.argv[2] === 'relay') {
  // `tether relay …` is the relay server (`tether-relay`), a program of its own: handed over here,
  // in this process, so signals and the exit status are the relay's own. The host's code never
  // imports the relay (scripts/boundaries.ts allows this one file, and says why).
  let relay;
  try {
    relay = await import('@tether/relay');
  } catch {
    console.error('tether relay: the relay is not built yet. Run `npm run build` in the Tether repository.');
    process.exit(1);
  }
  process.exitCode = await relay.main(process.argv.slice(3));
} else {
  const entry = new URL('../dist/cli/main.js', import.meta.url);
  if (!existsSync(entry)) {
    console.error('tether: the host is not built yet. Run `npm run build` in the Tether repository.');
    process.exit(1);
  }
  await import(entry.href);
}
