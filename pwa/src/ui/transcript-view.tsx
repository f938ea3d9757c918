import type { Approval, Decision, Result } from '@tether/shared-protocol';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { PlanItem, TranscriptItem, TranscriptState } from '../transcript/transcript.js';
import { ApprovalCard } from './approval-card.js';
import { MarkdownView } from './markdown-view.js';
import { ToolRow } from './tool-row.js';

/** Within this many pixels of the bottom counts as "following" (finger scrolls are not exact). */
const PIN_SLACK_PX = 48;
/**
 * Items drawn in the first frame: the newest ones, more than a tablet screen holds. The older ones
 * follow in the next task, so a long cached transcript shows at once on a slow phone.
 */
const FIRST_FRAME_ITEMS = 24;

interface Props {
  transcript: TranscriptState;
  live: boolean;
  savedSeq: number;
  deviceId: string | undefined;
  onAnswer: ((approvalId: string, decision: Decision, note: string) => Promise<Result<Approval>>) | undefined;
}

/**
 * The transcript. While the person is at the bottom it follows new output; once they scroll up it
 * stays where they are and offers "Jump to latest".
 */
export function TranscriptView({ transcript, live, savedSeq, deviceId, onAnswer }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const [following, setFollowing] = useState(true);
  const [limit, setLimit] = useState(FIRST_FRAME_ITEMS);
  const items = transcript.items.length > limit ? transcript.items.slice(-limit) : transcript.items;

  useEffect(() => {
    if (transcript.items.length <= limit) return undefined;
    const timer = setTimeout(() => setLimit(Number.POSITIVE_INFINITY), 0);
    return () => clearTimeout(timer);
  }, [transcript.items.length, limit]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [transcript, limit]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= PIN_SLACK_PX;
    pinned.current = atBottom;
    setFollowing(atBottom);
  };

  const jump = () => {
    const el = scroller.current;
    if (!el) return;
    pinned.current = true;
    setFollowing(true);
    el.scrollTop = el.scrollHeight;
  };

  return (
    <div class="transcript-wrap">
      <div class="scroll" ref={scroller} onScroll={onScroll}>
        <div
          class="transcript"
          role="log"
          aria-live="polite"
          aria-label="Transcript"
          data-last-seq={transcript.lastSeq}
          data-applied={transcript.applied}
          data-saved-seq={savedSeq}
          data-live={live ? 'true' : 'false'}
        >
          {transcript.dropped > 0 && items === transcript.items && (
            <p class="notice">{transcript.dropped} earlier items are not kept on this device.</p>
          )}
          {items.map((item) => (
            <Item key={item.id} item={item} deviceId={deviceId} onAnswer={onAnswer} />
          ))}
        </div>
      </div>
      {!following && (
        <button type="button" class="jump primary" onClick={jump}>
          Jump to latest ↓
        </button>
      )}
    </div>
  );
}

function Item({ item, deviceId, onAnswer }: { item: TranscriptItem } & Pick<Props, 'deviceId' | 'onAnswer'>) {
  switch (item.kind) {
    case 'message':
      return item.role === 'user' ? (
        <div class="msg user" data-message-id={item.id}>
          <span class="visually-hidden">You: </span>
          {item.text}
        </div>
      ) : (
        <div
          class={`msg assistant${item.streaming ? ' streaming' : ''}`}
          data-message-id={item.id}
          data-streaming={item.streaming ? 'true' : 'false'}
        >
          <MarkdownView text={item.text} />
        </div>
      );
    case 'tool':
      return <ToolRow item={item} />;
    case 'plan':
      return <PlanView item={item} />;
    case 'approval':
      return (
        <ApprovalCard
          approval={item.approval}
          deviceId={deviceId}
          onAnswer={onAnswer && ((decision, note) => onAnswer(item.approval.id, decision, note))}
        />
      );
    case 'notice':
      return <p class={`notice ${item.level}`}>{item.text}</p>;
    case 'run':
      return (
        <p class="run-end" data-run-status={item.status}>
          {item.status === 'done' ? 'Run finished' : item.status === 'interrupted' ? 'Run interrupted' : 'Run failed'}
          {item.error ? `: ${item.error}` : ''}
        </p>
      );
  }
}

const PLAN_MARK: Record<PlanItem['entries'][number]['status'], string> = {
  pending: '☐',
  in_progress: '▶',
  completed: '☑',
};
const PLAN_LABEL: Record<PlanItem['entries'][number]['status'], string> = {
  pending: 'to do',
  in_progress: 'in progress',
  completed: 'done',
};

/** The agent's plan as a checklist (its text as text). */
function PlanView({ item }: { item: PlanItem }) {
  return (
    <section class="plan" data-plan-id={item.id} aria-label="Plan">
      <h3>Plan</h3>
      <ul>
        {item.entries.map((entry, i) => (
          <li key={i} data-status={entry.status}>
            <span class="plan-mark" aria-label={PLAN_LABEL[entry.status]}>
              {PLAN_MARK[entry.status]}
            </span>{' '}
            {entry.content}
          </li>
        ))}
      </ul>
    </section>
  );
}
