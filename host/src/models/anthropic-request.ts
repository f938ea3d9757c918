import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { parseToolInput } from './tool-arguments.js';
import { attachedText } from './attached-text.js';
import type { ChatAttachment, ChatMessage, ModelRequest } from './types.js';

/** A Messages API turn as we build it: only user and assistant roles, content always as blocks. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: ContentBlockParam[];
}

/** The body of one streamed Messages API call. */
export function toAnthropicParams(request: ModelRequest, model: string): MessageCreateParamsStreaming {
  const params: MessageCreateParamsStreaming = {
    model,
    max_tokens: request.maxTokens,
    messages: toAnthropicMessages(request.messages),
    stream: true,
  };
  // The API rejects an empty system text block and has no use for an empty tool list.
  if (request.system !== '') params.system = request.system;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool): Tool => ({
      name: tool.name,
      description: tool.description,
      input_schema: { ...tool.inputSchema, type: 'object' },
    }));
  }
  return params;
}

/**
 * Our transcript as Messages API turns. Tool results travel as a user turn of tool_result
 * blocks. Consecutive turns of one role are merged, because the API wants user and assistant
 * to alternate (tool results followed by the user's next words are one user turn, results
 * first as the API requires). Empty text is dropped: the API rejects empty text blocks.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): AnthropicMessage[] {
  const turns: AnthropicMessage[] = [];
  const append = (role: AnthropicMessage['role'], blocks: ContentBlockParam[]): void => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        // Images before the words about them, as the Messages API guide advises.
        append('user', [...(message.attachments ?? []).map(attachmentBlock), ...textBlocks(message.text)]);
        break;
      case 'assistant':
        append('assistant', [
          ...textBlocks(message.text),
          ...message.toolCalls.map((call): ToolUseBlockParam => ({
            type: 'tool_use',
            id: call.id,
            name: call.name,
            input: parseToolInput(call.arguments),
          })),
        ]);
        break;
      case 'tool':
        append(
          'user',
          message.results.map((result): ToolResultBlockParam => {
            const block: ToolResultBlockParam = {
              type: 'tool_result',
              tool_use_id: result.toolCallId,
              is_error: result.isError,
            };
            if (result.output !== '') block.content = result.output;
            return block;
          }),
        );
        break;
    }
  }
  return turns;
}

function attachmentBlock(attachment: ChatAttachment): ImageBlockParam | TextBlockParam {
  if (attachment.kind === 'text') return { type: 'text', text: attachedText(attachment) };
  return { type: 'image', source: { type: 'base64', media_type: attachment.mediaType, data: attachment.base64 } };
}

function textBlocks(text: string): ContentBlockParam[] {
  return text === '' ? [] : [{ type: 'text', text }];
}
