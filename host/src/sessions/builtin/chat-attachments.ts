import type { Attachment } from '@tether/shared-protocol';
import { isImageType } from '@tether/shared-protocol';
import { attachmentText } from '../../blobs/blob-content.js';
import type { ChatAttachment, ChatMessage } from '../../models/types.js';
import type { RunContext } from '../session-backend.js';

/**
 * A message's attachments as the model takes them: images as base64, text files as their text.
 * One whose bytes are gone (its blob was removed by hand) is said in words instead, so the model
 * knows something was meant and the run goes on.
 */
export function chatAttachments(run: Pick<RunContext, 'attachmentBytes'>) {
  return (attachments: readonly Attachment[]): ChatAttachment[] =>
    attachments.map((a): ChatAttachment => {
      const bytes = run.attachmentBytes?.(a.id);
      if (!bytes) return { kind: 'text', name: a.name, text: '(this attachment is no longer on the computer)' };
      if (isImageType(a.type)) {
        return {
          kind: 'image',
          name: a.name,
          mediaType: a.type as Extract<ChatAttachment, { kind: 'image' }>['mediaType'],
          base64: Buffer.from(bytes).toString('base64'),
        };
      }
      return { kind: 'text', name: a.name, text: attachmentText(bytes) };
    });
}

/** A person's message for the model, with its attachments loaded. */
export function userChatMessage(
  text: string,
  attachments: readonly Attachment[],
  attach: (attachments: readonly Attachment[]) => ChatAttachment[],
): ChatMessage {
  return attachments.length === 0 ? { role: 'user', text } : { role: 'user', text, attachments: attach(attachments) };
}
