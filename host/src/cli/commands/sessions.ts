import type { Result, SessionBudget, SessionEvent, SessionSummary } from '@tether/shared-protocol';
import { decodeEvent, fail, isSessionEvent, ok, uploadAttachment, visibleText } from '@tether/shared-protocol';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { flag, listOption, stringOption } from '../args.js';
import { readFileToAttach } from '../attach-file.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, jsonForTerminal, printJson, table, withClient } from '../common.js';
import { sessionHeaderLines } from '../session-header.js';
import { TranscriptPrinter } from '../transcript-printer.js';
import { parseBudgetTokens, parseBudgetUsd } from './sessions-steer.js';
import { flagOption, repeatedOption, valueOption } from '../option.js';

const STATUS_MARK: Record<SessionSummary['status'], string> = {
  idle: 'idle',
  running: 'running',
  waiting: 'WAITING',
  error: 'error',
  interrupted: 'interrupted',
};

export const sessionsListCommand: Command = {
  path: ['sessions'],
  summary: 'list sessions, newest first',
  options: [DATA_DIR_OPTION, JSON_OPTION, flagOption('all', 'include archived sessions')],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('sessions.list', { includeArchived: flag(context.args, 'all') });
      if (failed(context, result)) return Exit.Error;
      const { sessions } = result.value;
      if (flag(context.args, 'json')) printJson(context, sessions);
      else if (sessions.length === 0) context.stdout.write('No sessions yet. Start one: tether sessions new "…"\n');
      else {
        const rows = sessions.map((s) => [
          s.id,
          STATUS_MARK[s.status] + (s.pendingApprovals > 0 ? ` (${s.pendingApprovals})` : ''),
          ago(s.updatedAt),
          visibleText(s.title),
        ]);
        context.stdout.write(table([['ID', 'STATUS', 'UPDATED', 'TITLE'], ...rows]));
      }
      return Exit.Ok;
    }),
};

export const sessionsNewCommand: Command = {
  path: ['sessions', 'new'],
  usage: '"prompt"',
  summary: 'start a session with a first message',
  options: [
    DATA_DIR_OPTION,
    valueOption('cwd', 'DIR', 'the folder it works in (default: the current folder)'),
    valueOption('model', 'SPEC', "a model for this session (default: the host's)"),
    valueOption('machine', 'NAME', 'run it on this machine (see tether machines); --cwd is then a folder there'),
    valueOption('agent', 'NAME', 'run it with an ACP agent instead of the built-in loop (see tether agents)'),
    valueOption('mode', 'MODE', "start in this mode (plan, or an agent's own)"),
    valueOption('agent-model', 'ID', 'with --agent: one of its own models (tether sessions model ID lists them)'),
    valueOption('budget-tokens', 'N', 'a budget in tokens (in and out)'),
    valueOption('budget-usd', 'X', 'a budget in US dollars'),
    flagOption('worktree', 'in a new git worktree, on a new branch tether/ID'),
    JSON_OPTION,
  ],
  arity: [1, 1],
  run: (context) => {
    const machine = stringOption(context.args, 'machine');
    const cwd = stringOption(context.args, 'cwd');
    const start = startSteering(context);
    if (!start.ok) {
      context.stderr.write(`tether sessions new: ${start.error.message}\n`);
      return Promise.resolve(Exit.Usage);
    }
    if (machine !== undefined && cwd === undefined) {
      context.stderr.write(
        'tether sessions new: with --machine, give --cwd DIR (an absolute folder on that machine)\n',
      );
      return Promise.resolve(Exit.Usage);
    }
    return withClient(context, async (client) => {
      const model = stringOption(context.args, 'model');
      const agent = stringOption(context.args, 'agent');
      const result = await client.call('sessions.create', {
        // A machine's folder is a path there, not here: it is passed on as written.
        cwd: machine !== undefined ? cwd! : resolve(cwd ?? process.cwd()),
        text: context.args.positionals[0]!,
        ...(model !== undefined ? { model } : {}),
        ...(machine !== undefined ? { machine } : {}),
        ...(agent !== undefined ? { agent } : {}),
        ...start.value,
        ...(flag(context.args, 'worktree') ? { worktree: true } : {}),
      });
      if (failed(context, result)) return Exit.Error;
      if (flag(context.args, 'json')) printJson(context, result.value.session);
      else
        context.stdout.write(
          `${result.value.session.id}\nFollow it: tether sessions show ${result.value.session.id} --follow\n`,
        );
      return Exit.Ok;
    });
  },
};

