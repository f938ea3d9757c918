import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { visibleText } from '@tether/shared-protocol';
import type { AgentState, CommandRunner, ServiceOutcome } from '@tether/machine';
import {
  checkSharedRoots,
  describeState,
  installService,
  machinePaths,
  privatePaths,
  readTokenFile,
  resolveMachineDir,
  servicePlan,
  shareStatus,
  startShare,
  uninstallService,
} from '@tether/machine';
import { flag, listOption, optionWords, stringOption } from '../args.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { JSON_OPTION, ago, jsonForTerminal, printJson } from '../common.js';
import { VERSION } from '../../version.js';
import { flagOption, repeatedOption, valueOption } from '../option.js';

/** Exit code of a share the pinned host refused for good, sealed (a revoked token): not a crash. */
export const EXIT_REFUSED = 3;

const MACHINE_DIR_OPTION = {
  name: 'machine-dir',
  type: 'string' as const,
  value: 'DIR',
  description: "this machine's data dir (default: $TETHER_MACHINE_DIR, else ~/.local/share/tether-machine)",
};

export const machineShareCommand: Command = {
  path: ['machine', 'share'],
  summary: "lend this computer's shell and folders to a host, in the foreground or as a background service",
  details:
    'The host can run commands, read and write files and run background tasks inside the --root folders,\n' +
    "never outside them, and never in credential folders (~/.ssh, ~/.aws, …) or Tether's own data.\n" +
    "The token is read from --token-file (owner-only), never from the command line. The host's key is pinned\n" +
    'on first contact (or given with --host-key); a host whose key changes is refused (never sent the token)\n' +
    'and dialled again later. Only a sealed refusal from the pinned host (a revoked token) stops the share.\n' +
    `Exit codes: 0 stopped, 1 error, 2 usage, ${EXIT_REFUSED} refused for good by the host.`,
  options: [
    valueOption('host', 'URL', "the host's address, as `tether start` prints it"),
    valueOption('token-file', 'FILE', 'a file holding the token from `tether token create`'),
    valueOption('name', 'NAME', "this machine's name on the host (default: laptop)"),
    repeatedOption('root', 'DIR', 'a folder to share'),
    { ...valueOption('host-key', 'KEY', "the host's key, to check it on first contact"), dashValue: /^[\w-]{43}$/ },
    MACHINE_DIR_OPTION,
    flagOption('install-service', 'keep sharing in the background (systemd user unit or launchd agent)'),
    flagOption('uninstall-service', 'stop and remove that background service'),
    flagOption('service', 'run as the background service does: a sealed refusal for good exits 0'),
    JSON_OPTION,
  ],
  arity: [0, 0],
  run: runShare,
};

export interface ShareArgs {
  host: string;
  tokenFile: string;
  name: string;
  roots: string[];
  hostKey: string | undefined;
  dir: string;
}

/**
 * What the background service runs after `tether machine share`: the same share, each value
 * spelled so it reads back as given (a host key or a name that starts with a dash as `--key=…`).
 */
export function serviceArgs(share: ShareArgs): string[] {
  return [
    '--host',
    share.host,
    '--token-file',
    share.tokenFile,
    ...optionWords('name', share.name),
    ...share.roots.flatMap((root) => ['--root', root]),
    ...(share.hostKey !== undefined ? optionWords('host-key', share.hostKey) : []),
    '--machine-dir',
    share.dir,
    '--service',
  ];
}

function shareArgs(context: CommandContext): ShareArgs | string {
  const { args, env } = context;
  const host = stringOption(args, 'host');
  const tokenFile = stringOption(args, 'token-file');
  const roots = listOption(args, 'root');
  if (!host) return '--host URL is needed (the address `tether start` prints on the host)';
  if (!tokenFile) return '--token-file FILE is needed (the token is never taken on the command line)';
  if (roots.length === 0) return 'share at least one folder: --root DIR';
  const home = env.HOME ?? homedir();
  const expand = (path: string) => resolve(path.startsWith('~/') ? `${home}${path.slice(1)}` : path);
  return {
    host,
    tokenFile: expand(tokenFile),
    name: stringOption(args, 'name') ?? 'laptop',
    roots: roots.map(expand),
    hostKey: stringOption(args, 'host-key'),
    dir: resolveMachineDir(stringOption(args, 'machine-dir'), env),
  };
}

