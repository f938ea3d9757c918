import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privatePaths } from '@tether/machine';
import { CREDENTIAL_FILES, CREDENTIAL_NEEDLE, writeCredentialHome } from '@tether/machine/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileTool } from '../tools/file-tools.js';
import type { ToolContext } from '../tools/tool.js';
import type { MachineKit } from './testing/machine-kit.js';
import { machineKit } from './testing/machine-kit.js';

// The built-in agent's read_file on a machine that shares its whole home: the host sends the
// calls over a sealed link to a real machine agent and executor, with the machine's private list.

let kit: MachineKit;
let home: string;

beforeEach(async () => {
  kit = machineKit();
  home = join(kit.base, 'home');
  writeCredentialHome(home, { hardLinks: true });
  writeFileSync(join(home, '.bashrc'), `export API_TOKEN=${CREDENTIAL_NEEDLE}\n`);
  const { token } = kit.tokens.create('laptop', Date.now());
  const machine = kit.machine({ token, root: home, home, privates: privatePaths({ home, env: {} }) });
  expect((await machine.reached('linked')).name).toBe('linked');
});
afterEach(async () => kit.close());

function onMachine(cwd: string): ToolContext {
  const exec = kit.registry.context('laptop');
  if (!exec) throw new Error('no machine');
  return { sessionId: 's1', cwd, exec, signal: new AbortController().signal };
}

async function readWith(path: string, cwd = home) {
  const parsed = readFileTool.parse({ path });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const context = onMachine(cwd);
  return {
    approval: await readFileTool.approval(parsed.value, context),
    run: () => readFileTool.run(parsed.value, context),
  };
}

describe('read_file on a machine that shares its home', () => {
  it.each(CREDENTIAL_FILES)('refuses %s', async (file) => {
    const outcome = await (await readWith(file)).run();
    expect(outcome.ok).toBe(false);
    expect(outcome.output).not.toContain(CREDENTIAL_NEEDLE);
  });

  it('refuses a hard link to the private key or a credential file', async () => {
    for (const path of ['notes.txt', 'config.txt']) {
      const outcome = await (await readWith(path, join(home, 'code'))).run();
      expect(outcome).toMatchObject({ ok: false });
      expect(outcome.output).toMatch(/hard link/);
    }
  });

  it("asks before reading a hidden entry of the machine's home folder, naming its real path", async () => {
    const { approval } = await readWith('.bashrc');
    expect(approval).toMatchObject({ need: { kind: 'mcp' } });
    expect('need' in approval && approval.need?.action.split('\n')[0]).toBe(`Read ${join(home, '.bashrc')}`);
    expect((await readWith('code/app.ts')).approval).toEqual({ need: null });
  });
});
