import type { ContentBlock } from '@agentclientprotocol/sdk';
import { isImageType } from '@tether/shared-protocol';
import { attachmentText } from '../../blobs/blob-content.js';
import { attachedText } from '../../models/attached-text.js';
import type { UserMessage } from '../../store/session-store.js';
import type { RunContext } from '../session-backend.js';
import type { LiveAgent } from './acp-agent-pool.js';

/**
 * A prompt's content: each message's words, its text files as text, and its photos as image
 * content only where the agent said at initialize that it takes images. A photo the agent cannot
 * take is not sent; the transcript says so in plain words, and the words of the message still go.
 */
export function promptBlocks(
  messages: readonly UserMessage[],
  live: Pick<LiveAgent, 'takesImages' | 'spec'>,
  run: Pick<RunContext, 'append' | 'attachmentBytes'>,
): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const message of messages) {
    for (const attachment of message.attachments ?? []) {
      const bytes = run.attachmentBytes?.(attachment.id);
      if (!bytes) {
        run.append({
          type: 'notice',
          level: 'warning',
          text: `${attachment.name} is no longer on the computer; it was not sent.`,
        });
        continue;
      }
      if (!isImageType(attachment.type)) {
        blocks.push({
          type: 'text',
          text: attachedText({ kind: 'text', name: attachment.name, text: attachmentText(bytes) }),
        });
      } else if (live.takesImages) {
        blocks.push({ type: 'image', mimeType: attachment.type, data: Buffer.from(bytes).toString('base64') });
      } else {
        run.append({
          type: 'notice',
          level: 'warning',
          text: `${live.spec.title} does not take images, so ${attachment.name} was not sent to it.`,
        });
      }
    }
    if (message.text !== '') blocks.push({ type: 'text', text: message.text });
  }
  // A prompt needs some content: a message that was only a photo the agent cannot take says so.
  if (blocks.length === 0)
    blocks.push({ type: 'text', text: '(The person sent an attachment that could not be passed on.)' });
  return blocks;
}
