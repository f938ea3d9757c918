// npm run bench -- <name…> [--json [file]]: runs benchmarks (`all`, or none named: every one) and
// prints their figures. Each bench also prints its ratios as `bench-row {json}` lines
// (shared-protocol/src/testing/bench-row.ts); those are taken out of what is shown and, with
// `--json`, written together to one file (default bench-results.json): { rows: [...], failed }.
// scripts/bench-compare.mjs compares such a file with the committed baseline (bench/baseline.json).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { bin, root } from './run.mjs';

export const BENCHES = {
  // Frames and tweetnacl handshakes, then handshakes with the X25519 the host chooses at start.
  protocol: ['shared-protocol/bench/protocol.ts', 'host/bench/handshake.ts'],
  'app-size': 'pwa/bench/bundle-size.ts',
  'app-render': 'e2e/bench/first-render.ts',
  'long-run': 'e2e/bench/long-run.ts',
  host: 'host/bench/host.ts',
  remote: 'host/bench/remote.ts',
  // Keystroke echo and flood throughput, then Ctrl-C in a flood.
  terminal: ['host/bench/terminal.ts', 'host/bench/terminal-interrupt.ts'],
  // The screen model (@xterm/headless) against Ghostty's VT parser in WebAssembly, same streams.
  'terminal-parsers': 'host/bench/terminal-parsers.ts',
  // The relay alone, then the whole path through it: a real host and device, against direct; then
  // how long a device is cut off when a node is killed or restarted.
  relay: ['relay/bench/relay.ts', 'e2e/bench/relay-path.ts', 'e2e/bench/relay-failover.ts'],
  // The sealed call alone: direct, through one node, and through two (Redis, then the mesh).
  'relay-path': 'e2e/bench/relay-path.ts',
  search: 'machine/bench/search.ts',
  push: 'host/bench/push.ts',
  machine: 'host/bench/machine.ts',
  // Tether's own loop, 1,000 steps against a stand-in model with an 8k window: compaction.
  context: 'host/bench/context.ts',
  // A 5 MB photo through the sealed path against a bare WebSocket; an outbox of 100 drained.
  attach: 'host/bench/attach.ts',
  // Each real ACP adapter (Claude Code, Codex) through a real host, against the stand-in model direct.
  agents: 'e2e/bench/agents.ts',
  // The owner's event → device latency with 200 viewers on one share link, against none.
  share: 'host/bench/share.ts',
  // A tapped approval (a cold page, the service worker installed) to Allow once on screen: WebKitGTK
  // beside Chromium, p50 against the 1 s target.
  'tap-to-approve': 'e2e/bench/tap-to-approve.ts',
  // Scale: 50 sessions streaming at once to 10 devices (event → device p99, host CPU per 1,000
  // events) against one session to one device.
  'many-runs': 'host/bench/many-runs.ts',
  // Scale: one relay node with production limits holding 50,000 idle phones (as many as its
  // descriptors allow) and 1,000 active hosts: RSS per connection, frames/s, a sealed call's p99.
  'many-phones': 'relay/bench/many-phones.ts',
  // Scale: a 20,000-event session opened cold on an iPad slowed 4×, against a 1,000-event one.
  'long-session': 'e2e/bench/long-session.ts',
};

const ROW_PREFIX = 'bench-row ';

/** Runs one bench file, echoing its output as it comes; resolves to its exit status and rows. */
function runBench(file) {
  return new Promise((resolve) => {
    const child = spawn(bin('tsx'), [file], { cwd: root, stdio: ['inherit', 'pipe', 'inherit'] });
    const rows = [];
    let pending = '';
    const take = (line) => {
      if (!line.startsWith(ROW_PREFIX)) return void process.stdout.write(`${line}\n`);
      try {
        rows.push({ ...JSON.parse(line.slice(ROW_PREFIX.length)), file });
      } catch {
        process.stdout.write(`${line}\n`);
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(take);
    });
    child.on('error', (error) => {
      console.error(`${file}: ${error.message}`);
      resolve({ status: 1, rows });
    });
    child.on('close', (status) => {
      if (pending) take(pending);
      resolve({ status: status ?? 1, rows });
    });
  });
}

/** Parses `<name…> [--json [file]]`; `all` (or no name) is every bench. */
export function parseArgs(args) {
  const names = [];
  let json;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--json') {
      const next = args[i + 1];
      json = next !== undefined && !next.startsWith('-') && !(next in BENCHES) && next !== 'all' ? next : undefined;
      if (json !== undefined) i++;
      json ??= 'bench-results.json';
    } else if (arg === 'all') names.push(...Object.keys(BENCHES));
    else names.push(arg);
  }
  return { names: names.length > 0 ? [...new Set(names)] : Object.keys(BENCHES), json };
}

/** Runs the named benches in order (a file two of them name, once); returns every row and the
 * names that failed. */
export async function runBenches(names) {
  const rows = [];
  const failed = [];
  const ran = new Set();
  for (const name of names) {
    console.log(`\n# bench ${name}`);
    for (const file of [BENCHES[name]].flat()) {
      if (ran.has(file)) continue;
      ran.add(file);
      const result = await runBench(file);
      rows.push(...result.rows.map((row) => ({ bench: name, ...row })));
      if (result.status !== 0) failed.push(name);
    }
  }
  return { rows, failed: [...new Set(failed)] };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { names, json } = parseArgs(process.argv.slice(2));
  const unknown = names.filter((n) => !(n in BENCHES));
  if (unknown.length > 0) {
    console.error(`unknown bench: ${unknown.join(', ')}. Known: all, ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  const { rows, failed } = await runBenches(names);
  if (rows.length > 0) {
    console.log('\n# ratios');
    for (const row of rows) {
      const target = row.target !== undefined ? ` (target ${row.better === 'higher' ? '≥' : '≤'} ${row.target})` : '';
      console.log(`  ${row.id.padEnd(28)} ${row.ratio.toFixed(3)}${target}  ${row.label}`);
    }
  }
  if (json !== undefined) {
    const out = resolve(process.cwd(), json);
    writeFileSync(out, `${JSON.stringify({ at: new Date().toISOString(), benches: names, failed, rows }, null, 2)}\n`);
    console.log(`\nwrote ${rows.length} rows to ${json}`);
  }
  process.exit(failed.length > 0 ? 1 : 0);
}
