import { resolve } from 'node:path';

/** Grants of each kind one run holds; past it the oldest unused one is dropped (the agent is asked again). */
export const MAX_GRANTS = 64;

/**
 * What the person has just allowed an ACP agent to do, by exact content: a write of this text to
 * this file, a run of this command line with these variables of the agent's (`envText`; none
 * for a command allowed in a permission request, which shows none). An agent asks permission for a tool call (showing its
 * diff or command) and then acts through the client; the act is let through without asking a
 * second time only when it is exactly what was shown, and only once. Anything else asks.
 */
export class Grants {
  private writes: { path: string; text: string; before: string | null }[] = [];
  private commands: { command: string; env: string }[] = [];

  /** `before`: the file's text the change was shown against (null: a new file). */
  allowWrite(path: string, text: string, before: string | null): void {
    this.writes.push({ path: resolve(path), text, before });
    if (this.writes.length > MAX_GRANTS) this.writes.shift();
  }

  allowCommand(command: string, env = ''): void {
    this.commands.push({ command, env });
    if (this.commands.length > MAX_GRANTS) this.commands.shift();
  }

  /**
   * Whether a write of `text` to `path`, whose text is `current` now, was allowed as shown: the
   * same file, the same new text, over the same old text (an agent's diff could claim another).
   * The grant is used up.
   */
  takeWrite(path: string, text: string, current: string | null): boolean {
    const full = resolve(path);
    const index = this.writes.findIndex(
      (w) => w.path === full && w.text === text && (w.before ?? '') === (current ?? ''),
    );
    if (index < 0) return false;
    this.writes.splice(index, 1);
    return true;
  }

  /** Whether this command line with these variables (`envText`) was allowed as shown; the grant is used up. */
  takeCommand(command: string, env = ''): boolean {
    const index = this.commands.findIndex((c) => c.command === command && c.env === env);
    if (index < 0) return false;
    this.commands.splice(index, 1);
    return true;
  }
}
