/**
 * The phases of one dialled relay socket, and every move between them, in one place. Each phase
 * holds only what is true in it: what the relay said in `ready` and `about` exists only once the
 * link is up.
 *
 *   opening ──challenge answered──▶ challenged ──ready──▶ linked ──about──▶ linked
 *      └───────────────┴──────────────end──────────────────┴──▶ closed
 *
 * Any other move is refused (`undefined`): a second challenge, `ready` before the challenge was
 * answered, `about` before `ready`, anything after the end.
 */
export type LinkPhase =
  /** Dialled; waiting for the relay's challenge. */
  | { readonly name: 'opening' }
  /** The challenge is answered; waiting for `ready`. */
  | { readonly name: 'challenged' }
  /** The relay accepted the link and carries the host's connections. */
  | {
      readonly name: 'linked';
      /** The host's connections the relay carries at most (its `ready`). */
      readonly maxConnections: number;
      /** What the relay said it serves (`about`, right after `ready`): nothing until it says so. */
      readonly servesApp: boolean;
    }
  /** Ended, for whatever reason: nothing moves it again. */
  | { readonly name: 'closed' };

export type LinkEvent =
  | { readonly type: 'answered' }
  | { readonly type: 'ready'; readonly maxConnections: number }
  | { readonly type: 'about'; readonly servesApp: boolean }
  | { readonly type: 'end' };

export const OPENING: LinkPhase = { name: 'opening' };
const CHALLENGED: LinkPhase = { name: 'challenged' };
const CLOSED: LinkPhase = { name: 'closed' };

/** The phase `event` moves `phase` to, or `undefined` if it may not move that way. */
export function nextPhase(phase: LinkPhase, event: LinkEvent): LinkPhase | undefined {
  switch (event.type) {
    case 'answered':
      return phase.name === 'opening' ? CHALLENGED : undefined;
    case 'ready':
      return phase.name === 'challenged'
        ? { name: 'linked', maxConnections: event.maxConnections, servesApp: false }
        : undefined;
    case 'about':
      return phase.name === 'linked' ? { ...phase, servesApp: event.servesApp } : undefined;
    case 'end':
      return phase.name === 'closed' ? undefined : CLOSED;
  }
}
