import { visibleText } from '@tether/shared-protocol';
import { Host } from '../../host.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { PairPrompt } from '../pair-prompt.js';
import { START_OPTIONS, readStartOptions } from '../start/start-options.js';
import { StartReport } from '../start/start-report.js';
import type { SignalSource } from '../start/stop-signals.js';
import { PROCESS_SIGNALS, waitForStop } from '../start/stop-signals.js';

export const startCommand: Command = {
  path: ['start'],
  summary: 'run the host in the foreground (Ctrl-C stops it)',
  details:
    'Without --model: Anthropic if ANTHROPIC_API_KEY is set, else OpenAI if OPENAI_API_KEY is set, else the built-in demo model.\n' +
    'It listens for phones on one address: Tailscale first, else a private LAN address (never a public one).\n' +
    'With --relay URL it also keeps a link to that relay, so phones on any network reach it; --relay-only listens on no address at all.\n' +
    'With --json, prints one JSON object per line: {"event":"ready",…}, then {"event":"listening",…}, then events;\n' +
    'with a relay, {"event":"relay","state":"linked","url":…,"pairUrl":…} each time the link is up.',
  options: START_OPTIONS,
  arity: [0, 0],
  run: (context) => runStart(context),
};

/**
 * `tether start`, step by step: read the options, start the host (which makes its data dir),
 * say where phones reach it, then run until a signal. Every failure comes back as an exit code.
 */
export async function runStart(context: CommandContext, signals: SignalSource = PROCESS_SIGNALS): Promise<number> {
  const { args, stdout, stderr, env } = context;
  const settings = readStartOptions(args, env);
  if (!settings.ok) {
    stderr.write(`tether start: ${settings.error.message}\n`);
    return Exit.Usage;
  }
  const { json, relayOnly } = settings.value;
  const prompt = !json && process.stdin.isTTY === true ? new PairPrompt(process.stdin, stdout) : undefined;
  const report = new StartReport({
    stdout,
    stderr,
    json,
    relayOnly,
    tty: process.stdout.isTTY === true,
    ...(prompt ? { prompt } : {}),
  });
  const started = await Host.start({
    ...settings.value.host,
    ...(settings.value.host.relay
      ? { onRelayState: (state) => report.relayState(state), onRelayHeld: (entry) => report.relayHeld(entry) }
      : {}),
    onNotice: (notice) => report.notice(notice),
    onPairRequest: (request) => report.pairRequest(request),
    onPairSettled: (id) => report.pairSettled(id),
  });
  if (!started.ok) {
    prompt?.close();
    stderr.write(`tether start: ${visibleText(started.error.message, { multiline: true })}\n`);
    return started.error.code === 'invalid-params' ? Exit.Usage : Exit.Error;
  }
  const host = started.value;
  report.attach(host);
  report.ready(host);
  await waitForStop(
    signals,
    {
      stopping: (signal) => {
        prompt?.close();
        report.stopping(signal);
      },
      close: async () => {
        await host.close();
        report.stopped();
      },
      again: (signal) => stderr.write(`tether: ${signal} again, exiting at once\n`),
    },
    Exit.Error,
  );
  return Exit.Ok;
}
