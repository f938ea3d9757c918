import type { AgentInfo, Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { AgentSpec } from './agent-config.js';
import { setupHint } from './agent-setup.js';

/** Where `command` is: itself when it names a path, else the first match on `PATH`. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const executable = (path: string) => {
    try {
      if (!statSync(path).isFile()) return false;
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes('/')) return isAbsolute(command) && executable(command) ? command : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const path = join(dir, command);
    if (executable(path)) return path;
  }
  return undefined;
}

/** The program and its arguments in one line, for people (quoted where a space would mislead). */
export function commandLine(spec: Pick<AgentSpec, 'command' | 'args'>): string {
  return [spec.command, ...spec.args]
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word)))
    .join(' ');
}

/**
 * The configured ACP agents and whether each can be started: its command must be found (looked up
 * anew each time, so installing an adapter needs no restart).
 */
export class AgentCatalog {
  constructor(
    private readonly specs: readonly AgentSpec[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly find: (command: string, env: NodeJS.ProcessEnv) => string | undefined = findOnPath,
  ) {}

  list(): AgentInfo[] {
    return this.specs.map((spec) => this.info(spec));
  }

  /** Only those that can be started now. */
  available(): AgentInfo[] {
    return this.list().filter((agent) => agent.available);
  }

  get(name: string): AgentSpec | undefined {
    return this.specs.find((spec) => spec.name === name);
  }

  /** The agent, when it is configured and its command is found. */
  check(name: string): Result<AgentSpec> {
    const spec = this.get(name);
    if (!spec) {
      const names = this.specs.map((s) => s.name).join(', ');
      return fail(
        'invalid-params',
        `no agent named ${name} is configured on this host (there are: ${names || 'none'})`,
      );
    }
    const info = this.info(spec);
    return info.available ? ok(spec) : fail('unavailable', `the agent ${name} cannot be started: ${info.reason}`);
  }

  private info(spec: AgentSpec): AgentInfo {
    const found = this.find(spec.command, this.env);
    return {
      name: spec.name,
      title: spec.title,
      command: commandLine(spec),
      available: found !== undefined,
      ...(found === undefined
        ? {
            reason: spec.command.includes('/')
              ? `${spec.command} is not an executable file`
              : `${spec.command} was not found on PATH`,
            ...(setupHint(spec) !== undefined ? { setup: setupHint(spec) } : {}),
          }
        : {}),
    };
  }
}