export const sessionsShowCommand: Command = {
  path: ['sessions', 'show'],
  usage: 'ID',
  summary: 'print a transcript; --follow streams it live until Ctrl-C',
  details: 'With --json: an array of events, or with --follow one event per line.',
  options: [DATA_DIR_OPTION, flagOption('follow', 'keep streaming new events'), JSON_OPTION],
  arity: [1, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const id = context.args.positionals[0]!;
      const json = flag(context.args, 'json');
      const printer = new TranscriptPrinter(context.stdout, flag(context.args, 'follow'));
      if (flag(context.args, 'follow')) {
        // Following, --json prints one event per line as it comes.
        const print = (event: SessionEvent) =>
          json ? context.stdout.write(`${jsonForTerminal(event)}\n`) : printer.print(event);
        client.onEvent(print);
        const result = await client.call('sessions.follow', { id, after: 0 });
        if (failed(context, result)) return Exit.Error;
        if (!json) for (const line of sessionHeaderLines(result.value.session)) context.stdout.write(`${line}\n`);
        await new Promise<void>((done) => {
          client.onClose(done);
          process.once('SIGINT', done);
        });
        return Exit.Ok;
      }
      const session = await client.call('sessions.get', { id });
      if (failed(context, session)) return Exit.Error;
      const events: SessionEvent[] = [];
      let after = 0;
      for (;;) {
        const page = await client.call('sessions.events', { id, after, limit: 1000 });
        if (failed(context, page)) return Exit.Error;
        for (const raw of page.value.events) {
          const decoded = decodeEvent(raw);
          if (decoded.kind === 'event' && isSessionEvent(decoded.event)) events.push(decoded.event);
        }
        if (page.value.events.length < 1000) break;
        after = events[events.length - 1]?.seq ?? after;
      }
      if (json) printJson(context, events);
      else {
        const header = sessionHeaderLines(session.value.session);
        for (const line of header) context.stdout.write(`${line}\n`);
        if (header.length > 0) context.stdout.write('\n');
        for (const event of events) printer.print(event);
      }
      return Exit.Ok;
    }),
};

export const sessionsSendCommand: Command = {
  path: ['sessions', 'send'],
  usage: 'ID ["text"] [--attach FILE]…',
  summary: 'send a message, with photos or text files (queued until the current turn ends if a run is busy)',
  options: [DATA_DIR_OPTION, repeatedOption('attach', 'FILE', 'a photo (JPEG, PNG, WebP, GIF) or text file')],
  arity: [1, 2],
  run: (context) => {
    const [id, text = ''] = context.args.positionals as [string, string | undefined];
    const files = listOption(context.args, 'attach');
    // A usage error is one whether or not a host is running.
    if (text === '' && files.length === 0) {
      context.stderr.write('tether: say something, or attach a file with --attach FILE\n');
      return Promise.resolve(Exit.Usage);
    }
    return withClient(context, async (client) => {
      const attachments: string[] = [];
      for (const path of files) {
        const file = readFileToAttach(path);
        if (failed(context, file)) return Exit.Error;
        const uploaded = await uploadAttachment((method, params) => client.call(method, params), {
          sessionId: id,
          ...file.value,
          digest: (bytes) => Promise.resolve(createHash('sha256').update(bytes).digest('hex')),
        });
        if (failed(context, uploaded)) return Exit.Error;
        attachments.push(uploaded.value.id);
      }
      const result = await client.call('sessions.send', {
        id,
        text,
        ...(attachments.length > 0 ? { attachments } : {}),
      });
      if (failed(context, result)) return Exit.Error;
      if (result.value.session !== undefined) {
        context.stdout.write(`Cleared: it goes on in a new session.\n${result.value.session}\n`);
        return Exit.Ok;
      }
      if (!result.value.queued) {
        context.stdout.write('Sent.\n');
        return Exit.Ok;
      }
      // Queued behind a run, or held at the session's budget: say which.
      const now = await client.call('sessions.get', { id });
      const held =
        now.ok && now.value.session.activity?.budgetReached === true && now.value.session.status !== 'running';
      context.stdout.write(
        held
          ? `Held: the session is at its budget; raise it (tether sessions budget ${id} --tokens N) and it goes.\n`
          : 'Queued: it goes in when the current turn ends.\n',
      );
      return Exit.Ok;
    });
  },
};

