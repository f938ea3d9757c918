import type { FakeModel } from './fake-openai.js';
import { startChatServer } from './fake-openai.js';

/**
 * A loopback OpenAI-compatible model that makes a long run: `steps` turns, each a line of text and
 * a tool call (`write_file` for the first `writes` steps, then `read_file`), then a last reply.
 * The step is counted from the tool results in the request, so a resumed run goes on where it was.
 */
export type LongRunModel = FakeModel;

export function startLongRunModel(steps: number, writes = 0): Promise<LongRunModel> {
  return startChatServer((messages, write) => {
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
    write({ role: 'assistant', content: `Step ${step + 1} of ${steps}.` }, null);
    write({ tool_calls: [{ index: 0, id: `call_${step}`, type: 'function', function: call }] }, null);
    write({}, 'tool_calls');
  });
}
