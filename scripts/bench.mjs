// npm run bench -- <name>: runs one benchmark (or all with no name) and prints its figures.
import { bin, run } from './run.mjs';

const BENCHES = {
  // Frames and tweetnacl handshakes, then handshakes with the X25519 the host chooses at start.
  protocol: ['shared-protocol/bench/protocol.ts', 'host/bench/handshake.ts'],
  'app-size': 'pwa/bench/bundle-size.ts',
  'app-render': 'e2e/bench/first-render.ts',
  'long-run': 'e2e/bench/long-run.ts',
  host: 'host/bench/host.ts',
  remote: 'host/bench/remote.ts',
  terminal: 'host/bench/terminal.ts',
  // The relay alone, then the whole path through it: a real host and device, against direct.
  relay: ['relay/bench/relay.ts', 'e2e/bench/relay-path.ts'],
  search: 'machine/bench/search.ts',
  push: 'host/bench/push.ts',
  machine: 'host/bench/machine.ts',
  // Tether's own loop, 1,000 steps against a stand-in model with an 8k window: compaction.
  context: 'host/bench/context.ts',
  // Each real ACP adapter (Claude Code, Codex) through a real host, against the stand-in model direct.
  agents: 'e2e/bench/agents.ts',
};

const names = process.argv.slice(2);
const unknown = names.filter((n) => !(n in BENCHES));
if (unknown.length > 0) {
  console.error(`unknown bench: ${unknown.join(', ')}. Known: ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
let failed = false;
for (const name of names.length > 0 ? names : Object.keys(BENCHES)) {
  console.log(`\n# bench ${name}`);
  for (const file of [BENCHES[name]].flat()) if (run(bin('tsx'), [file]) !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
