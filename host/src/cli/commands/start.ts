import {
  DEFAULT_DEVICE_SCOPES,
  DEFAULT_MACHINE_WAIT_MINUTES,
  DEFAULT_MAX_MODEL_CALLS,
  formatConfirmationCode,
  visibleText,
} from '@tether/shared-protocol';

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { resolveDataDir } from '../../config/data-dir.js';
import { Host } from '../../host.js';
import type { PairRequestInfo } from '../../gateway/pairing-service.js';
import { DEFAULT_PORT } from '../../remote/start-remote.js';
import { VERSION } from '../../version.js';
import { flag, listOption, stringOption } from '../args.js';
import { startApprovalNotice } from '../approval-lines.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, jsonForTerminal } from '../common.js';
import { describePairPage } from '../pair-page-text.js';
import { PairPrompt } from '../pair-prompt.js';
import { parseModelCallLimit } from './sessions-limit.js';
import { terminalQr } from '../terminal-qr.js';
import type { RelayLinkState } from '../../relay/relay-link.js';

/** Longest `--machine-wait`: a day. A run held longer for a machine has been forgotten by its person. */
const MAX_MACHINE_WAIT_MINUTES = 24 * 60;

export const startCommand: Command = {
  path: ['start'],
  summary: 'run the host in the foreground (Ctrl-C stops it)',
  details:
    'Without --model: Anthropic if ANTHROPIC_API_KEY is set, else OpenAI if OPENAI_API_KEY is set, else the built-in demo model.\n' +
    'It listens for phones on one address: Tailscale first, else a private LAN address (never a public one).\n' +
    'With --relay URL it also keeps a link to that relay, so phones on any network reach it; --relay-only listens on no address at all.\n' +
    'With --json, prints one JSON object per line: {"event":"ready",…}, then {"event":"listening",…}, then events;\n' +
    'with a relay, {"event":"relay","state":"linked","url":…,"pairUrl":…} each time the link is up.',
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
    {
      name: 'agents-config',
      type: 'string',
      value: 'FILE',
      description: 'ACP agents ({"agents":{…}}, see docs/agents.md); default <data-dir>/agents.json',
    },
    {
      name: 'bind',
      type: 'string',
      value: 'WHERE',
      description: 'auto (default), tailscale, lan, or one private or loopback address',
    },
    {
      name: 'port',
      type: 'string',
      value: 'N',
      description: `port for phones (default ${DEFAULT_PORT}; 0 picks a free one)`,
    },
    { name: 'tls-cert', type: 'string', value: 'FILE', description: 'serve HTTPS with this certificate (PEM)' },
    { name: 'tls-key', type: 'string', value: 'FILE', description: 'and this key (PEM)' },
    {
      name: 'tailscale-cert',
      type: 'boolean',
      description: "serve HTTPS with this computer's Tailscale certificate (renewed automatically)",
    },
    {
      name: 'root',
      type: 'list',
      value: 'DIR',
      description: 'a folder phones may start sessions in (default: your home folder)',
    },
    {
      name: 'machine-wait',
      type: 'string',
      value: 'MINUTES',
      description: `how long a session's call waits for an offline machine before its run stops (default ${DEFAULT_MACHINE_WAIT_MINUTES})`,
    },
    {
      name: 'terminal-idle',
      type: 'string',
      value: 'MINUTES',
      description: 'close a terminal no device has been attached to for this long (default 30)',
    },
    {
      name: 'app-dir',
      type: 'string',
      value: 'DIR',
      description: 'serve the app from DIR instead of the built pwa/dist',
    },
    {
      name: 'max-model-calls',
      type: 'string',
      value: 'N',
      description: `model calls a run may make before it waits for "go on" (default ${DEFAULT_MAX_MODEL_CALLS}; sessions may set their own)`,
    },
    {
      name: 'relay',
      type: 'string',
      value: 'URL',
      description: 'keep a link to this relay (its https:// URL): phones anywhere reach this host through it',
    },
    {
      name: 'relay-only',
      type: 'boolean',
      description: 'with --relay: listen on no network address at all, only the relay',
    },
    JSON_OPTION,
  ],
  arity: [0, 0],
  run: runStart,
};

