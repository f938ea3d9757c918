import { systemClock, type Clock } from '@tether/shared-protocol';
import { abortedFailure } from './provider-failure.js';
import type { ChatAttachment, ChatMessage, ModelEvent, ModelProvider, ModelRequest, ToolCall } from './types.js';

/** Pause between streamed chunks, in milliseconds: slow enough to watch text arrive. */
export const DEMO_DEFAULT_DELAY_MS = 40;

/** Words per streamed chunk. */
const WORDS_PER_CHUNK = 2;

const INTRO = "This is Tether's built-in demo model (no API key is set, so no real AI is answering).";
const HOW_TO_USE_A_REAL_MODEL = 'Set ANTHROPIC_API_KEY or OPENAI_API_KEY (or use --model) to talk to a real model.';

export const DEMO_SHELL_TOOL = 'shell';
export const DEMO_COMMAND = 'ls -la';

export interface DemoProviderOptions {
  /** See DEMO_DEFAULT_DELAY_MS; 0 in tests. */
  delayMs?: number;
  clock?: Clock;
}

/**
 * The built-in `demo` model, so Tether can be tried without a key. It goes through the same
 * loop as a real model, approvals included, following a fixed script on the last message:
 * a user message gets an introduction and a `shell` call to list the session's folder; the
 * result of that call gets a one-line summary (or an acknowledgement if the user denied it).
 */
export class DemoProvider implements ModelProvider {
  readonly spec = 'demo';
  private readonly delayMs: number;
  private readonly clock: Clock;

  constructor(options: DemoProviderOptions = {}) {
    this.delayMs = options.delayMs ?? DEMO_DEFAULT_DELAY_MS;
    this.clock = options.clock ?? systemClock;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    const signal = request.signal;
    const reply = demoReply(request);
    let outputWords = 0;
    for (const [index, chunk] of chunkWords(reply.text).entries()) {
      if (index > 0) await this.pause(signal);
      if (signal.aborted) throw abortedFailure('demo model');
      outputWords += countWords(chunk);
      yield { type: 'text', text: chunk };
    }
    if (reply.toolCall !== undefined) {
      await this.pause(signal);
      if (signal.aborted) throw abortedFailure('demo model');
      outputWords += countWords(reply.toolCall.arguments);
      yield { type: 'tool-call', call: reply.toolCall };
    }
    if (signal.aborted) throw abortedFailure('demo model');
    // Word counts stand in for tokens: close enough to show the usage display working.
    yield { type: 'usage', inputTokens: countWords(promptText(request)), outputTokens: outputWords };
    yield { type: 'end', stopReason: reply.toolCall === undefined ? 'end' : 'tool-use' };
  }

  /** Waits delayMs, ending at once when the signal aborts (the caller then throws). */
  private pause(signal: AbortSignal): Promise<void> {
    if (this.delayMs <= 0 || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.clock.clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.clock.setTimeout(done, this.delayMs);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

export interface DemoReply {
  text: string;
  toolCall?: ToolCall;
}

/** The script: what the demo says next, from the last message alone. */
export function demoReply(request: Pick<ModelRequest, 'messages' | 'tools'>): DemoReply {
  const last = request.messages.at(-1);
  const hasShell = request.tools.some((tool) => tool.name === DEMO_SHELL_TOOL);
  if (last?.role === 'tool') {
    const result = last.results.find((candidate) => candidate.name === DEMO_SHELL_TOOL) ?? last.results[0];
    if (result === undefined) return { text: `The tool returned nothing. ${HOW_TO_USE_A_REAL_MODEL}` };
    if (result.isError && /denied/i.test(result.output)) {
      return { text: `The command was denied, so I did not run it. ${HOW_TO_USE_A_REAL_MODEL}` };
    }
    if (result.isError) {
      return { text: `The command failed: ${firstLine(result.output)}. ${HOW_TO_USE_A_REAL_MODEL}` };
    }
    const lines = countLines(result.output);
    return {
      text: `The command finished; it printed ${lines} ${lines === 1 ? 'line' : 'lines'}. ${HOW_TO_USE_A_REAL_MODEL}`,
    };
  }
  // What was attached is said back, so a person (and a test) sees it reached the model.
  if (last?.role === 'user' && last.attachments?.length) {
    return {
      text: `${INTRO} I received ${last.attachments.map(describeAttachment).join(', ')}. ${HOW_TO_USE_A_REAL_MODEL}`,
    };
  }
  if (!hasShell) return { text: `${INTRO} ${HOW_TO_USE_A_REAL_MODEL}` };
  return {
    text: `${INTRO} I'll list the files in this session's folder so you can see how approvals work.`,
    toolCall: {
      // Unique within a session: the transcript only grows.
      id: `demo-call-${request.messages.length}`,
      name: DEMO_SHELL_TOOL,
      arguments: JSON.stringify({ command: DEMO_COMMAND }),
    },
  };
}

function describeAttachment(attachment: ChatAttachment): string {
  if (attachment.kind === 'text') return `the text file ${attachment.name} (${countLines(attachment.text)} lines)`;
  // base64 holds 3 bytes in every 4 characters, less its padding.
  const bytes = (attachment.base64.length * 3) / 4 - (attachment.base64.match(/=*$/)?.[0].length ?? 0);
  return `an image, ${attachment.name} (${attachment.mediaType}, ${bytes} bytes)`;
}

/** Splits text into chunks of a couple of words, keeping the spaces, so joining them gives it back. */
export function chunkWords(text: string): string[] {
  const words = text.match(/\S+\s*/g) ?? [];
  const chunks: string[] = [];
  for (let index = 0; index < words.length; index += WORDS_PER_CHUNK) {
    chunks.push(words.slice(index, index + WORDS_PER_CHUNK).join(''));
  }
  return chunks;
}

function promptText(request: ModelRequest): string {
  return [request.system, ...request.messages.map(messageText)].join(' ');
}

function messageText(message: ChatMessage): string {
  switch (message.role) {
    case 'user':
      return message.text;
    case 'assistant':
      return [message.text, ...message.toolCalls.map((call) => call.arguments)].join(' ');
    case 'tool':
      return message.results.map((result) => result.output).join(' ');
  }
}

function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

function countLines(output: string): number {
  if (output === '') return 0;
  return output.replace(/\n$/, '').split('\n').length;
}

function firstLine(output: string): string {
  const line = output.trim().split('\n')[0] ?? '';
  return line === '' ? 'no output' : line.slice(0, 200);
}
