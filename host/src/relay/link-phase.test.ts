import { describe, expect, it } from 'vitest';
import type { LinkEvent, LinkPhase } from './link-phase.js';
import { OPENING, nextPhase } from './link-phase.js';

const answered: LinkEvent = { type: 'answered' };
const ready: LinkEvent = { type: 'ready', maxConnections: 5 };
const about: LinkEvent = { type: 'about', servesApp: true };
const end: LinkEvent = { type: 'end' };

/** Follows `events` from `opening`, failing at the first one refused. */
function walk(...events: LinkEvent[]): LinkPhase {
  let phase = OPENING;
  for (const event of events) {
    const next = nextPhase(phase, event);
    if (!next) throw new Error(`${event.type} refused in ${phase.name}`);
    phase = next;
  }
  return phase;
}

describe('the relay link phases', () => {
  it('goes opening → challenged → linked, with what ready and about said held only once linked', () => {
    expect(walk()).toEqual({ name: 'opening' });
    expect(walk(answered)).toEqual({ name: 'challenged' });
    expect(walk(answered, ready)).toEqual({ name: 'linked', maxConnections: 5, servesApp: false });
    expect(walk(answered, ready, about)).toEqual({ name: 'linked', maxConnections: 5, servesApp: true });
    expect(walk(answered, ready, about, { type: 'about', servesApp: false })).toEqual({
      name: 'linked',
      maxConnections: 5,
      servesApp: false,
    });
  });

  it('ends from every live phase', () => {
    expect(walk(end)).toEqual({ name: 'closed' });
    expect(walk(answered, end)).toEqual({ name: 'closed' });
    expect(walk(answered, ready, end)).toEqual({ name: 'closed' });
  });

  it('refuses every other move, and leaves the phase it was asked of unchanged', () => {
    const refused: [LinkEvent[], LinkEvent][] = [
      // `ready` before the challenge was answered, or twice.
      [[], ready],
      [[answered, ready], ready],
      // A second challenge answered, before or after `ready`.
      [[answered], answered],
      [[answered, ready], answered],
      // `about` before `ready`.
      [[], about],
      [[answered], about],
      // Nothing moves a link that ended, not even another end.
      [[end], answered],
      [[end], ready],
      [[end], about],
      [[end], end],
      [[answered, ready, end], ready],
    ];
    for (const [before, event] of refused) {
      const phase = walk(...before);
      const copy = structuredClone(phase);
      expect(nextPhase(phase, event), `${event.type} after ${before.map((e) => e.type).join(', ')}`).toBeUndefined();
      expect(phase).toEqual(copy);
    }
  });
});
