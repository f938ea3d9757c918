import { resolveDataDir } from '../../config/data-dir.js';
import { Host } from '../../host.js';
import { VERSION } from '../../version.js';
import { flag, stringOption } from '../args.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION } from '../common.js';

export const startCommand: Command = {
  path: ['start'],
  summary: 'run the host in the foreground (Ctrl-C stops it)',
  details:
    'Without --model: Anthropic if ANTHROPIC_API_KEY is set, else OpenAI if OPENAI_API_KEY is set, else the built-in demo model.\n' +
    'With --json, prints one JSON object per line, the first {"event":"ready",…}.',
  options: [
    DATA_DIR_OPTION,
    {
      name: 'model',
      type: 'string',
      value: 'SPEC',
      description: 'default model: anthropic:<model>, openai:<model>, openai-compatible:<model>@<url>, or demo',
    },
    {
      name: 'mcp-config',
      type: 'string',
      value: 'FILE',
      description: 'MCP servers ({"mcpServers":{…}}); default <data-dir>/mcp.json',
    },
    JSON_OPTION,
  ],
  arity: [0, 0],
  run: runStart,
};

async function runStart(context: CommandContext): Promise<number> {
  const { args, stdout, stderr, env } = context;
  const json = flag(args, 'json');
  const emit = (event: Record<string, unknown>) => stdout.write(`${JSON.stringify(event)}\n`);
  const model = stringOption(args, 'model');
  const mcpConfig = stringOption(args, 'mcp-config');
  const demoDelay = env.TETHER_DEMO_DELAY_MS ? Number(env.TETHER_DEMO_DELAY_MS) : undefined;
  const started = await Host.start({
    dataDir: resolveDataDir(stringOption(args, 'data-dir'), env),
    env,
    ...(model !== undefined ? { model } : {}),
    ...(mcpConfig !== undefined ? { mcpConfig } : {}),
    ...(demoDelay !== undefined && Number.isFinite(demoDelay) ? { demoDelayMs: demoDelay } : {}),
    onNotice: (notice) =>
      json
        ? emit({ event: 'notice', level: notice.level, text: notice.text })
        : stderr.write(`[${notice.level}] ${notice.text}\n`),
  });
  if (!started.ok) {
    stderr.write(`tether start: ${started.error.message}\n`);
    return started.error.code === 'invalid-params' ? Exit.Usage : Exit.Error;
  }
  const host = started.value;
  if (json) {
    emit({
      event: 'ready',
      hostId: host.hostId,
      dataDir: host.paths.dir,
      controlSocket: host.paths.controlSocket,
      model: host.defaultModel,
      version: VERSION,
    });
  } else {
    stdout.write(
      [
        `Tether ${VERSION}: host ${host.hostId} is running.`,
        `  data dir   ${host.paths.dir}`,
        `  model      ${host.defaultModel}${host.defaultModel === 'demo' ? ' (built in; set ANTHROPIC_API_KEY or OPENAI_API_KEY, or use --model, for a real one)' : ''}`,
        `  try        tether sessions new "hello"   then   tether sessions show <id> --follow`,
        '',
      ].join('\n'),
    );
    host.log.subscribe((event) => {
      if (event.type === 'approval.requested') {
        const a = event.approval;
        const first = a.action.split('\n')[0] ?? '';
        stdout.write(
          `approval ${a.id} (${a.kind}) in session ${a.sessionId}: ${first}\n  answer: tether approve ${a.id} allow|deny\n`,
        );
      }
    });
  }
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        stderr.write(`tether: ${signal} again, exiting at once\n`);
        process.exit(Exit.Error);
      }
      stopping = true;
      if (!json) stdout.write(`\nStopping (${signal}): interrupting runs and closing the store…\n`);
      void host.close().then(() => {
        if (json) emit({ event: 'stopped' });
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return Exit.Ok;
}
