import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnthropicStandIn } from './anthropic-stand-in.js';
import type { GeminiStandIn } from './gemini-stand-in.js';
import type { ResponsesStandIn } from './responses-stand-in.js';

/**
 * The real ACP adapters people install, from this repository's node_modules (devDependencies of
 * the e2e workspace at pinned versions), and how to run each offline against a loopback stand-in
 * for the model API it calls.
 */
const BIN = fileURLToPath(new URL('../../node_modules/.bin/', import.meta.url));

/** `@zed-industries/claude-code-acp`: runs the Claude Code CLI it bundles. */
export const CLAUDE_CODE_ACP = join(BIN, 'claude-code-acp');
/** `@zed-industries/codex-acp`: a small node launcher for the native adapter binary. */
export const CODEX_ACP = join(BIN, 'codex-acp');
/** `@google/gemini-cli`, whose `--experimental-acp` speaks ACP itself. */
export const GEMINI = join(BIN, 'gemini');

/** An entry of `agents.json`. */
export interface AgentEntry {
  title: string;
  command: string;
  args?: string[];
  env: Record<string, string>;
}

/**
 * A folder for one test's files outside the system temporary folder: Codex refuses to create its
 * helpers when its home or TMPDIR is under `/tmp`. Under the repository's `.test-output/`.
 */
export function scratchDir(prefix: string): string {
  const base = fileURLToPath(new URL('../../.test-output/', import.meta.url));
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix));
}

export function removeScratch(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Claude Code through Zed's adapter, offline: the stand-in's URL in `ANTHROPIC_BASE_URL` with a
 * dummy key, no nonessential traffic, its own home for its settings and transcripts. `IS_SANDBOX`
 * is cleared: with any value the adapter turns on "skip permissions", which Claude Code refuses to
 * start with as root (CI runs as root) unless the value is exactly `1`.
 */
export function claudeCodeAgent(model: AnthropicStandIn, home: string): AgentEntry {
  mkdirSync(join(home, '.claude'), { recursive: true });
  return {
    title: 'Claude Code',
    command: CLAUDE_CODE_ACP,
    env: {
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'sk-ant-stand-in',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      IS_SANDBOX: '',
    },
  };
}

/**
 * Codex through Zed's adapter, offline: a `config.toml` in its own `CODEX_HOME` whose model
 * provider is the stand-in (`wire_api = "responses"`, a dummy key in the variable `env_key`
 * names) with a model Codex knows (`gpt-5.3-codex`), a `TMPDIR` and a `HOME` of its own (it runs
 * commands through `bash -lc`, which reads the home's startup files); all outside `/tmp`.
 */
export function codexAgent(model: ResponsesStandIn, home: string): AgentEntry {
  const codexHome = join(home, 'codex-home');
  const tmp = join(home, 'tmp');
  const userHome = join(home, 'user-home');
  for (const dir of [codexHome, tmp, userHome]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-5.3-codex"',
      'model_provider = "standin"',
      '',
      '[model_providers.standin]',
      'name = "Stand-in"',
      `base_url = "${model.url}"`,
      'wire_api = "responses"',
      'env_key = "STANDIN_API_KEY"',
      '',
    ].join('\n'),
  );
  return {
    title: 'Codex',
    command: CODEX_ACP,
    env: { CODEX_HOME: codexHome, STANDIN_API_KEY: 'sk-stand-in', TMPDIR: tmp, RUST_LOG: 'error', HOME: userHome },
  };
}

/**
 * Gemini CLI in its ACP mode, offline: the stand-in's URL in `GOOGLE_GEMINI_BASE_URL` (it takes
 * plain HTTP for loopback only) with a dummy `GEMINI_API_KEY`, and a home whose settings choose
 * API-key sign-in (else it waits for ACP `authenticate`, which Tether does not send).
 */
export function geminiAgent(model: GeminiStandIn, home: string): AgentEntry {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
  );
  return {
    title: 'Gemini CLI',
    command: GEMINI,
    args: ['--experimental-acp'],
    env: {
      GOOGLE_GEMINI_BASE_URL: model.url,
      GEMINI_API_KEY: 'stand-in',
      HOME: home,
      GEMINI_CLI_NO_RELAUNCH: 'true',
    },
  };
}

/** The rules Codex keeps for every later session (`CODEX_HOME/rules/`), by file: name → text. */
export function codexRules(home: string): Record<string, string> {
  const dir = join(home, 'codex-home', 'rules');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return {};
  }
  return Object.fromEntries(names.map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

/** Every transcript Claude Code keeps under `home` (the JSON-lines files of `.claude/projects`), as one text. */
export function claudeTranscript(home: string): string {
  const projects = join(home, '.claude', 'projects');
  let text = '';
  for (const folder of readdirSync(projects)) {
    for (const file of readdirSync(join(projects, folder))) text += readFileSync(join(projects, folder, file), 'utf8');
  }
  return text;
}

/** Processes below `pid` (children, theirs, …), read from /proc, deepest last. */
export function descendants(pid: number): { pid: number; command: string }[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields after its last `)`.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const out: { pid: number; command: string }[] = [];
  const walk = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      let command: string;
      try {
        command = readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      } catch {
        continue;
      }
      out.push({ pid: child, command });
      walk(child);
    }
  };
  walk(pid);
  return out;
}
