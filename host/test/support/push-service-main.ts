import { createInterface } from 'node:readline';
import { startPushService } from './push-service.js';

/**
 * The stand-in push service as a process, for the browser tests (which drive programs, not
 * modules). Prints JSON lines: `{event:'ready', origin, caFile}` first, then `{event:'push', …}`
 * for every message accepted. Reads commands as JSON lines on stdin: `{op:'subscribe'}` answers
 * `{event:'subscription', endpoint, keys}`. Ends when stdin closes.
 */
const service = await startPushService();
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
let seen = 0;
const poll = setInterval(() => {
  for (; seen < service.received.length; seen++) print({ event: 'push', ...service.received[seen] });
}, 20);
print({ event: 'ready', origin: service.origin, caFile: service.caFile });
const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const command = JSON.parse(line) as { op?: string };
  if (command.op === 'subscribe') print({ event: 'subscription', ...service.subscribe() });
});
input.on('close', () => {
  clearInterval(poll);
  void service.close().then(() => process.exit(0));
});