export const sessionsInterruptCommand: Command = {
  path: ['sessions', 'interrupt'],
  usage: 'ID',
  summary: 'stop the running turn (the model stream and any running command)',
  options: [DATA_DIR_OPTION],
  arity: [1, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('sessions.interrupt', { id: context.args.positionals[0]! });
      if (failed(context, result)) return Exit.Error;
      context.stdout.write('Interrupted.\n');
      return Exit.Ok;
    }),
};

export const sessionsArchiveCommand: Command = {
  path: ['sessions', 'archive'],
  usage: 'ID',
  summary: 'hide a session from lists (--undo shows it again)',
  options: [
    DATA_DIR_OPTION,
    flagOption('undo', 'unarchive'),
    flagOption('remove-worktree', 'remove its worktree, unless it has uncommitted work'),
    flagOption('force', 'with --remove-worktree: even with uncommitted work (it is lost)'),
  ],
  arity: [1, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('sessions.archive', {
        id: context.args.positionals[0]!,
        archived: !flag(context.args, 'undo'),
        ...(flag(context.args, 'remove-worktree') ? { removeWorktree: true } : {}),
        ...(flag(context.args, 'force') ? { force: true } : {}),
      });
      if (failed(context, result)) return Exit.Error;
      return Exit.Ok;
    }),
};

export const sessionsAutoApproveCommand: Command = {
  path: ['sessions', 'auto-approve'],
  usage: 'ID on|off',
  summary: 'let a session act without asking (off by default; shown in its state)',
  options: [DATA_DIR_OPTION],
  arity: [2, 2],
  run: (context) => {
    const [id, value] = context.args.positionals as [string, string];
    if (value !== 'on' && value !== 'off') {
      context.stderr.write('tether sessions auto-approve: say on or off\n');
      return Promise.resolve(Exit.Usage);
    }
    return withClient(context, async (client) => {
      const result = await client.call('sessions.autoApprove', { id, enabled: value === 'on' });
      if (failed(context, result)) return Exit.Error;
      context.stdout.write(
        value === 'on'
          ? 'Auto-approve is on for this session: actions run without asking.\n'
          : 'Auto-approve is off.\n',
      );
      return Exit.Ok;
    });
  },
};

/** `--mode`, `--agent-model`, `--budget-tokens`, `--budget-usd` of `sessions new`, checked. */
function startSteering(
  context: CommandContext,
): Result<{ mode?: string; agentModel?: string; budget?: SessionBudget }> {
  const mode = stringOption(context.args, 'mode');
  const agentModel = stringOption(context.args, 'agent-model');
  const tokensText = stringOption(context.args, 'budget-tokens');
  const usdText = stringOption(context.args, 'budget-usd');
  const tokens = tokensText === undefined ? undefined : parseBudgetTokens(tokensText);
  if (tokensText !== undefined && tokens === undefined)
    return fail('invalid-params', '--budget-tokens takes a whole number');
  const usd = usdText === undefined ? undefined : parseBudgetUsd(usdText);
  if (usdText !== undefined && usd === undefined)
    return fail('invalid-params', '--budget-usd takes dollars (e.g. 2.50)');
  const budget =
    tokens !== undefined || usd !== undefined ? { ...(tokens ? { tokens } : {}), ...(usd ? { usd } : {}) } : undefined;
  return ok({
    ...(mode !== undefined ? { mode } : {}),
    ...(agentModel !== undefined ? { agentModel } : {}),
    ...(budget ? { budget } : {}),
  });
}
