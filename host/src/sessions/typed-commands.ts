import type { Clock, Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { SessionRecord, SessionStore } from '../store/session-store.js';
import type { SessionJournal } from './session-journal.js';
import type { SessionManager } from './session-manager.js';
import type { SessionSteering } from './session-steering.js';
import type { TypedCommand } from './slash-commands.js';
import { parseCommand } from './slash-commands.js';

export interface TypedCommandsDeps {
  manager: Pick<SessionManager, 'send' | 'create' | 'goOn' | 'get'>;
  steering: SessionSteering;
  sessions: SessionStore;
  journal: SessionJournal;
  clock: Clock;
}

export type SendAnswer = { queued: boolean; duplicate?: boolean; session?: string };

/** Characters of the `/help` notice (a notice holds 4,000). */
const HELP_CHARS = 3900;

/**
 * A message to a session of Tether's own loop that is one of its slash commands is carried out
 * instead of being sent: `/compact`, `/model`, `/mode`, `/plan`, `/clear`, `/help`. A skill's name
 * (`/review-pr 12`) is sent as the message it is, and the run loads the skill for the model. Any
 * other `/word` is refused with the list, rather than sent as text by mistake; `//…` sends text
 * that begins with `/`. An ACP agent's session takes every message as the agent's own text: its
 * commands are its own.
 */
export class TypedCommands {
  constructor(private readonly deps: TypedCommandsDeps) {}

  async send(
    id: string,
    text: string,
    clientId?: string,
    attachments: readonly string[] = [],
  ): Promise<Result<SendAnswer>> {
    const { manager, sessions } = this.deps;
    const record = sessions.get(id);
    if (record?.kind !== 'agent') return manager.send(id, text, clientId, attachments);
    if (text.startsWith('//')) return manager.send(id, text.slice(1), clientId, attachments);
    const typed = parseCommand(text);
    if (!typed) return manager.send(id, text, clientId, attachments);
    const earlier = clientId === undefined ? undefined : sessions.receipt(id, clientId);
    if (earlier) return ok({ ...earlier, duplicate: true });
    const done = await this.carryOut(record, typed, attachments.length > 0);
    if (done === 'message') return manager.send(id, text, clientId, attachments);
    if (done.ok && clientId !== undefined) sessions.keepReceipt(id, clientId, false, this.deps.clock.now());
    return done;
  }

  private async carryOut(
    record: SessionRecord,
    typed: TypedCommand,
    attached: boolean,
  ): Promise<Result<SendAnswer> | 'message'> {
    const { steering } = this.deps;
    const controls = await steering.controls(record.id);
    const commands = controls.ok ? controls.value.commands : [];
    const command = commands.find((c) => c.name === typed.name);
    if (command?.source === 'skill') return 'message';
    if (!command) {
      return fail(
        'invalid-params',
        `/${typed.name} is not a command of this session (/help lists them; start with // to send text that begins with /)`,
      );
    }
    if (attached) return fail('invalid-params', `/${typed.name} takes no attachments`);
    const sent = (result: Result<unknown>) => (result.ok ? ok({ queued: false }) : result);
    switch (typed.name) {
      case 'model':
        if (typed.args === '')
          return this.say(
            record.id,
            `Model: ${record.model}. Offered: ${controls.ok ? controls.value.models.map((m) => m.id).join(', ') : '?'}.`,
          );
        return sent(await steering.setModel(record.id, typed.args));
      case 'mode':
        if (typed.args === '') {
          const current = controls.ok ? controls.value.mode : undefined;
          return this.say(record.id, `Mode: ${current ?? 'default'}. Modes: default, plan.`);
        }
        return sent(await steering.setMode(record.id, typed.args));
      case 'plan':
        return sent(await steering.setMode(record.id, 'plan'));
      case 'compact':
        return sent(
          this.deps.manager.goOn(record.id, { name: 'compact', ...(typed.args ? { focus: typed.args } : {}) }),
        );
      case 'clear':
        return this.clear(record);
      default: {
        const lines = commands.map((c) => `/${c.name}${c.hint ? ` ${c.hint}` : ''}: ${c.description}`);
        const text = `Commands:\n${lines.join('\n')}`;
        return this.say(record.id, text.length > HELP_CHARS ? `${text.slice(0, HELP_CHARS - 1)}…` : text);
      }
    }
  }

  /** `/clear`: a new session in the same folder and place, with the same model, mode and budget. */
  private async clear(record: SessionRecord): Promise<Result<SendAnswer>> {
    const { sessions } = this.deps;
    const steered = sessions.steering.get(record.id);
    const created = await this.deps.manager.create({
      cwd: record.cwd,
      place: record.place,
      model: record.model,
      kind: 'agent',
      title: `${record.title} (cleared)`.slice(0, 80),
      idle: true,
      prepare: (id) => {
        if (steered.mode) sessions.steering.setMode(id, steered.mode);
        if (steered.budget) sessions.steering.setBudget(id, steered.budget);
      },
    });
    if (!created.ok) return created;
    this.deps.journal.append(record.id, {
      type: 'notice',
      level: 'info',
      text: `Cleared: this conversation goes on in a new session, ${created.value.id}.`,
    });
    this.deps.journal.announce(record.id);
    return ok({ queued: false, session: created.value.id });
  }

  private say(id: string, text: string): Result<SendAnswer> {
    this.deps.journal.append(id, { type: 'notice', level: 'info', text });
    this.deps.journal.announce(id);
    return ok({ queued: false });
  }
}
