import type { FakeModel } from './fake-openai.js';
import { startChatServer } from './fake-openai.js';

/**
 * A loopback OpenAI-compatible model that makes a long run: `steps` turns, each a line of text and
 * a tool call (`write_file` for the first `writes` steps, then `read_file`), then a last reply.
 * The step is counted from the tool results in the request, so a resumed run goes on where it was.
 * A stamped step tells a page on the same computer how far behind the run it shows it.
 */
export interface LongRunModel extends FakeModel {
  /** Changes the pace from the next turn on. */
  setStepMs(ms: number): void;
}

export interface LongRunOptions {
  /** Steps that write a file (`write_file`) before the rest read one. */
  writes?: number;
  /** Ends each step's line with `@<ms since the epoch>`, the time it was written. */
  stamp?: boolean;
  /** Milliseconds each turn waits before it answers: the pace of the run (0: as fast as it goes). */
  stepMs?: number;
}

export async function startLongRunModel(steps: number, options: LongRunOptions = {}): Promise<LongRunModel> {
  const { writes = 0, stamp = false } = options;
  let stepMs = options.stepMs ?? 0;
  const server = await startChatServer(async (messages, write) => {
    if (stepMs > 0) await new Promise((resolve) => setTimeout(resolve, stepMs));
    const step = messages.filter((m) => m.role === 'tool').length;
    if (step >= steps) {
      write({ role: 'assistant', content: `All ${steps} steps done. THE END.` }, null);
      write({}, 'stop');
      return;
    }
    const call =
      step < writes
        ? { name: 'write_file', arguments: JSON.stringify({ path: `out/step-${step}.txt`, content: `step ${step}\n` }) }
        : { name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) };
    write({ role: 'assistant', content: `Step ${step + 1} of ${steps}.${stamp ? ` @${Date.now()}` : ''}` }, null);
    write({ tool_calls: [{ index: 0, id: `call_${step}`, type: 'function', function: call }] }, null);
    write({}, 'tool_calls');
  });
  return { ...server, setStepMs: (ms) => void (stepMs = ms) };
}
