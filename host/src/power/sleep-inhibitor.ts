import { spawn } from 'node:child_process';

/**
 * A program that keeps the computer awake while it runs: `systemd-inhibit` on Linux, `caffeinate`
 * on macOS. Each is started holding its lock and stopped to let go; each also ends by itself
 * when the host's process is gone (it waits on the host's pid), so a host killed outright never
 * leaves the computer unable to sleep.
 */

export interface InhibitorCommand {
  /** What `tether status` calls it. */
  tool: string;
  file: string;
  args: string[];
}

/** The command for this platform, or why there is none. */
export function inhibitorFor(platform: NodeJS.Platform, hostPid: number): InhibitorCommand | string {
  if (platform === 'linux') {
    return {
      tool: 'systemd-inhibit',
      file: 'systemd-inhibit',
      args: [
        '--what=sleep:idle',
        '--who=Tether',
        '--why=A run or a terminal is active',
        '--mode=block',
        'tail',
        `--pid=${hostPid}`,
        '-f',
        '/dev/null',
      ],
    };
  }
  if (platform === 'darwin') return { tool: 'caffeinate', file: 'caffeinate', args: ['-i', '-w', String(hostPid)] };
  return `no sleep inhibitor is known on ${platform}`;
}

/** A started inhibitor: stop it to let go; `onEnd` hears when it ended by itself, and why. */
export interface RunningInhibitor {
  /** The process id, when it started. */
  pid: number | undefined;
  stop(): void;
  onEnd(listener: (why: string) => void): void;
}

/** Starts an inhibitor (the port tests replace). */
export type InhibitorSpawner = (command: InhibitorCommand) => RunningInhibitor;

/** Characters of the inhibitor's error output kept for `tether status`. */
const MAX_REASON_CHARS = 300;

/** The real spawner: a child process, its stderr kept for the reason it ended. */
export const spawnInhibitor: InhibitorSpawner = (command) => {
  const child = spawn(command.file, command.args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let stopped = false;
  let ended: string | undefined;
  const listeners: ((why: string) => void)[] = [];
  const end = (why: string) => {
    if (ended !== undefined) return;
    ended = why;
    if (!stopped) for (const listener of listeners) listener(why);
  };
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < MAX_REASON_CHARS) stderr += chunk.toString('utf8');
  });
  child.on('error', (error: NodeJS.ErrnoException) =>
    end(error.code === 'ENOENT' ? `${command.tool} is not installed` : `${command.tool}: ${error.message}`),
  );
  child.on('exit', (code, signal) => {
    const said = stderr.split('\n').find((line) => line.trim() !== '');
    end(
      `${command.tool} ended (${signal ?? `exit ${code}`})${said ? `: ${said.trim().slice(0, MAX_REASON_CHARS)}` : ''}`,
    );
  });
  return {
    pid: child.pid,
    stop: () => {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
    onEnd: (listener) => {
      if (ended !== undefined && !stopped) listener(ended);
      else listeners.push(listener);
    },
  };
};
