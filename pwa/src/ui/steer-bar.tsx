import type { DeviceClient, SessionSummary } from '@tether/shared-protocol';
import { useState } from 'preact/hooks';
import { lazyPart } from './lazy-part.js';
import type { SteerPanelName } from './steer-text.js';
import { budgetLine, modelLabel, spendLine } from './steer-text.js';
import { VisibleText } from './visible-text.js';

/** The pickers load the first time one is opened. */
const SteerPanel = lazyPart(() => import('./steer-panels.js').then((m) => m.SteerPanel));

/**
 * How a session is steered, one tap away, under its top bar: its mode, its model and what it has
 * spent against its budget, each a chip that opens its picker. A session stopped at its budget
 * says so here, with the way on. Other chips (a folder's git) may sit beside these.
 */
export function SteerBar({
  session,
  client,
  canChat,
}: {
  session: SessionSummary;
  client: DeviceClient;
  canChat: boolean;
}) {
  const [open, setOpen] = useState<SteerPanelName | null>(null);
  const toggle = (name: SteerPanelName) => setOpen((now) => (now === name ? null : name));
  const reached = session.activity?.budgetReached === true && session.status !== 'running';
  const chip = (name: SteerPanelName, label: string, value: preact.ComponentChildren) => (
    <button
      type="button"
      class="steer-chip"
      data-steer={name}
      aria-expanded={open === name}
      aria-controls="steer-panel"
      disabled={!canChat && name !== 'budget'}
      onClick={() => toggle(name)}
    >
      <span class="steer-label">{label}</span> {value}
    </button>
  );
  return (
    <div class="steer" data-steer-bar>
      <div class="steer-bar" role="group" aria-label="Steer this session">
        {chip(
          'mode',
          'Mode',
          <VisibleText text={session.mode?.name ?? (session.kind === 'agent' ? 'Default' : '…')} />,
        )}
        {chip('model', 'Model', <VisibleText text={modelLabel(session)} />)}
        {chip('budget', 'Spend', spendLine(session))}
      </div>
      {reached && (
        <p class="steer-alert" role="status" data-budget-reached>
          Budget reached{session.budget ? ` (${budgetLine(session.budget)})` : ''}: it waits for you.{' '}
          {canChat && open !== 'budget' && (
            <button type="button" class="primary" onClick={() => setOpen('budget')}>
              Raise budget
            </button>
          )}
        </p>
      )}
      {open && (
        <div id="steer-panel" class="steer-panel">
          <SteerPanel which={open} session={session} client={client} canChat={canChat} onDone={() => setOpen(null)} />
        </div>
      )}
    </div>
  );
}
