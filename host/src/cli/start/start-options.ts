import { DEFAULT_MACHINE_WAIT_MINUTES, DEFAULT_MAX_MODEL_CALLS, fail, ok } from '@tether/shared-protocol';
import {
  DEFAULT_CONTEXT_WINDOW,
  MAX_CONTEXT_WINDOW,
  MIN_CONTEXT_WINDOW,
  parseContextWindow,
} from '../../models/context-window.js';
import type { Result } from '@tether/shared-protocol';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { resolveDataDir } from '../../config/data-dir.js';
import type { HostOptions } from '../../host.js';
import { relayUrls } from '../../relay/host-relay.js';
import { DEFAULT_PORT } from '../../remote/start-remote.js';
import type { OptionSpec, ParsedArgs } from '../args.js';
import { flag, listOption, stringOption } from '../args.js';
import { DATA_DIR_OPTION, JSON_OPTION } from '../common.js';
import { parseModelCallLimit } from '../commands/sessions-limit.js';
import { flagOption, repeatedOption, valueOption } from '../option.js';

/** Longest `--machine-wait`: a day. A run held longer for a machine has been forgotten by its person. */
export const MAX_MACHINE_WAIT_MINUTES = 24 * 60;

/** The options that only make sense when the host listens on a network address. */
const LISTEN_OPTIONS = ['bind', 'port', 'tls-cert', 'tls-key', 'tailscale-cert'];

export const START_OPTIONS: OptionSpec[] = [
  DATA_DIR_OPTION,
  valueOption(
    'model',
    'SPEC',
    'default model: anthropic:<model>, openai:<model>, openai-compatible:<model>@<url>, or demo',
  ),
  valueOption('mcp-config', 'FILE', 'MCP servers ({"mcpServers":{…}}); default <data-dir>/mcp.json'),
  valueOption('agents-config', 'FILE', 'ACP agents ({"agents":{…}}, docs/agents.md); default <data-dir>/agents.json'),
  valueOption('bind', 'WHERE', 'auto (default), tailscale, lan, or one private or loopback address'),
  valueOption('port', 'N', `port for phones (default ${DEFAULT_PORT}; 0 picks a free one)`),
  valueOption('tls-cert', 'FILE', 'serve HTTPS with this certificate (PEM)'),
  valueOption('tls-key', 'FILE', 'and this key (PEM)'),
  flagOption('tailscale-cert', "serve HTTPS with this computer's Tailscale certificate (renewed automatically)"),
  repeatedOption('root', 'DIR', 'a folder phones may start sessions in (default: your home folder)'),
  valueOption(
    'machine-wait',
    'MINUTES',
    `how long a session's call waits for an offline machine before its run stops (default ${DEFAULT_MACHINE_WAIT_MINUTES})`,
  ),
  valueOption('terminal-idle', 'MINUTES', 'close a terminal no device has been attached to for this long (default 30)'),
  valueOption('app-dir', 'DIR', 'serve the app from DIR instead of the built pwa/dist'),
  valueOption(
    'max-model-calls',
    'N',
    `model calls a run may make before it waits for "go on" (default ${DEFAULT_MAX_MODEL_CALLS}; sessions may set their own)`,
  ),
  valueOption(
    'context-window',
    'TOKENS',
    `the default model's context window (built in for Anthropic and OpenAI models; else ${DEFAULT_CONTEXT_WINDOW})`,
  ),
  repeatedOption(
    'relay',
    'URL',
    'keep a link to this relay (its https:// URL): phones anywhere reach this host through it; give it again (or a comma list) for spares, tried in turn',
  ),
  flagOption('relay-only', 'with --relay: listen on no network address at all, only the relay'),
  flagOption('no-keep-awake', 'let the computer sleep even while a run is active or a terminal attached'),
  JSON_OPTION,
];

/** What the host is started with, less the callbacks that print. */
export type HostSettings = Omit<
  HostOptions,
  'onNotice' | 'onPairRequest' | 'onPairSettled' | 'onRelayState' | 'onRelayHeld'
>;

export interface StartSettings {
  /** `--json`: one JSON object a line instead of text. */
  json: boolean;
  /** `--relay-only`: no network listener, the relay alone. */
  relayOnly: boolean;
  host: HostSettings;
}

