import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentCatalog, commandLine } from './agent-catalog.js';
import { READY_PROMPTS } from './ready-prompts.js';
import { READY_AGENTS, decodeAgents, loadAgents } from './agent-config.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('agents.json', () => {
  it('a missing file is the ready entries', () => {
    dir = mkdtempSync(join(tmpdir(), 'tether-agents-'));
    const loaded = loadAgents(join(dir, 'agents.json'));
    expect(loaded).toEqual({ ok: true, value: { agents: [...READY_AGENTS], prompts: READY_PROMPTS } });
    const required = loadAgents(join(dir, 'agents.json'), { required: true });
    expect(!required.ok && required.error.message).toContain('cannot be read');
    expect(READY_AGENTS.map((a) => commandLine(a))).toEqual([
      'claude-code-acp',
      'codex-acp',
      'gemini --experimental-acp',
    ]);
  });

  it('adds entries and replaces a ready one of the same name', () => {
    const decoded = decodeAgents(
      JSON.stringify({
        agents: {
          gemini: { command: '/opt/gemini/bin/gemini', args: ['--experimental-acp'], passEnv: ['GEMINI_API_KEY'] },
          mine: { title: 'My agent', command: 'my-agent', env: { MODE: 'acp' }, allowEnv: ['RUSTFLAGS'] },
        },
      }),
    );
    if (!decoded.ok) throw new Error(decoded.error.message);
    expect(decoded.value.agents.find((a) => a.name === 'gemini')).toMatchObject({
      command: '/opt/gemini/bin/gemini',
      passEnv: ['GEMINI_API_KEY'],
      title: 'gemini',
    });
    expect(decoded.value.agents.find((a) => a.name === 'mine')).toEqual({
      name: 'mine',
      title: 'My agent',
      command: 'my-agent',
      args: [],
      env: { MODE: 'acp' },
      passEnv: [],
      allowEnv: ['RUSTFLAGS'],
    });
    expect(decoded.value.agents).toHaveLength(4);
  });

  it("replaces a program's ready prompt set and keeps the others", () => {
    const decoded = decodeAgents(
      JSON.stringify({
        prompts: {
          claude: { writtenFor: 'Claude Code 3.0', patterns: ['Proceed\\?'] },
          mytool: ['Ready\\?'],
        },
      }),
    );
    if (!decoded.ok) throw new Error(decoded.error.message);
    expect(decoded.value.prompts).toEqual({
      ...READY_PROMPTS,
      claude: { writtenFor: 'Claude Code 3.0', patterns: ['Proceed\\?'] },
      mytool: { writtenFor: '', patterns: ['Ready\\?'] },
    });
  });

  it('the ready prompt sets of known programs say the version they were written for', () => {
    for (const program of ['claude', 'codex', 'gemini', 'aider']) {
      expect(READY_PROMPTS[program]?.writtenFor, program).toMatch(/\d/);
      expect(READY_PROMPTS[program]?.patterns.length, program).toBeGreaterThan(0);
    }
  });

  it.each([
    ['not JSON', '{', 'invalid JSON'],
    ['an array', '[]', 'JSON object'],
    ['a bad name', JSON.stringify({ agents: { '../x': { command: 'x' } } }), 'agent names'],
    ['no command', JSON.stringify({ agents: { a: { args: [] } } }), 'command'],
    ['args not strings', JSON.stringify({ agents: { a: { command: 'x', args: [1] } } }), 'args[0]: must be a string'],
    ['a bad variable name', JSON.stringify({ agents: { a: { command: 'x', passEnv: ['A B'] } } }), 'environment'],
    [
      "passing Tether's own variables",
      JSON.stringify({ agents: { a: { command: 'x', passEnv: ['TETHER_TOKEN'] } } }),
      'never passed to an agent',
    ],
    [
      'allowing a variable that loads code',
      JSON.stringify({ agents: { a: { command: 'x', allowEnv: ['LD_PRELOAD'] } } }),
      'LD_PRELOAD is never allowed: the dynamic loader',
    ],
    ['a bad prompt pattern', JSON.stringify({ prompts: { claude: ['(unclosed'] } }), 'regular expression'],
    ['prompts not a list', JSON.stringify({ prompts: { claude: 'Proceed' } }), 'array of patterns'],
    [
      'a prompt set with an unknown field',
      JSON.stringify({ prompts: { claude: { version: '3', patterns: ['x'] } } }),
      'an object with writtenFor and patterns',
    ],
    [
      'a prompt set with a bad pattern',
      JSON.stringify({ prompts: { claude: { writtenFor: 'Claude Code 3.0', patterns: ['(unclosed'] } } }),
      'regular expression',
    ],
  ])('refuses %s with a message naming the problem', (_what, text, words) => {
    const decoded = decodeAgents(text);
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.error.message).toContain(words);
  });

  it('a file too large is refused, naming the file', () => {
    dir = mkdtempSync(join(tmpdir(), 'tether-agents-'));
    const path = join(dir, 'agents.json');
    writeFileSync(path, ' '.repeat(300 * 1024));
    const loaded = loadAgents(path);
    expect(!loaded.ok && loaded.error.message).toContain(path);
  });
});

describe('the agent catalog', () => {
  const specs = [...READY_AGENTS];
  it('offers an agent only when its command is found, and says why not', () => {
    const catalog = new AgentCatalog(specs, {}, (command) => (command === 'codex-acp' ? '/bin/codex-acp' : undefined));
    expect(catalog.available().map((a) => a.name)).toEqual(['codex']);
    expect(catalog.list().find((a) => a.name === 'gemini')).toMatchObject({
      available: false,
      reason: 'gemini was not found on PATH',
      command: 'gemini --experimental-acp',
    });
    expect(catalog.check('codex').ok).toBe(true);
    const missing = catalog.check('claude-code');
    expect(!missing.ok && missing.error.code).toBe('unavailable');
    const unknown = catalog.check('nope');
    expect(!unknown.ok && unknown.error.code).toBe('invalid-params');
  });

  it('says how to set up a ready agent that is not found, and nothing for one agents.json made', () => {
    const mine = { ...READY_AGENTS[2]!, name: 'mine', command: 'my-acp' };
    const replaced = { ...READY_AGENTS[0]!, command: 'other-acp' };
    const catalog = new AgentCatalog([...specs, mine], {}, (command) =>
      command === 'codex-acp' ? '/bin/codex-acp' : undefined,
    );
    const listed = new Map(catalog.list().map((a) => [a.name, a]));
    expect(listed.get('claude-code')?.setup).toMatch(/^npm install -g @zed-industries\/claude-code-acp/);
    expect(listed.get('gemini')?.setup).toMatch(/^npm install -g @google\/gemini-cli/);
    expect(listed.get('codex')).not.toHaveProperty('setup');
    expect(listed.get('mine')).toMatchObject({ available: false, reason: 'my-acp was not found on PATH' });
    expect(listed.get('mine')).not.toHaveProperty('setup');
    expect(new AgentCatalog([replaced], {}, () => undefined).list()[0]).not.toHaveProperty('setup');
  });

  it('looks the command up on PATH each time', () => {
    dir = mkdtempSync(join(tmpdir(), 'tether-agents-'));
    const catalog = new AgentCatalog(specs, { PATH: `relative:${dir}` });
    expect(catalog.check('codex').ok).toBe(false);
    writeFileSync(join(dir, 'codex-acp'), '#!/bin/sh\n', { mode: 0o755 });
    expect(catalog.check('codex').ok).toBe(true);
  });
});
