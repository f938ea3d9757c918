import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';

/**
 * `tether machine share … --install-service`: the share as a background service of the user, so
 * the machine stays lent after a logout or a reboot. A systemd user unit on Linux, a launchd agent
 * on macOS. Writing the file is done here; enabling it is a command the person could type, run
 * through an injected runner, and printed instead when it cannot run (no user session bus, say).
 */
export interface ServiceSpec {
  /** The machine's name: part of the unit's name. */
  name: string;
  /** The whole command line the service runs: node, the tether CLI, `machine share …`. */
  command: readonly string[];
  home: string;
  platform: NodeJS.Platform;
  /** Environment the service starts with (PATH, so the commands it runs find their tools). */
  env: Readonly<Record<string, string>>;
  /** Where its output goes (launchd; systemd keeps it in the journal). */
  logFile: string;
  uid: number;
}

export interface ServicePlan {
  kind: 'systemd' | 'launchd';
  /** The file written, and its contents. */
  file: string;
  content: string;
  install: string[][];
  uninstall: string[][];
  /** Said after installing: how to see its logs, how to keep it up while logged out. */
  advice: string[];
}

/** Commands run by the service manager: `run` gives the exit code and output of one. */
export type CommandRunner = (command: readonly string[]) => Promise<{ code: number; output: string }>;

export function servicePlan(spec: ServiceSpec): Result<ServicePlan> {
  if (spec.platform === 'linux') {
    const unit = `tether-machine-${spec.name}.service`;
    const file = join(spec.home, '.config', 'systemd', 'user', unit);
    const environment = Object.entries(spec.env).map(([k, v]) => `Environment=${systemdQuote(`${k}=${v}`)}`);
    const content = [
      '[Unit]',
      `Description=Tether machine ${spec.name}: lends this computer to a Tether host`,
      'After=network-online.target',
      'Wants=network-online.target',
      '',
      '[Service]',
      `ExecStart=${spec.command.map(systemdQuote).join(' ')}`,
      ...environment,
      // Only a sealed refusal from the pinned host (a revoked token) exits 0 under --service: it stays
      // stopped. Nothing else ends the share but a signal; a crash exits non-zero and is restarted.
      'Restart=on-failure',
      'RestartSec=10',
      '',
      '[Install]',
      'WantedBy=default.target',
      '',
    ].join('\n');
    return ok({
      kind: 'systemd',
      file,
      content,
      install: [
        ['systemctl', '--user', 'daemon-reload'],
        ['systemctl', '--user', 'enable', '--now', unit],
      ],
      uninstall: [
        ['systemctl', '--user', 'disable', '--now', unit],
        ['systemctl', '--user', 'daemon-reload'],
      ],
      advice: [
        `Its output: journalctl --user -u ${unit}`,
        'To keep it running while you are logged out: loginctl enable-linger',
      ],
    });
  }
  if (spec.platform === 'darwin') {
    const label = `dev.tether.machine.${spec.name}`;
    const file = join(spec.home, 'Library', 'LaunchAgents', `${label}.plist`);
    const strings = (values: readonly string[]) => values.map((s) => `    <string>${xmlEscape(s)}</string>`);
    const env = Object.entries(spec.env).flatMap(([k, v]) => [
      `    <key>${xmlEscape(k)}</key>`,
      `    <string>${xmlEscape(v)}</string>`,
    ]);
    const content = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
      '<plist version="1.0">',
      '<dict>',
      '  <key>Label</key>',
      `  <string>${xmlEscape(label)}</string>`,
      '  <key>ProgramArguments</key>',
      '  <array>',
      ...strings(spec.command),
      '  </array>',
      '  <key>EnvironmentVariables</key>',
      '  <dict>',
      ...env,
      '  </dict>',
      '  <key>RunAtLoad</key>',
      '  <true/>',
      // Restarted when it fails; a refusal for good exits 0 under --service and stays stopped.
      '  <key>KeepAlive</key>',
      '  <dict>',
      '    <key>SuccessfulExit</key>',
      '    <false/>',
      '  </dict>',
      '  <key>ThrottleInterval</key>',
      '  <integer>10</integer>',
      '  <key>StandardOutPath</key>',
      `  <string>${xmlEscape(spec.logFile)}</string>`,
      '  <key>StandardErrorPath</key>',
      `  <string>${xmlEscape(spec.logFile)}</string>`,
      '</dict>',
      '</plist>',
      '',
    ].join('\n');
    return ok({
      kind: 'launchd',
      file,
      content,
      install: [['launchctl', 'bootstrap', `gui/${spec.uid}`, file]],
      uninstall: [['launchctl', 'bootout', `gui/${spec.uid}/${label}`]],
      advice: [`Its output: ${spec.logFile}`],
    });
  }
  return fail(
    'unsupported',
    `no background service on ${spec.platform}: run tether machine share in a terminal or your own service manager`,
  );
}

export interface ServiceOutcome {
  /** Whether every command ran and succeeded. */
  done: boolean;
  /** When not: the exact commands for the person to run, and why they were not run here. */
  manual?: { commands: string[]; why: string };
}

/** Writes the service file and enables it; or says exactly what to run when that fails. */
export async function installService(plan: ServicePlan, run: CommandRunner): Promise<ServiceOutcome> {
  await mkdir(dirname(plan.file), { recursive: true });
  await writeFile(plan.file, plan.content, { mode: 0o600 });
  return runAll(plan.install, run);
}

export async function uninstallService(plan: ServicePlan, run: CommandRunner): Promise<ServiceOutcome> {
  const outcome = await runAll(plan.uninstall, run);
  await rm(plan.file, { force: true });
  return outcome;
}

async function runAll(commands: readonly string[][], run: CommandRunner): Promise<ServiceOutcome> {
  for (const [index, command] of commands.entries()) {
    let result: { code: number; output: string };
    try {
      result = await run(command);
    } catch (error) {
      result = { code: -1, output: error instanceof Error ? error.message : String(error) };
    }
    if (result.code !== 0) {
      return {
        done: false,
        manual: {
          commands: commands.slice(index).map(shellLine),
          why: `${command.join(' ')} failed: ${result.output.trim().split('\n')[0] ?? `exit ${result.code}`}`,
        },
      };
    }
  }
  return { done: true };
}

/** One argument for systemd's ExecStart/Environment: quoted, with its specifiers escaped. */
export function systemdQuote(arg: string): string {
  const escaped = arg.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? escaped : `"${escaped}"`;
}

/** A command as a POSIX shell line (for printing). */
export function shellLine(command: readonly string[]): string {
  return command.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
