// Child process of the relay bench: one relay node alone in its process, so its memory is its own.
// Usage: relay-node.ts [redis-url]; with RELAY_BENCH_LIMITS=default in its environment the node keeps
// every production limit (DEFAULT_LIMITS), else it runs under BENCH_LIMITS. Prints {"url":…} once listening; answers each IPC message
// "memory" with its memory after a full collection, and "open" with its open sockets.
import { RelayServer } from '../src/relay-server.js';
import { BENCH_LIMITS } from './bench-limits.js';

// Started with --expose-gc (a flag set at run time through node:v8 left this process collecting
// young garbage without pause under load).
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const redisUrl = process.argv[2];
const started = await RelayServer.start({
  bind: '127.0.0.1',
  port: 0,
  limits: process.env['RELAY_BENCH_LIMITS'] === 'default' ? {} : BENCH_LIMITS,
  ...(redisUrl ? { redisUrl } : {}),
});
if (!started.ok) throw new Error(started.error.message);
const relay = started.value;

export interface NodeMemory {
  rss: number;
  heapUsed: number;
  /** What V8 holds for its heap, used or not. */
  heapTotal: number;
  open: number;
}

process.on('message', (m) => {
  if (m === 'memory') {
    gc();
    gc();
    const { rss, heapUsed, heapTotal } = process.memoryUsage();
    process.send!({ rss, heapUsed, heapTotal, open: relay.switchboard.census.open } satisfies NodeMemory);
  } else if (m === 'open') process.send!({ open: relay.switchboard.census.open });
});
process.on('SIGTERM', () => void relay.close().then(() => process.exit(0)));
process.stdout.write(`${JSON.stringify({ url: relay.url })}\n`);
