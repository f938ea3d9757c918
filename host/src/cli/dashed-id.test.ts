import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const TETHER = fileURLToPath(new URL('../../bin/tether.js', import.meta.url));
const ID = '-Qx3kT9x0aQ1bZc7Yw_8Aa';
const dir = mkdtempSync(join(tmpdir(), 'tether-dashed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tether(...argv: string[]): Promise<{ code: number; err: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [TETHER, ...argv], { timeout: 30_000 }, (error, _out, err) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, err }),
    );
  });
}

describe('a device id that starts with a dash, on the command line', () => {
  it('is refused before --, naming it whole and the line to run instead', async () => {
    const refused = await tether('devices', 'revoke', ID, '--data-dir', dir);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      `tether devices revoke: unknown option ${ID}: an argument that starts with a dash goes after --, as in: tether devices revoke -- ${ID}\n`,
    );
  });

  it('is taken after --: the command goes on to look for the host', async () => {
    const taken = await tether('devices', 'revoke', '--data-dir', dir, '--', ID);
    expect(taken.code).toBe(1);
    expect(taken.err).toContain('no Tether host is running');
  });
});
