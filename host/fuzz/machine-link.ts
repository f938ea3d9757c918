// npm run fuzz -- machine-link [--seconds N | --inputs N] [--seed N]
// A bounded run at both ends of the machine link, in-process. Half the inputs are hostile calls
// from a "host" to a machine's executor over a real confined folder (executor-target.ts, with its
// world and calls beside it); half are hostile bytes from a "machine" to the host's link server,
// registry and machine contexts (link-server-target.ts, with machine-end.ts and host-calls.ts).
// Each file says what it sends and what it checks. Fails on a throw, an unhandled rejection, a
// close `ws` would refuse, a forged registration, a call that never ends, unbounded output, and
// any read or write outside the shared folder or of a private file.
import { REMOTE_MUTATIONS } from '@tether/shared-protocol/testing';
import { ExecutorTarget } from './executor-target.js';
import { FuzzKit, describe } from './fuzz-kit.js';
import { LinkServerTarget } from './link-server-target.js';

const kit = FuzzKit.fromArgs('machine-link', 20, REMOTE_MUTATIONS);
const executor = new ExecutorTarget(kit);
await executor.open();
const server = new LinkServerTarget(kit);

/** Executor calls made at once; the link server's inputs go one by one meanwhile, as many. */
const AT_ONCE = 8;

async function serverSteps(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await server.step();
}

while (kit.budget.more() && kit.failures === 0) {
  kit.budget.tried += 2 * AT_ONCE;
  try {
    await Promise.all([executor.batch(AT_ONCE), serverSteps(AT_ONCE)]);
  } catch (error) {
    kit.fail(`the fuzzer or its target threw: ${describe(error)}`);
  }
  kit.budget.progress('machine-link');
}

await server.close();
executor.close();
kit.report([`host counters: ${server.stats}`]);
process.exit(kit.failures > 0 ? 1 : 0);
