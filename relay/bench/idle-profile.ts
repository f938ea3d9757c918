// npx tsx relay/bench/idle-profile.ts [devices]
// Where an idle connection's memory goes: a relay node in this process, idle hosts and devices in
// a child process, and a heap snapshot before and after they connect. Prints, per connection, the
// objects that grew most (by constructor, self size), then the heap and RSS per connection.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { RelayServer } from '../src/relay-server.js';
import { BENCH_LIMITS } from './bench-limits.js';

const DEVICES = Number(process.argv[2] ?? 2000);
const PER_HOST = 60;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Self size and count by "type:name" over a heap snapshot. */
function census(): Map<string, { size: number; count: number }> {
  gc();
  const file = writeHeapSnapshot(join(tmpdir(), `relay-idle-${process.pid}-${Date.now()}.heapsnapshot`));
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  rmSync(file);
  const fields = s.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = s.snapshot.meta.node_types[0];
  const edgeWidth = s.snapshot.meta.edge_fields.length;
  const toAt = s.snapshot.meta.edge_fields.indexOf('to_node');
  const edgeCountAt = fields.indexOf('edge_count');
  const owners = new Map<number, string>();
  for (let i = 0, e = 0; i < s.nodes.length; i += width) {
    const holder = `${types[s.nodes[i + typeAt]!]!}:${s.strings[s.nodes[i + nameAt]!]!.slice(0, 40)}`;
    for (let k = 0; k < s.nodes[i + edgeCountAt]!; k++, e += edgeWidth) {
      const to = s.edges[e + toAt]! / width;
      if (s.strings[s.nodes[to * width + nameAt]!] === '(object properties)' && !owners.has(to)) owners.set(to, holder);
    }
  }
  const out = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt]!]!;
    let name = s.strings[s.nodes[i + nameAt]!]!;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = '(string)';
    if (type === 'code') name = '(code)';
    let key = `${type}:${name.slice(0, 60)}`;
    // A dictionary-mode object's property store is named by the object that holds it.
    const owner = owners.get(i / width);
    if (owner !== undefined) key += ` of ${owner}`;
    const entry = out.get(key) ?? { size: 0, count: 0 };
    entry.size += s.nodes[i + sizeAt]!;
    entry.count++;
    out.set(key, entry);
  }
  return out;
}

const r = await RelayServer.start({ bind: '127.0.0.1', port: 0, limits: BENCH_LIMITS });
if (!r.ok) throw new Error(r.error.message);
const relay = r.value;
const before = census();
gc();
const memBefore = process.memoryUsage();
const hosts = Math.ceil(DEVICES / PER_HOST);
const child = spawn(
  process.execPath,
  [
    ...process.execArgv,
    new URL('./idle-clients.ts', import.meta.url).pathname,
    relay.url,
    String(hosts),
    String(PER_HOST),
  ],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
await new Promise<void>((resolve, reject) => {
  child.stdout.on('data', (c: Buffer) => c.toString().includes('ready') && resolve());
  child.once('exit', (code) => reject(new Error(`idle clients exited with ${code}`)));
});
const connections = relay.switchboard.census.open;
const after = census();
gc();
const memAfter = process.memoryUsage();
const rows = [...after]
  .map(([key, a]) => {
    const b = before.get(key) ?? { size: 0, count: 0 };
    return { key, size: (a.size - b.size) / connections, count: (a.count - b.count) / connections };
  })
  .filter((row) => row.size > 8)
  .sort((x, y) => y.size - x.size);
console.log(`${connections} connections; heap growth per connection by constructor (bytes, objects):`);
let total = 0;
for (const row of rows) total += row.size;
for (const row of rows.slice(0, 40)) {
  console.log(`  ${row.size.toFixed(0).padStart(6)} B  ${row.count.toFixed(2).padStart(6)}  ${row.key}`);
}
console.log(`  total self size ${(total / 1024).toFixed(1)} KiB a connection`);
console.log(
  `heapUsed ${((memAfter.heapUsed - memBefore.heapUsed) / connections / 1024).toFixed(1)} KiB, ` +
    `heapTotal ${((memAfter.heapTotal - memBefore.heapTotal) / connections / 1024).toFixed(1)} KiB, ` +
    `external ${((memAfter.external - memBefore.external) / connections / 1024).toFixed(1)} KiB, ` +
    `arrayBuffers ${((memAfter.arrayBuffers - memBefore.arrayBuffers) / connections / 1024).toFixed(1)} KiB, ` +
    `rss ${((memAfter.rss - memBefore.rss) / connections / 1024).toFixed(1)} KiB a connection`,
);
child.kill();
await relay.close();
