// The relay's memory per idle connection: one node alone in its own process (relay-node.ts), and
// idle authenticated hosts and devices connected to it from CLIENT_PROCESSES other processes (so
// no process needs more descriptors than the usual 20,000 and the clients' memory is not counted).
// RSS is read from the node after a full collection: before any client, with every connection
// open, and once every connection has closed and the node has had SETTLE_MS to give memory back.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import type { NodeMemory } from './relay-node.js';

const DEVICES_PER_HOST = 60;
const CLIENT_PROCESSES = 4;
/** Milliseconds the node is left idle after the last connection closed, before its RSS is read. */
const SETTLE_MS = 5_000;

export interface IdleMemory {
  connections: number;
  /** Bytes of RSS per open connection. */
  rssPerConnection: number;
  heapPerConnection: number;
  /** The node's memory with no client, at `connections`, and after they all closed. */
  before: NodeMemory;
  open: NodeMemory;
  after: NodeMemory;
  /** The same, for a second round of as many connections on the same node. */
  again: NodeMemory;
  afterAgain: NodeMemory;
}

/** Runs a bench file of this folder in a process of its own (with `env` added to this one's). */
export function spawnTs(file: string, args: string[], ipc: boolean, env: NodeJS.ProcessEnv = {}): ChildProcess {
  const flags = ipc ? ['--expose-gc'] : [];
  // Run from the bench's folder, so tsx compiles under relay/tsconfig.json: from the repository's
  // root (no compile target of its own) the same code connected ten times slower.
  return spawn(process.execPath, [...flags, '--import', 'tsx', new URL(file, import.meta.url).pathname, ...args], {
    cwd: new URL('.', import.meta.url).pathname,
    env: { ...process.env, ...env },
    stdio: ipc ? ['ignore', 'pipe', 'inherit', 'ipc'] : ['ignore', 'pipe', 'inherit'],
  });
}

export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`${String(child.spawnargs[2])} exited with ${code}`)));
  });
}

export function ask<T>(node: ChildProcess, question: string): Promise<T> {
  return new Promise((resolve) => {
    node.once('message', (m) => resolve(m as T));
    node.send(question);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Connects about `connections` idle sockets (devices and one host per 60 of them) to a fresh node. */
export async function idleMemory(connections: number): Promise<IdleMemory> {
  const node = spawnTs('./relay-node.ts', [], true);
  try {
    const { url } = JSON.parse(await firstLine(node)) as { url: string };
    await sleep(500);
    const before = await ask<NodeMemory>(node, 'memory');
    const hostsPerProcess = Math.ceil(connections / (DEVICES_PER_HOST + 1) / CLIENT_PROCESSES);
    /** Opens every connection, reads the node's memory, closes them all and reads it again. */
    const round = async () => {
      const clients = Array.from({ length: CLIENT_PROCESSES }, () =>
        spawnTs('./idle-clients.ts', [url, String(hostsPerProcess), String(DEVICES_PER_HOST)], false),
      );
      for (const line of await Promise.all(clients.map(firstLine))) {
        if (!line.startsWith('ready')) throw new Error(line);
      }
      const open = await ask<NodeMemory>(node, 'memory');
      for (const c of clients) c.kill();
      await Promise.all(clients.map((c) => new Promise((r) => c.once('exit', r))));
      while ((await ask<{ open: number }>(node, 'open')).open > 0) await sleep(100);
      await sleep(SETTLE_MS);
      return { open, after: await ask<NodeMemory>(node, 'memory') };
    };
    const { open, after } = await round();
    // The same again: memory the node kept after the first round is taken again, not added to.
    const again = await round();
    return {
      connections: open.open,
      rssPerConnection: (open.rss - before.rss) / open.open,
      heapPerConnection: (open.heapUsed - before.heapUsed) / open.open,
      before,
      open,
      after,
      again: again.open,
      afterAgain: again.after,
    };
  } finally {
    node.kill('SIGKILL');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const m = await idleMemory(Number(process.argv[2] ?? 10_000));
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  console.log(
    `${m.connections} idle connections: rss ${kib(m.rssPerConnection)} (${(m.rssPerConnection / 1000).toFixed(1)} KB), heap ${kib(m.heapPerConnection)} a connection`,
  );
  for (const [name, at] of [
    ['before', m.before],
    ['open', m.open],
    ['after close', m.after],
    ['open again', m.again],
    ['closed again', m.afterAgain],
  ] as const) {
    console.log(`  ${name.padEnd(12)} rss ${mib(at.rss)}, V8 heap ${mib(at.heapUsed)} used of ${mib(at.heapTotal)}`);
  }
}
