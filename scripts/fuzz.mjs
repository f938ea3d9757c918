// npm run fuzz -- <target|all> [--seconds N | --inputs N] [--seed N]
// A bounded fuzz run; fails on any crash or accepted forgery. `all` runs every target in turn with
// the same budget (so `all --inputs N` tries N inputs on each) and ends with one line per target.
// `--seed N` repeats the choices of a run of an in-process target (relay, machine-link, acp-agent).
// The targets import the built packages: run `npm run build` first.
import { spawn } from 'node:child_process';
import { bin, root } from './run.mjs';

/** Every fuzz target: a script that reads --seconds/--inputs and prints `fuzz <name>: N inputs in S s, F failures`. */
const TARGETS = {
  protocol: 'shared-protocol/fuzz/protocol.ts',
  remote: 'host/fuzz/remote.ts',
  relay: 'relay/fuzz/relay.ts',
  'machine-link': 'host/fuzz/machine-link.ts',
  'acp-agent': 'host/fuzz/acp-agent.ts',
};

const [target = 'protocol', ...rest] = process.argv.slice(2);
if (target !== 'all' && !(target in TARGETS)) {
  console.error(`unknown fuzz target: ${target}. Known: ${Object.keys(TARGETS).join(', ')}, all`);
  process.exit(2);
}

/** Runs one target with its output shown as it comes; resolves with its status and closing lines. */
function runTarget(name) {
  return new Promise((resolve) => {
    const child = spawn(bin('tsx'), [TARGETS[name], ...rest], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      out += chunk.toString();
    });
    child.on('error', (error) => resolve({ name, status: 1, summary: error.message }));
    child.on('close', (status) => {
      const closing = out
        .split('\n')
        .filter((line) => line.startsWith(`fuzz ${name}: `) && !/ of \d+ inputs/.test(line));
      resolve({ name, status: status ?? 1, summary: closing.at(-1) ?? `fuzz ${name}: no summary (exit ${status})` });
    });
  });
}

const names = target === 'all' ? Object.keys(TARGETS) : [target];
const results = [];
for (const name of names) results.push(await runTarget(name));
if (names.length > 1) {
  console.log('\nfuzz all:');
  for (const r of results) console.log(`  ${r.status === 0 ? 'ok  ' : 'FAIL'} ${r.summary}`);
}
process.exit(results.every((r) => r.status === 0) ? 0 : 1);
