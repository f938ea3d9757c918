// npm run bench -- context
// A 1,000-step run of Tether's own loop (real SQLite log, real read_file on real files) against a
// stand-in model with an 8k-token window that refuses anything longer, as the APIs do: requests
// never over the window, the model calls compaction added, and the largest request. Run twice:
// with a provider that reports usage, and with one that reports none and counts 2.5 characters
// a token (the estimate then runs short and the provider's refusal has to be caught).
import { contextRun } from '../test/support/context-run.js';

const WINDOW = 8192;
const STEPS = 1000;

async function bench(label: string, options: { reportShare?: number; charsPerToken?: number }) {
  const started = performance.now();
  const run = await contextRun({ window: WINDOW, steps: STEPS, ...options });
  const ms = performance.now() - started;
  const compactions = run.events.filter((e) => e.type === 'context.compacted');
  const overWindow = run.model.sizes.filter((tokens) => tokens > WINDOW).length;
  const agentCalls = run.model.sizes.length - run.model.summaries;
  console.log(`\n${label}`);
  console.log(`  run:                        ${run.result.status}${run.result.error ? ` (${run.result.error})` : ''}`);
  console.log(`  steps (tool calls):         ${run.events.filter((e) => e.type === 'tool.finished').length}`);
  console.log(
    `  model requests:             ${run.model.sizes.length} (${agentCalls} agent, ${run.model.summaries} summaries)`,
  );
  console.log(`  requests over the window:   ${overWindow}`);
  console.log(`  refused as too long:        ${run.model.refused} (each compacted once and retried)`);
  console.log(
    `  compactions:                ${compactions.length} (${compactions.filter((e) => e.summarized > 0).length} with a summary, ${compactions.filter((e) => e.reason === 'overflow').length} after a refusal)`,
  );
  console.log(`  model calls added:          ${run.model.summaries} summaries + ${run.model.refused} retries`);
  console.log(
    `  largest request:            ${run.model.largest} tokens of ${WINDOW} (its count, output room ${Math.min(8192, WINDOW / 4)} kept)`,
  );
  console.log(`  wall time:                  ${Math.round(ms)} ms`);
  run.close();
  return run.result.status === 'done' && overWindow === 0;
}

const ok = [
  await bench('usage reported (3.5 characters a token)', {}),
  await bench('no usage reported, 2.5 characters a token', { reportShare: 0, charsPerToken: 2.5 }),
].every(Boolean);
process.exit(ok ? 0 : 1);
