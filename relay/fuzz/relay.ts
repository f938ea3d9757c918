// npm run fuzz -- relay [--seconds N | --inputs N]
// A bounded run against the relay in-process: a real Switchboard with two hosts linked through
// in-memory ports, devices connected to each, and the HTTP app driven with `app.request()`.
// Inputs are mutated and random host answers to the challenge, device connect requests (tickets
// of this host, of the other host, expired), frames from an authenticated host (data, close,
// reply, ping and the ones a host never sends), device bytes and hang-ups, and HTTP requests at
// every endpoint with mutated pair and call bodies. Fails on a throw, an unhandled rejection, a
// close `ws` would refuse to send, a refusal without a named reason or stable code, a forged host
// answer or ticket let through, bytes delivered to any device or host but the one they were for
// (or that nobody sent), a request forwarded to another host, and memory that is not accounted
// for: every queued byte must sit in an outbox within its bounds, and closing everything must
// bring every count back to zero.
import { CloseCode } from '@tether/shared-protocol';
import { DROP_REASONS, REFUSAL_REASONS } from '../src/metrics.js';
import { checkBounds } from './relay-bounds.js';
import { churn, deviceConnect, deviceSends, hostAuth, hostFrame, tick } from './relay-cases.js';
import { liveHost } from './relay-hosts.js';
import { http } from './relay-http.js';
import { budget, failed, failure, random, report, settle } from './relay-run.js';
import { app, board, metrics, ports } from './relay-world.js';

liveHost(0);
liveHost(1);
await settle();
for (let i = 0; budget.more() && failed() === 0; i++) {
  budget.tried++;
  const roll = random();
  try {
    // Connects and host answers are few: each costs an Ed25519 check of a few milliseconds.
    if (roll < 0.3) hostFrame();
    else if (roll < 0.52) await deviceSends();
    else if (roll < 0.54) await deviceConnect();
    else if (roll < 0.544) hostAuth();
    else if (roll < 0.574) churn();
    else await http();
  } catch (error) {
    failure(`threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  if (i % 64 === 0) await settle();
  if (i % 500 === 0) tick();
  checkBounds();
  budget.progress('relay');
}

// Everything closes: every count goes back to zero, and the app still answers.
await settle();
board.closeAll(true);
for (const port of ports) port.hangUp(CloseCode.Normal, 'end');
await settle();
for (const port of ports) if (port.isClosed) ports.delete(port);
if (board.census.open !== 0 || board.census.pending !== 0) failure('sockets still counted after closing all');
if (board.budget.used !== 0) failure(`${board.budget.used} bytes still counted after closing all`);
if (board.requests.size !== 0) failure('requests still counted after closing all');
const health = await app.request('/healthz');
if (health.status !== 200) failure(`/healthz answered ${health.status} at the end`);

const named = [
  ...REFUSAL_REASONS.map((r) => [r, metrics.refusals(r)] as const),
  ...DROP_REASONS.map((r) => [r, metrics.drops(r)] as const),
];
report([
  `refused and dropped by reason: ${named
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k}=${n}`)
    .join(', ')}`,
]);
process.exit(failed() > 0 ? 1 : 0);
