import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CREDENTIAL_FILES, CREDENTIAL_NEEDLE, writeCredentialHome } from '@tether/machine/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAllowedByRules, ruleForAnswer } from '../sessions/approval-policy.js';
import { hostLocalContext } from '../sessions/host-context.js';
import { listDirTool, readFileTool } from './file-tools.js';
import { searchTool } from './search-tool.js';
import type { Tool, ToolContext } from './tool.js';

// The built-in agent's read tools on the host's own computer, wired as the host wires it: a
// device with only `watch` and `chat` drives them, so nothing here may leak without asking.

let base: string;
let home: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-home-reads-')));
  home = join(base, 'home');
  writeCredentialHome(home, { hardLinks: true });
  writeFileSync(join(home, '.bashrc'), `export API_TOKEN=${CREDENTIAL_NEEDLE}\n`);
  mkdirSync(join(home, '.config', 'nvim'), { recursive: true });
  writeFileSync(join(home, '.config', 'nvim', 'init.lua'), `-- ${CREDENTIAL_NEEDLE}\n`);
  writeFileSync(join(home, '.unknown-tool-token'), `${CREDENTIAL_NEEDLE}\n`);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function toolContext(cwd: string): ToolContext {
  return { sessionId: 's1', cwd, exec: hostLocalContext({ HOME: home }), signal: new AbortController().signal };
}

async function check<I>(tool: Tool<I>, input: unknown, context: ToolContext) {
  const parsed = tool.parse(input);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return { approval: await tool.approval(parsed.value, context), run: () => tool.run(parsed.value, context) };
}

describe("the host's own computer: credential files", () => {
  it.each(CREDENTIAL_FILES)('read_file refuses %s outright, without asking', async (file) => {
    const { approval, run } = await check(readFileTool, { path: file }, toolContext(home));
    // Asking would offer an answer that changes nothing: the read is refused whatever it is.
    expect(approval).toEqual({ need: null });
    const outcome = await run();
    expect(outcome.ok).toBe(false);
    expect(outcome.output).not.toContain(CREDENTIAL_NEEDLE);
  });

  it('read_file refuses a hard link to the private key or a credential file, whatever its name', async () => {
    for (const path of ['notes.txt', 'config.txt']) {
      const outcome = await (await check(readFileTool, { path }, toolContext(join(home, 'code')))).run();
      expect(outcome).toMatchObject({ ok: false });
      expect(outcome.output).toMatch(/hard link/);
    }
    // And one made while the host runs.
    writeFileSync(join(home, '.ssh', 'id_rsa'), `${CREDENTIAL_NEEDLE}\n`);
    linkSync(join(home, '.ssh', 'id_rsa'), join(home, 'code', 'later.txt'));
    const later = await (await check(readFileTool, { path: 'later.txt' }, toolContext(join(home, 'code')))).run();
    expect(later.ok).toBe(false);
  });
});

describe("the host's own computer: hidden entries in the home folder ask first", () => {
  it.each(['.bashrc', '.unknown-tool-token', '.config/nvim/init.lua', 'code/../.bashrc'])(
    'read_file %s waits for an answer that names the real path',
    async (path) => {
      const { approval } = await check(readFileTool, { path }, toolContext(home));
      expect(approval).toMatchObject({ need: { kind: 'mcp' } });
      const action = 'need' in approval ? (approval.need?.action ?? '') : '';
      expect(action.split('\n')[0]).toBe(`Read ${join(home, path)}`);
      expect(action).toMatch(/hidden entry in the home folder/);
    },
  );

  it('asks for a path given as absolute or through a link, by where it really is', async () => {
    symlinkSync(join(home, '.bashrc'), join(home, 'code', 'rc'));
    for (const path of [join(home, '.bashrc'), 'code/rc']) {
      const { approval } = await check(readFileTool, { path }, toolContext(home));
      expect('need' in approval && approval.need?.action.split('\n')[0]).toBe(`Read ${join(home, '.bashrc')}`);
    }
  });

  it('lets ordinary files, and a session folder chosen inside a hidden entry, read without asking', async () => {
    expect((await check(readFileTool, { path: 'code/app.ts' }, toolContext(home))).approval).toEqual({ need: null });
    const nvim = toolContext(join(home, '.config', 'nvim'));
    expect((await check(readFileTool, { path: 'init.lua' }, nvim)).approval).toEqual({ need: null });
    // A folder that is not the home folder may hold hidden files of its own freely.
    writeFileSync(join(home, 'code', '.env.example'), 'A=1\n');
    const code = toolContext(join(home, 'code'));
    expect((await check(readFileTool, { path: '.env.example' }, code)).approval).toEqual({ need: null });
  });

  it('asks before listing or searching a hidden entry', async () => {
    expect((await check(listDirTool, { path: '.config' }, toolContext(home))).approval).toMatchObject({
      need: { kind: 'mcp' },
    });
    expect((await check(listDirTool, {}, toolContext(home))).approval).toEqual({ need: null });
    const search = await check(searchTool, { pattern: CREDENTIAL_NEEDLE, path: '.config' }, toolContext(home));
    expect(search.approval).toMatchObject({ need: { kind: 'mcp' } });
  });

  it('a search of the whole home folder answers nothing from its hidden entries', async () => {
    const { approval, run } = await check(searchTool, { pattern: CREDENTIAL_NEEDLE }, toolContext(home));
    expect(approval).toEqual({ need: null });
    const outcome = await run();
    expect(outcome.output.split('\n').filter((line) => line.includes(`: `) && !line.startsWith('('))).toEqual([
      `code/app.ts:1: // ${CREDENTIAL_NEEDLE} in the code`,
    ]);
    expect(outcome.output).toMatch(/hidden entries of the home folder were left out/);
  });

  it('"allow for this session" on a read of a file in a hidden entry covers that file, not its folder', async () => {
    mkdirSync(join(home, '.config', 'git'), { recursive: true });
    mkdirSync(join(home, '.config', 'github-copilot'), { recursive: true });
    writeFileSync(join(home, '.config', 'git', 'config'), '[user]\n\tname = someone\n');
    writeFileSync(join(home, '.config', 'github-copilot', 'apps.json'), `{"token":"${CREDENTIAL_NEEDLE}"}\n`);
    const need = async (tool: Tool<unknown>, input: unknown) => {
      const { approval } = await check(tool, input, toolContext(home));
      if (!('need' in approval) || !approval.need) throw new Error('expected a question');
      return approval.need;
    };
    const gitConfig = await need(readFileTool, { path: '.config/git/config' });
    const rule = ruleForAnswer('read_file', gitConfig, undefined);
    if ('error' in rule) throw new Error(rule.error);
    const rules = [rule];
    const inFolder = () => Promise.resolve('present' as const);
    expect(await isAllowedByRules(rules, 'read_file', gitConfig, inFolder)).toBe(true);
    // Named another way (absolute, or through `./`): the same file, still allowed.
    const again = await need(readFileTool, { path: join(home, '.config', './git/config') });
    expect(await isAllowedByRules(rules, 'read_file', again, inFolder)).toBe(true);
    for (const other of ['.config/github-copilot/apps.json', '.config/nvim/init.lua']) {
      const asked = await need(readFileTool, { path: other });
      expect(await isAllowedByRules(rules, 'read_file', asked, inFolder), other).toBe(false);
    }
    // Nor does it cover listing or searching the folder.
    const list = await need(listDirTool, { path: '.config/git' });
    expect(await isAllowedByRules(rules, 'list_dir', list, inFolder)).toBe(false);
  });
});
