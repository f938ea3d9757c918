import type { RelayStandingInfo } from '@tether/shared-protocol';
import { visibleText } from '@tether/shared-protocol';

/** How each relay state reads on the host's row, and which chip colour it takes. */
const STATES: Record<RelayStandingInfo['state'], { label: string; chip: string }> = {
  linked: { label: 'in use', chip: 'connected' },
  connecting: { label: 'linking', chip: 'connecting' },
  standby: { label: 'spare', chip: 'idle' },
  failed: { label: 'unreachable', chip: 'offline' },
  held: { label: 'refused this computer', chip: 'error' },
};

export interface RelayLine {
  /** The relay's origin as the computer names it, hidden characters made visible. */
  where: string;
  label: string;
  chip: string;
  /** Why, from the computer (hostile text: shown as text, escaped), and when it is asked again. */
  why: string;
}

/**
 * One relay of a computer, as its row in the app shows it. What the computer says is text from
 * the network: shown escaped, as text, never as markup.
 */
export function relayLine(standing: RelayStandingInfo, now: number): RelayLine {
  const state = STATES[standing.state];
  const again =
    standing.retryAt === undefined
      ? ''
      : standing.retryAt <= now
        ? ' Asked again when the computer next moves its link.'
        : ` Asked again in ${waitText(standing.retryAt - now)}, or sooner if no other relay answers.`;
  return {
    where: visibleText(standing.url),
    label: state.label,
    chip: state.chip,
    why: `${visibleText(standing.message)}.${again}`,
  };
}

function waitText(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}
