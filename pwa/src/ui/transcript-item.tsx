import type { Approval, Decision, Result } from '@tether/shared-protocol';
import type { GapItem, PlanItem, TranscriptItem } from '../transcript/transcript.js';
import { AttachmentList } from './attachment-list.js';
import { ApprovalCard } from './approval-card.js';
import { LazyMarkdownView } from './lazy-markdown.js';
import { memo } from './memo.js';
import { ToolRow } from './tool-row.js';

/**
 * How each item of a transcript is drawn: a message, a tool row, a plan, an approval card, a
 * notice, a run's end, or a gap still to read. The windowed list around them is transcript-view.
 */

/** A gap: events not on this device yet, with a button to read them (and why they could not be). */
export function Gap({
  gap,
  loading,
  error,
  onLoad,
}: {
  gap: GapItem;
  loading: boolean;
  error: string | undefined;
  onLoad: ((gapId?: string) => Promise<void>) | undefined;
}) {
  const count = gap.to - gap.after;
  return (
    <p class="notice gap" data-gap-after={gap.after} data-gap-to={gap.to}>
      {loading
        ? `Loading ${count} earlier events…`
        : error
          ? `${count} earlier events could not be loaded: ${error}`
          : `${count} earlier events`}{' '}
      {!loading && onLoad && (
        <button type="button" onClick={() => void onLoad(gap.id)}>
          {error ? 'Try again' : 'Load'}
        </button>
      )}
    </p>
  );
}

/** An item, drawn again only when it changed: folding an event replaces just the items it touched. */
export const Item = memo(function Item({
  item,
  deviceId,
  onAnswer,
}: {
  item: TranscriptItem;
  deviceId: string | undefined;
  onAnswer: ((approvalId: string, decision: Decision, note: string) => Promise<Result<Approval>>) | undefined;
}) {
  switch (item.kind) {
    case 'message':
      return item.role === 'user' ? (
        <div class="msg user" data-message-id={item.id}>
          <span class="visually-hidden">You: </span>
          {item.text}
          {item.attachments && <AttachmentList items={item.attachments} />}
        </div>
      ) : (
        <div
          class={`msg assistant${item.streaming ? ' streaming' : ''}`}
          data-message-id={item.id}
          data-streaming={item.streaming ? 'true' : 'false'}
        >
          <LazyMarkdownView text={item.text} />
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
    case 'gap':
      return null;
  }
});

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