async function runShare(context: CommandContext): Promise<number> {
  const { stdout, stderr, args } = context;
  const parsed = shareArgs(context);
  // Removing the service needs only its name.
  if (flag(args, 'uninstall-service')) return service(context, typeof parsed === 'string' ? undefined : parsed);
  if (typeof parsed === 'string') {
    stderr.write(`tether machine share: ${parsed}\n`);
    return Exit.Usage;
  }
  if (flag(args, 'install-service')) return service(context, parsed);
  const json = flag(args, 'json');
  const emit = (event: Record<string, unknown>) => stdout.write(`${jsonForTerminal(event)}\n`);
  const started = await startShare({
    hostUrl: parsed.host,
    tokenFile: parsed.tokenFile,
    name: parsed.name,
    roots: parsed.roots,
    dir: parsed.dir,
    ...(parsed.hostKey !== undefined ? { hostKey: parsed.hostKey } : {}),
    version: VERSION,
    env: context.env,
    onNotice: (text) => (json ? emit({ event: 'notice', text }) : stdout.write(`${visibleText(text)}\n`)),
    onState: (state: AgentState) => {
      if (json) return emit({ event: 'state', ...state });
      if (state.name === 'connecting' && state.attempt > 0) return;
      stdout.write(`${visibleText(describeState(state, parsed.host, Date.now()))}\n`);
    },
  });
  if (!started.ok) {
    stderr.write(`tether machine share: ${visibleText(started.error.message)}\n`);
    return started.error.code === 'invalid-params' ? Exit.Usage : Exit.Error;
  }
  const share = started.value;
  if (json) emit({ event: 'sharing', machineId: share.machineId, roots: share.roots, pid: process.pid });
  else stdout.write(`Sharing ${share.roots.join(', ')} as ${parsed.name} (${share.machineId}). Ctrl-C stops.\n`);
  const onSignal = () => void share.stop();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const final = await share.done;
  await share.stop();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (!final.forGood) return Exit.Ok;
  stderr.write(`tether machine share: ${visibleText(final.why)}\n`);
  return flag(args, 'service') ? Exit.Ok : EXIT_REFUSED;
}

const runCommand: CommandRunner = (command) =>
  new Promise((done) => {
    execFile(command[0]!, command.slice(1), { timeout: 30_000 }, (error, out, err) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${out}${err}` }),
    );
  });

/** `--install-service` / `--uninstall-service`. */
async function service(
  context: CommandContext,
  parsed: ShareArgs | undefined,
  run: CommandRunner = runCommand,
): Promise<number> {
  const { stdout, stderr, args, env } = context;
  const name = parsed?.name ?? stringOption(args, 'name') ?? 'laptop';
  const home = env.HOME ?? homedir();
  const dir = parsed?.dir ?? resolveMachineDir(stringOption(args, 'machine-dir'), env);
  let command: string[] = [];
  if (parsed && flag(args, 'install-service')) {
    // Checked now, not when the service first starts where nobody reads its errors.
    const token = readTokenFile(parsed.tokenFile);
    if (!token.ok) {
      stderr.write(`tether machine share: ${visibleText(token.error.message)}\n`);
      return Exit.Error;
    }
    const roots = await checkSharedRoots(parsed.roots, privatePaths({ env, extra: [dir, parsed.tokenFile] }));
    if (!roots.ok) {
      stderr.write(`tether machine share: ${visibleText(roots.error.message)}\n`);
      return Exit.Error;
    }
    command = [
      process.execPath,
      realpathSync(process.argv[1]!),
      'machine',
      'share',
      ...serviceArgs({ ...parsed, roots: roots.value }),
    ];
  }
  const plan = servicePlan({
    name,
    command,
    home,
    platform: process.platform,
    env: { PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: home },
    logFile: `${machinePaths(dir).dir}/service.log`,
    uid: process.getuid?.() ?? 0,
  });
  if (!plan.ok) {
    stderr.write(`tether machine share: ${visibleText(plan.error.message)}\n`);
    return Exit.Error;
  }
  const installing = flag(args, 'install-service');
  const outcome: ServiceOutcome = installing
    ? await installService(plan.value, run)
    : await uninstallService(plan.value, run);
  if (flag(args, 'json')) {
    printJson(context, { service: plan.value.kind, file: plan.value.file, ...outcome });
    return outcome.done ? Exit.Ok : Exit.Error;
  }
  if (outcome.done) {
    stdout.write(
      installing
        ? [`Installed ${plan.value.file}; ${name} is now shared in the background.`, ...plan.value.advice, ''].join(
            '\n',
          )
        : `Removed ${plan.value.file}; the background share is stopped.\n`,
    );
    return Exit.Ok;
  }
  stdout.write(
    [
      installing
        ? `Wrote ${plan.value.file}, but could not enable it here (${outcome.manual?.why}).`
        : `Could not stop the service here (${outcome.manual?.why}).`,
      'Run these yourself:',
      ...(outcome.manual?.commands ?? []).map((c) => `  ${c}`),
      '',
    ].join('\n'),
  );
  return Exit.Error;
}

export const machineStatusCommand: Command = {
  path: ['machine', 'status'],
  summary: 'whether this computer is shared: linked or not, to which host, since when',
  options: [MACHINE_DIR_OPTION, JSON_OPTION],
  arity: [0, 0],
  run: (context) => {
    const status = shareStatus(resolveMachineDir(stringOption(context.args, 'machine-dir'), context.env));
    if (flag(context.args, 'json')) {
      printJson(context, status);
      return Promise.resolve(Exit.Ok);
    }
    const lines =
      status.state === null
        ? [status.message]
        : [
            `${status.name ?? '?'} (${status.machineId ?? '?'}): ${status.running ? status.state : 'not running'}${
              status.host ? ` — host ${status.host}` : ''
            }`,
            `${status.message}${status.since !== null ? ` (since ${ago(status.since)})` : ''}`,
          ];
    context.stdout.write(`${lines.map((l) => visibleText(l)).join('\n')}\n`);
    return Promise.resolve(Exit.Ok);
  },
};
