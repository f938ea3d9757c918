// npm run fuzz -- <target> [--seconds N]: a bounded fuzz run; fails on any crash or accepted forgery.
import { bin, run } from './run.mjs';

const TARGETS = {
  protocol: 'shared-protocol/fuzz/protocol.ts',
  remote: 'host/fuzz/remote.ts',
};

const [target = 'protocol', ...rest] = process.argv.slice(2);
if (!(target in TARGETS)) {
  console.error(`unknown fuzz target: ${target}. Known: ${Object.keys(TARGETS).join(', ')}`);
  process.exit(2);
}
process.exit(run(bin('tsx'), [TARGETS[target], ...rest]));