/**
 * Checks `tether start`'s options and turns them into the host's settings. A refusal is an
 * `invalid-params` error whose message names the option (the CLI prints it and exits with 2).
 * `cwd`-relative folders are resolved here; nothing is read or written.
 */
export function readStartOptions(args: ParsedArgs, env: NodeJS.ProcessEnv): Result<StartSettings> {
  const portText = stringOption(args, 'port') ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) return fail('invalid-params', '--port takes a number from 0 to 65535');
  const limitText = stringOption(args, 'max-model-calls');
  const maxModelCalls = limitText === undefined ? undefined : parseModelCallLimit(limitText);
  if (maxModelCalls === null) return fail('invalid-params', '--max-model-calls takes a whole number from 1 to 100000');
  const windowText = stringOption(args, 'context-window');
  const contextWindow = windowText === undefined ? undefined : parseContextWindow(windowText);
  if (contextWindow === null) {
    return fail(
      'invalid-params',
      `--context-window takes a whole number of tokens from ${MIN_CONTEXT_WINDOW} to ${MAX_CONTEXT_WINDOW}`,
    );
  }
  const waitText = stringOption(args, 'machine-wait');
  if (waitText !== undefined && !(/^\d+(\.\d+)?$/.test(waitText) && Number(waitText) <= MAX_MACHINE_WAIT_MINUTES)) {
    return fail('invalid-params', `--machine-wait takes minutes, from 0 to ${MAX_MACHINE_WAIT_MINUTES}`);
  }
  const idleText = stringOption(args, 'terminal-idle');
  if (idleText !== undefined && !/^\d+$/.test(idleText)) {
    return fail('invalid-params', '--terminal-idle takes a whole number of minutes');
  }
  const relayGiven = listOption(args, 'relay');
  const relays = relayGiven.length > 0 ? relayUrls(relayGiven) : undefined;
  if (relays && !relays.ok) return relays;
  const relayOnly = flag(args, 'relay-only');
  if (relayOnly && relays === undefined) return fail('invalid-params', '--relay-only needs --relay URL');
  const listening = LISTEN_OPTIONS.find((name) => args.options[name] !== undefined);
  if (relayOnly && listening !== undefined) {
    return fail('invalid-params', `--relay-only listens on no address, so --${listening} does not apply`);
  }
  const model = stringOption(args, 'model');
  const mcpConfig = stringOption(args, 'mcp-config');
  const agentsConfig = stringOption(args, 'agents-config');
  const tlsCert = stringOption(args, 'tls-cert');
  const tlsKey = stringOption(args, 'tls-key');
  const appDir = stringOption(args, 'app-dir');
  const given = listOption(args, 'root').map((r) => resolve(r));
  const roots = given.length > 0 ? given : [homedir()];
  const demoDelay = env.TETHER_DEMO_DELAY_MS ? Number(env.TETHER_DEMO_DELAY_MS) : undefined;
  return ok({
    json: flag(args, 'json'),
    relayOnly,
    host: {
      dataDir: resolveDataDir(stringOption(args, 'data-dir'), env),
      env,
      ...(model !== undefined ? { model } : {}),
      ...(mcpConfig !== undefined ? { mcpConfig } : {}),
      ...(waitText !== undefined ? { machineWaitMs: Math.round(Number(waitText) * 60_000) } : {}),
      ...(agentsConfig !== undefined ? { agentsConfig } : {}),
      ...(demoDelay !== undefined && Number.isFinite(demoDelay) ? { demoDelayMs: demoDelay } : {}),
      ...(maxModelCalls !== undefined ? { maxModelCalls } : {}),
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(idleText !== undefined ? { terminalIdleMs: Number(idleText) * 60_000 } : {}),
      ...(flag(args, 'no-keep-awake') ? { keepAwake: { enabled: false } } : {}),
      roots,
      ...(relayOnly
        ? {}
        : {
            remote: {
              bind: stringOption(args, 'bind') ?? 'auto',
              port,
              ...(tlsCert !== undefined ? { tlsCert } : {}),
              ...(tlsKey !== undefined ? { tlsKey } : {}),
              tailscaleCert: flag(args, 'tailscale-cert'),
              roots,
              ...(appDir !== undefined ? { appDir: resolve(appDir) } : {}),
            },
          }),
      ...(relays !== undefined ? { relay: { urls: relays.value } } : {}),
    },
  });
}