async function runStart(context: CommandContext): Promise<number> {
  const { args, stdout, stderr, env } = context;
  const json = flag(args, 'json');
  const emit = (event: Record<string, unknown>) => stdout.write(`${jsonForTerminal(event)}\n`);
  const portText = stringOption(args, 'port') ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    stderr.write(`tether start: --port takes a number from 0 to 65535\n`);
    return Exit.Usage;
  }
  const limitText = stringOption(args, 'max-model-calls');
  const maxModelCalls = limitText === undefined ? undefined : parseModelCallLimit(limitText);
  if (maxModelCalls === null) {
    stderr.write('tether start: --max-model-calls takes a whole number from 1 to 100000\n');
    return Exit.Usage;
  }
  const model = stringOption(args, 'model');
  const mcpConfig = stringOption(args, 'mcp-config');
  const agentsConfig = stringOption(args, 'agents-config');
  const tlsCert = stringOption(args, 'tls-cert');
  const tlsKey = stringOption(args, 'tls-key');
  const appDir = stringOption(args, 'app-dir');
  const roots = listOption(args, 'root').map((r) => resolve(r));
  const waitText = stringOption(args, 'machine-wait');
  const machineWait = waitText === undefined ? undefined : Number(waitText);
  if (machineWait !== undefined && !(/^\d+(\.\d+)?$/.test(waitText!) && machineWait <= MAX_MACHINE_WAIT_MINUTES)) {
    stderr.write(`tether start: --machine-wait takes minutes, from 0 to ${MAX_MACHINE_WAIT_MINUTES}\n`);
    return Exit.Usage;
  }
  const idleText = stringOption(args, 'terminal-idle');
  if (idleText !== undefined && !/^\d+$/.test(idleText)) {
    stderr.write(`tether start: --terminal-idle takes a whole number of minutes\n`);
    return Exit.Usage;
  }
  const relayUrl = stringOption(args, 'relay');
  const relayOnly = flag(args, 'relay-only');
  if (relayOnly && relayUrl === undefined) {
    stderr.write('tether start: --relay-only needs --relay URL\n');
    return Exit.Usage;
  }
  const listenOptions = ['bind', 'port', 'tls-cert', 'tls-key', 'tailscale-cert'].filter(
    (name) => args.options[name] !== undefined,
  );
  if (relayOnly && listenOptions.length > 0) {
    stderr.write(`tether start: --relay-only listens on no address, so --${listenOptions[0]} does not apply\n`);
    return Exit.Usage;
  }
  const demoDelay = env.TETHER_DEMO_DELAY_MS ? Number(env.TETHER_DEMO_DELAY_MS) : undefined;
  const prompt = !json && process.stdin.isTTY === true ? new PairPrompt(process.stdin, stdout) : undefined;
  // The prompt answers through the host, which exists only once start returns.
  const late: { host?: Host; relayShown?: boolean } = {};
  const onRelayState = (state: RelayLinkState) => {
    const host = late.host;
    const relay = host?.relay;
    if (!host || !relay) return;
    if (state.name === 'linked') {
      const link = host.pairLink();
      const pairUrl = link.ok ? link.value.relay?.link : undefined;
      if (json) return emit({ event: 'relay', state: 'linked', url: relay.url, pairUrl });
      if (!relayOnly || late.relayShown || !pairUrl) return stdout.write(`Relay: ${relay.message()}.\n`);
      late.relayShown = true;
      stdout.write(
        `Linked to the relay at ${relay.url}. Scan with your phone's camera to pair, from any network (one device, valid 10 minutes; \`tether pair\` for another):\n\n`,
      );
      stdout.write(`${terminalQr(pairUrl, process.stdout.isTTY === true)}\n${pairUrl}\n\n`);
    } else if (state.name === 'waiting' || state.name === 'stopped') {
      if (json)
        return emit({
          event: 'relay',
          state: state.name,
          url: relay.url,
          code: state.error.code,
          reason: state.error.message,
        });
      stderr.write(`[${state.name === 'stopped' ? 'warning' : 'info'}] ${visibleText(relay.message())}\n`);
    }
  };
  const onPairRequest = (request: PairRequestInfo) => {
    if (json)
      return emit({
        event: 'pair.request',
        id: request.id,
        label: request.label,
        code: request.code,
        fingerprint: request.fingerprint,
        secure: request.secure,
        page: request.page,
        scopes: request.scopes,
      });
    if (prompt && late.host) return prompt.ask(request, late.host.gateway.pairing);
    const limited = request.scopes.length < DEFAULT_DEVICE_SCOPES.length;
    const why = !request.secure ? 'over plain HTTP' : "from a page this computer didn't serve";
    stdout.write(
      `Pair request ${request.id} from '${visibleText(request.label)}', code ${formatConfirmationCode(request.code)}. ${describePairPage(request.page).replace(/\n/g, ' ')}\nCheck the phone shows the same code, then: tether pair allow ${request.id}${limited ? ` (${why} it gets only ${request.scopes.join(', ')}; for more, only if you trust that page, add --scopes watch,approve,chat,terminal)` : ''}\n`,
    );
  };
  const started = await Host.start({
    dataDir: resolveDataDir(stringOption(args, 'data-dir'), env),
    env,
    ...(model !== undefined ? { model } : {}),
    ...(mcpConfig !== undefined ? { mcpConfig } : {}),
    ...(machineWait !== undefined ? { machineWaitMs: Math.round(machineWait * 60_000) } : {}),
    ...(agentsConfig !== undefined ? { agentsConfig } : {}),
    ...(demoDelay !== undefined && Number.isFinite(demoDelay) ? { demoDelayMs: demoDelay } : {}),
    ...(maxModelCalls !== undefined ? { maxModelCalls } : {}),
    ...(idleText !== undefined ? { terminalIdleMs: Number(idleText) * 60_000 } : {}),
    roots: roots.length > 0 ? roots : [homedir()],
    ...(relayOnly
      ? {}
      : {
          remote: {
            bind: stringOption(args, 'bind') ?? 'auto',
            port,
            ...(tlsCert !== undefined ? { tlsCert } : {}),
            ...(tlsKey !== undefined ? { tlsKey } : {}),
            tailscaleCert: flag(args, 'tailscale-cert'),
            roots: roots.length > 0 ? roots : [homedir()],
            ...(appDir !== undefined ? { appDir: resolve(appDir) } : {}),
          },
        }),
    ...(relayUrl !== undefined ? { relay: { url: relayUrl }, onRelayState } : {}),
    onNotice: (notice) =>
      json
        ? emit({ event: 'notice', level: notice.level, text: notice.text })
        : stderr.write(`[${notice.level}] ${visibleText(notice.text, { multiline: true })}\n`),
    onPairRequest,
    onPairSettled: (id) => (json ? emit({ event: 'pair.settled', id }) : prompt?.cancel(id)),
  });
  if (!started.ok) {
    stderr.write(`tether start: ${visibleText(started.error.message, { multiline: true })}\n`);
    return started.error.code === 'invalid-params' ? Exit.Usage : Exit.Error;
  }
  const host = started.value;
  late.host = host;
  const remote = host.listener;
  const link = host.pairLink();
  const pair = link.ok ? link.value : undefined;
  if (json) {
    emit({
      event: 'ready',
      hostId: host.hostId,
      dataDir: host.paths.dir,
      controlSocket: host.paths.controlSocket,
      model: host.defaultModel,
      version: VERSION,
    });
    if (remote && pair)
      emit({ event: 'listening', url: remote.url, pairUrl: pair.link, mode: remote.mode, expiresAt: pair.expiresAt });
    else
      emit({
        event: 'not-listening',
        reason: relayOnly ? 'relay only: listening on no network address' : host.reachMessage,
      });
  } else {
    stdout.write(
      [
        `Tether ${VERSION}: host ${host.hostId} is running.`,
        `  data dir   ${host.paths.dir}`,
        `  model      ${host.defaultModel}${host.defaultModel === 'demo' ? ' (built in; set ANTHROPIC_API_KEY or OPENAI_API_KEY, or use --model, for a real one)' : ''}`,
        `  phones     ${remote ? remote.url : host.relay ? `through the relay at ${host.relay.url} only` : 'none can reach this host yet'}`,
        ...(host.relay && remote ? [`  relay      ${host.relay.url}`] : []),
        '',
      ].join('\n'),
    );
    if (!remote && relayOnly) stdout.write('Linking to the relay…\n');
    else if (!remote)
      stdout.write(
        `${visibleText(host.reachMessage, { multiline: true })}\nSessions and the local CLI work: tether sessions new "hello"\n`,
      );
    else {
      if (!remote.secureChannel) {
        stdout.write(
          'Plain HTTP: nobody listening on the network can read anything (all traffic after the app page is sealed),\n' +
            'but someone able to change traffic on it (a hostile Wi-Fi, ARP spoofing) can serve the phone a different\n' +
            'app page. So new phones may only follow sessions and answer approvals unless you allow more here\n' +
            '(tether pair allow ID --scopes …), and the app cannot be installed, notify or use its camera.\n' +
            'Serve HTTPS instead: --tailscale-cert (with Tailscale), --tls-cert/--tls-key, or a relay. See docs/security.md.\n\n',
        );
      }
      stdout.write(
        `Scan with your phone's camera to pair (one device, valid 10 minutes; \`tether pair\` for another):\n\n`,
      );
      stdout.write(`${terminalQr(pair!.link, process.stdout.isTTY === true)}\n${pair!.link}\n\n`);
    }
    host.log.subscribe('start prompt', (event) => {
      if (event.type === 'approval.requested') stdout.write(startApprovalNotice(event.approval));
    });
  }
  const running = host;
  await new Promise<void>((done) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        stderr.write(`tether: ${signal} again, exiting at once\n`);
        process.exit(Exit.Error);
      }
      stopping = true;
      prompt?.close();
      if (!json) stdout.write(`\nStopping (${signal}): interrupting runs and closing the store…\n`);
      void running.close().then(() => {
        if (json) emit({ event: 'stopped' });
        done();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return Exit.Ok;
}
