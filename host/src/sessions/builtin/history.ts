import type { Attachment, SessionEvent } from '@tether/shared-protocol';
import type { ChatAttachment, ChatMessage, ToolCall, ToolResultMessage } from '../../models/types.js';
import { userChatMessage } from './chat-attachments.js';
import { applyCompaction } from './compaction.js';

/** What the model is told about a tool call that never finished (the host stopped meanwhile). */
export const UNFINISHED_TOOL_OUTPUT = 'This tool call did not finish: the run was interrupted before it completed.';

/** The raw arguments a `tool.started` event recorded: parsed JSON, or the raw text when malformed. */
export function argumentsText(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? {});
}

/**
 * Rebuilds the conversation the model sees from a session's event log, which is the source of
 * truth: user and assistant messages, each assistant turn's tool calls, and their results.
 * A tool call with no recorded result gets one saying it did not finish, because both APIs
 * require every call to be answered. A `context.compacted` event applies the very compaction the
 * loop made at that point (compaction.ts), so the rebuilt history is the one the model saw.
 */
export function buildHistory(
  events: Iterable<SessionEvent>,
  attach: (attachments: readonly Attachment[]) => ChatAttachment[] = () => [],
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let assistant: { text: string; toolCalls: ToolCall[] } | undefined;
  let results: ToolResultMessage[] = [];

  const closeTurn = () => {
    if (!assistant) return;
    messages.push({ role: 'assistant', text: assistant.text, toolCalls: assistant.toolCalls });
    if (assistant.toolCalls.length > 0) {
      const byId = new Map(results.map((r) => [r.toolCallId, r]));
      messages.push({
        role: 'tool',
        results: assistant.toolCalls.map(
          (call) =>
            byId.get(call.id) ?? {
              toolCallId: call.id,
              name: call.name,
              output: UNFINISHED_TOOL_OUTPUT,
              isError: true,
            },
        ),
      });
    }
    assistant = undefined;
    results = [];
  };

  for (const event of events) {
    switch (event.type) {
      case 'message':
        if (event.role === 'user') {
          closeTurn();
          messages.push(userChatMessage(event.text, event.attachments ?? [], attach));
        } else {
          // A new assistant message after tool results starts the next turn.
          if (assistant && (assistant.toolCalls.length > 0 || assistant.text !== '')) closeTurn();
          assistant = { text: event.text, toolCalls: [] };
        }
        break;
      case 'tool.started':
        if (assistant && results.length > 0) closeTurn();
        assistant ??= { text: '', toolCalls: [] };
        assistant.toolCalls.push({ id: event.toolCallId, name: event.tool, arguments: argumentsText(event.input) });
        break;
      case 'tool.finished':
        results.push({ toolCallId: event.toolCallId, name: event.tool, output: event.output, isError: !event.ok });
        break;
      case 'run.finished':
        closeTurn();
        break;
      case 'context.compacted':
        closeTurn();
        applyCompaction(messages, event);
        break;
      default:
        break;
    }
  }
  closeTurn();
  return messages;
}
