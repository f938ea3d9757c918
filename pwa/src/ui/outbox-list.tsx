import type { Outbox, OutboxItem } from '../net/outbox.js';
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
          <p class="outbox-text">{item.text}</p>
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
