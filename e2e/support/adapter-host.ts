import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEntry } from './acp-adapters.js';
import { removeScratch, scratchDir } from './acp-adapters.js';
import type { HostProcess } from './host-process.js';
import { hostDataDir, startHost, tether, tetherJson } from './host-process.js';
import type { FollowedEvent, SessionFollow } from './session-follow.js';
import { followSession } from './session-follow.js';

/**
 * A real `tether start` whose agents.json names real ACP adapters, driven through the control CLI
 * as a person at the computer would: `tether sessions new --agent`, `tether approve`, `tether
 * sessions send` and `interrupt`, and each session followed with `tether sessions show --follow
 * --json`. Its data dir, the session folder and the agents' homes lie outside `/tmp` (see
 * scratchDir). It can be restarted on the same data dir.
 */
export interface AdapterHost {
  dir: string;
  dataDir: string;
  /** The session folder; under the host's only root. */
  project: string;
  process: HostProcess;
  /** Stops the host (SIGTERM) and starts it again on the same data dir. */
  restart(): Promise<void>;
  /** A session of `agent` in the session folder (or `cwd`), started with `text`. */
  newSession(agent: string, text: string, cwd?: string): Promise<{ id: string; follow: SessionFollow }>;
  /** Follows a session again (after a restart: the old follower's connection went with the host). */
  follow(id: string): SessionFollow;
  send(id: string, text: string): Promise<void>;
  interrupt(id: string): Promise<void>;
  approve(approvalId: string, answer: 'allow' | 'deny', ...flags: string[]): Promise<void>;
  /** Any `tether …` command against this host; its stdout. */
  cli(args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export type Approval = { id: string; action: string; kind: string; always?: string; status: string };

/**
 * `home`: a home folder of the test's own (under the scratch folder) that the host runs with as
 * `HOME`, and the session folder and only root (a session "in ~"), instead of a project folder in
 * the data dir.
 */
export interface AdapterHostOptions {
  home?: (dir: string) => string;
}

export async function startAdapterHost(
  agents: (dir: string) => Record<string, AgentEntry>,
  options: AdapterHostOptions = {},
): Promise<AdapterHost> {
  const dir = scratchDir('adapters-');
  const dataDir = join(dir, 'data');
  const home = options.home?.(dir);
  const project = home ?? join(dataDir, 'project');
  mkdirSync(project, { recursive: true });
  mkdirSync(hostDataDir(dataDir), { recursive: true, mode: 0o700 });
  writeFileSync(join(hostDataDir(dataDir), 'agents.json'), JSON.stringify({ agents: agents(dir) }));
  const follows: SessionFollow[] = [];
  const start = () =>
    startHost(dataDir, ['--root', home ?? dataDir], {
      TETHER_DEMO_DELAY_MS: '10',
      ...(home !== undefined ? { HOME: home } : {}),
    });
  const cli = async (args: string[]) => {
    const result = await tether(dataDir, args);
    if (result.code !== 0) throw new Error(`tether ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
    return result.stdout;
  };
  const host: AdapterHost = {
    dir,
    dataDir,
    project,
    process: await start(),
    restart: async () => {
      await host.process.stop();
      host.process = await start();
    },
    newSession: async (agent, text, cwd = project) => {
      const session = await tetherJson<{ id: string }>(dataDir, [
        'sessions',
        'new',
        '--agent',
        agent,
        '--cwd',
        cwd,
        text,
      ]);
      return { id: session.id, follow: host.follow(session.id) };
    },
    follow: (id) => {
      const follow = followSession(dataDir, id);
      follows.push(follow);
      return follow;
    },
    send: async (id, text) => void (await cli(['sessions', 'send', id, text])),
    interrupt: async (id) => void (await cli(['sessions', 'interrupt', id])),
    approve: async (approvalId, answer, ...flags) => void (await cli(['approve', approvalId, answer, ...flags])),
    cli,
    stop: async () => {
      for (const follow of follows) follow.stop();
      await host.process.stop();
      removeScratch(dir);
    },
  };
  return host;
}

/** The `nth` approval the session raised (1: the first). */
export async function nthApproval(follow: SessionFollow, nth = 1): Promise<Approval> {
  const event = await follow.waitFor((e) => e.type === 'approval.requested', { nth });
  return event.approval as Approval;
}

/** The `nth` end of a run (1: the first). */
export async function runEnd(follow: SessionFollow, nth = 1): Promise<FollowedEvent & { status: string }> {
  return (await follow.waitFor((e) => e.type === 'run.finished', { nth })) as FollowedEvent & { status: string };
}

export function eventsOfType(follow: SessionFollow, type: string): FollowedEvent[] {
  return follow.events.filter((e) => e.type === type);
}

/** The assistant's whole messages, joined. */
export function assistantText(follow: SessionFollow): string {
  return eventsOfType(follow, 'message')
    .filter((e) => e.role === 'assistant')
    .map((e) => String(e.text))
    .join('\n');
}
