/**
 * The key bar's logic: the keys a phone keyboard lacks, and the modifiers. A modifier is tapped
 * once for the next key only (one-shot), twice to stay on (locked), once more to turn it off. It
 * applies to keys typed on the phone's own keyboard as well as the bar's.
 */

export type Modifier = 'ctrl' | 'alt';
export type ModifierState = 'off' | 'once' | 'locked';

export type BarKey = 'esc' | 'tab' | 'up' | 'down' | 'left' | 'right' | 'home' | 'end' | 'pgup' | 'pgdn';

/** Characters phones hide behind a second or third keyboard page. */
export const BAR_SYMBOLS = ['|', '~', '/', '-', '_', '`', '\\'] as const;

const ESC = '\x1b';

/** What a key sends; arrows depend on whether the program asked for application cursor keys. */
export function keySequence(key: BarKey, applicationCursor: boolean): string {
  const cursor = applicationCursor ? `${ESC}O` : `${ESC}[`;
  switch (key) {
    case 'esc':
      return ESC;
    case 'tab':
      return '\t';
    case 'up':
      return `${cursor}A`;
    case 'down':
      return `${cursor}B`;
    case 'right':
      return `${cursor}C`;
    case 'left':
      return `${cursor}D`;
    case 'home':
      return `${cursor}H`;
    case 'end':
      return `${cursor}F`;
    case 'pgup':
      return `${ESC}[5~`;
    case 'pgdn':
      return `${ESC}[6~`;
  }
}

/** The control character for `char` (Ctrl-C is 0x03), or undefined when there is none. */
export function controlCharacter(char: string): string | undefined {
  if (char.length !== 1) return undefined;
  const code = char.toUpperCase().charCodeAt(0);
  if (code >= 0x40 && code <= 0x5f) return String.fromCharCode(code - 0x40); // @, A–Z, [ \ ] ^ _
  if (char === ' ' || char === '2') return '\x00';
  if (char === '?') return '\x7f';
  if (char === '/') return '\x1f';
  return undefined;
}

export class KeyBarState {
  private readonly modifiers: Record<Modifier, ModifierState> = { ctrl: 'off', alt: 'off' };

  state(modifier: Modifier): ModifierState {
    return this.modifiers[modifier];
  }

  /** off → once → locked → off. */
  tap(modifier: Modifier): ModifierState {
    const next: Record<ModifierState, ModifierState> = { off: 'once', once: 'locked', locked: 'off' };
    this.modifiers[modifier] = next[this.modifiers[modifier]];
    return this.modifiers[modifier];
  }

  /**
   * Input on its way to the terminal, with the modifiers applied to its first character (what
   * one key press produces); one-shot modifiers are then used up. Text longer than a key press
   * (a paste, an autocompleted word) passes unchanged and leaves them armed.
   */
  apply(data: string): string {
    const ctrl = this.modifiers.ctrl !== 'off';
    const alt = this.modifiers.alt !== 'off';
    if ((!ctrl && !alt) || [...data].length !== 1) return data;
    let out = data;
    if (ctrl) out = controlCharacter(data) ?? data;
    if (alt) out = ESC + out;
    this.release();
    return out;
  }

  /** A key of the bar itself (Esc, an arrow, a symbol) uses up one-shot modifiers too. */
  applyKey(sequence: string): string {
    if ([...sequence].length === 1) return this.apply(sequence);
    const out = this.modifiers.alt !== 'off' ? ESC + sequence : sequence;
    this.release();
    return out;
  }

  private release(): void {
    for (const modifier of ['ctrl', 'alt'] as const) {
      if (this.modifiers[modifier] === 'once') this.modifiers[modifier] = 'off';
    }
  }
}
