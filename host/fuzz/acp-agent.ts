// npm run fuzz -- acp-agent [--seconds N | --inputs N] [--seed N]
// A bounded run of a hostile ACP agent against Tether's client side, in-process (acp-target.ts
// says what it sends and what it checks). Fails on a throw, an unhandled rejection, a request
// left unanswered, a command run or a file written without the approval gate allowing it, an
// answer or event that holds what lies outside the session folder or in a private file, anything
// outside the folder changed, or an event the protocol's schema refuses.
import { REMOTE_MUTATIONS } from '@tether/shared-protocol/testing';
import { AcpTarget } from './acp-target.js';
import { FuzzKit, describe } from './fuzz-kit.js';

const kit = FuzzKit.fromArgs('acp-agent', 20, REMOTE_MUTATIONS);
// The ACP library reports each message it refuses on stderr (a notification with bad params, an
// answer to no request): counted here instead, a million lines would bury the summary.
const logged = new Map<string, number>();
console.error = (...args: unknown[]) => {
  const what = String(args[0]).slice(0, 40);
  logged.set(what, (logged.get(what) ?? 0) + 1);
};
const target = new AcpTarget(kit);

while (kit.budget.more() && kit.failures === 0) {
  try {
    kit.budget.tried += await target.step();
  } catch (error) {
    kit.budget.tried++;
    kit.fail(`the fuzzer or its target threw: ${describe(error)}`);
  }
  kit.budget.progress('acp-agent');
}

await target.close();
kit.report([target.summary, `library messages: ${[...logged].map(([k, n]) => `${k}=${n}`).join(', ') || 'none'}`]);
process.exit(kit.failures > 0 ? 1 : 0);
