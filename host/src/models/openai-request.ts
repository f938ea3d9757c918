import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { toolArgumentsText } from './tool-arguments.js';
import { attachedText } from './attached-text.js';
import type { ChatAttachment, ChatMessage, ModelRequest } from './types.js';

/**
 * Which field caps the output. OpenAI's reasoning models (gpt-5, o-series) reject `max_tokens`
 * and want `max_completion_tokens`; many OpenAI-compatible servers only know `max_tokens`.
 */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

/** The body of one streamed Chat Completions call. */
export function toOpenAIParams(
  request: ModelRequest,
  model: string,
  maxTokensField: MaxTokensField,
): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    model,
    messages: toOpenAIMessages(request.system, request.messages),
    stream: true,
    // Without it the stream carries no token counts at all.
    stream_options: { include_usage: true },
  };
  params[maxTokensField] = request.maxTokens;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool): ChatCompletionTool => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
  }
  return params;
}

/**
 * Our transcript as Chat Completions messages: the system prompt first, assistant messages with
 * their tool_calls, and one `tool` message per tool result, in the calls' order.
 */
export function toOpenAIMessages(system: string, messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system !== '') out.push({ role: 'system', content: system });
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        out.push({ role: 'user', content: userContent(message.text, message.attachments ?? []) });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          // The API wants null, not '', when the turn was only tool calls.
          content: message.text === '' ? null : message.text,
          // Arguments that are not a JSON object go back as `{}` (see tool-arguments.ts): some
          // compatible servers parse them and would refuse this request and every later one.
          ...(message.toolCalls.length > 0 && {
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: 'function' as const,
              function: { name: call.name, arguments: toolArgumentsText(call.arguments) },
            })),
          }),
        });
        break;
      case 'tool':
        for (const result of message.results) {
          out.push({
            role: 'tool',
            tool_call_id: result.toolCallId,
            content: toolContent(result.output, result.isError),
          });
        }
        break;
    }
  }
  return out;
}

/** A person's words alone as a string; with attachments, parts: the images and files, then the words. */
function userContent(text: string, attachments: readonly ChatAttachment[]): string | ChatCompletionContentPart[] {
  if (attachments.length === 0) return text;
  const parts = attachments.map((a): ChatCompletionContentPart =>
    a.kind === 'text'
      ? { type: 'text', text: attachedText(a) }
      : { type: 'image_url', image_url: { url: `data:${a.mediaType};base64,${a.base64}` } },
  );
  if (text !== '') parts.push({ type: 'text', text });
  return parts;
}

/**
 * Chat Completions has no error flag on a tool message, so a failed call says so in its text.
 * Some compatible servers reject an empty message, hence the placeholder.
 */
function toolContent(output: string, isError: boolean): string {
  const text = output === '' ? '(no output)' : output;
  return isError ? `Error: ${text}` : text;
}
