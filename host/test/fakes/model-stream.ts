import type { ModelEvent, ModelRequest } from '../../src/models/types.js';

/** A request with harmless defaults; tests override what they assert on. */
export function makeRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'test-model',
    system: 'You are a test.',
    messages: [{ role: 'user', text: 'hello' }],
    tools: [],
    maxTokens: 1024,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Every event of a stream that must succeed. */
export async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The events before a failure and the failure; throws if the stream succeeds. */
export async function collectFailure(
  stream: AsyncIterable<ModelEvent>,
): Promise<{ events: ModelEvent[]; error: unknown }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  throw new Error(`expected the stream to fail, but it ended with ${JSON.stringify(events.at(-1))}`);
}

/** The concatenated text of a turn. */
export function textOf(events: readonly ModelEvent[]): string {
  return events.map((event) => (event.type === 'text' ? event.text : '')).join('');
}
