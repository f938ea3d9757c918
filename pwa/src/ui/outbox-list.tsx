import { isImageType } from '@tether/shared-protocol';
import { useEffect, useMemo } from 'preact/hooks';
import { sizeText } from './attachment-list.js';
import type { OutboxFile } from '../data/records.js';
import type { Outbox, OutboxItem } from '../net/outbox.js';
import { FileIcon } from './icons.js';
import { useStore } from './use-store.js';

const MARK_TEXT: Record<OutboxItem['mark'], string> = {
  waiting: 'Waiting to send',
  sent: 'Sent',
  delivered: 'On the computer',
  failed: 'Not sent',
};

/**
 * A session's messages in the outbox, under its transcript: each with its mark (waiting → sent →
 * on the computer). A delivered one is shown a few seconds more; the transcript then shows it.
 */
export function OutboxList({ outbox, sessionId }: { outbox: Outbox; sessionId: string }) {
  const items = useStore(outbox.items).filter((i) => i.sessionId === sessionId);
  if (items.length === 0) return null;
  return (
    <ul class="outbox" aria-label="Messages not yet in the transcript">
      {items.map((item) => (
        <li key={item.id} class={`outbox-item ${item.mark}`} data-outbox-mark={item.mark}>
          {item.text !== '' && <p class="outbox-text">{item.text}</p>}
          {item.attachments && item.attachments.length > 0 && <OutboxFiles files={item.attachments} />}
          <p class="outbox-mark" role="status">
            {MARK_TEXT[item.mark]}
            {item.mark === 'delivered' && item.queued ? ': it goes to the agent when the current turn ends' : ''}
            {item.mark === 'waiting' ? ': it goes when the computer answers' : ''}
            {item.mark === 'failed' ? `: ${item.error ?? 'the computer refused it'}` : ''}
          </p>
          {item.mark === 'failed' && (
            <button type="button" onClick={() => void outbox.discard(item.id)}>
              Discard
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * The photos and files of a message still in the outbox, from the bytes this device holds: a photo
 * as its thumbnail (a blob: URL, let go when the message leaves the list), each with its name.
 */
function OutboxFiles({ files }: { files: readonly OutboxFile[] }) {
  const urls = useMemo(
    () => files.map((f) => (isImageType(f.type) ? URL.createObjectURL(new Blob([f.bytes], { type: f.type })) : '')),
    [files],
  );
  useEffect(() => () => urls.forEach((url) => url && URL.revokeObjectURL(url)), [urls]);
  return (
    <ul class="attachments outbox-files" aria-label="Attached">
      {files.map((f, i) => (
        <li key={`${f.name}-${i}`} data-attachment={f.name}>
          {urls[i] ? <img class="thumbnail" src={urls[i]} alt="" /> : <FileIcon />}
          <span class="file-chip">{f.name}</span>
          <span class="attachment-size">{sizeText(f.bytes.length)}</span>
        </li>
      ))}
    </ul>
  );
}
