import type { SessionEventBody } from '@tether/shared-protocol';
import type { UserMessage } from '../store/session-store.js';

/** The `message` event a person's message is logged as, with its attachments when it has any. */
export function userMessageEvent(messageId: string, message: UserMessage): SessionEventBody {
  return {
    type: 'message',
    messageId,
    role: 'user',
    text: message.text,
    ...(message.attachments?.length ? { attachments: message.attachments } : {}),
  };
}
