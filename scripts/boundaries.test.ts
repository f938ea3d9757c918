import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGES, checkBoundaries, formatViolation } from './boundaries.js';

const repo = new URL('..', import.meta.url).pathname;
let fixture: string | undefined;

afterEach(() => {
  if (fixture) rmSync(fixture, { recursive: true, force: true });
  fixture = undefined;
});

/** A minimal workspace with one extra file written into it. */
function workspaceWith(files: Record<string, string>): string {
  fixture = mkdtempSync(join(tmpdir(), 'tether-boundaries-'));
  for (const pkg of PACKAGES) {
    mkdirSync(join(fixture, pkg, 'src'), { recursive: true });
    writeFileSync(join(fixture, pkg, 'package.json'), JSON.stringify({ name: `@tether/${pkg}` }));
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(fixture, path)), { recursive: true });
    writeFileSync(join(fixture, path), text);
  }
  return fixture;
}

const rules = (files: Record<string, string>) => checkBoundaries(workspaceWith(files)).map((v) => v.rule);

describe('package boundaries', () => {
  it('hold in this repository', () => {
    const violations = checkBoundaries(repo);
    expect(violations.map(formatViolation).join('\n')).toBe('');
  });

  it('refuse an app importing another app, with the reason', () => {
    const violations = checkBoundaries(
      workspaceWith({ 'relay/src/x.ts': "import { LocalContext } from '@tether/machine';\n" }),
    );
    expect(violations).toHaveLength(1);
    expect(formatViolation(violations[0]!)).toMatch(
      /relay\/src\/x\.ts:1 {2}appToApp: relay imports @tether\/machine\n {4}because packages depend on shared-protocol, and the host also on machine/,
    );
  });

  it("let only the tether launcher hand a command to the relay; the host's code never imports it", () => {
    expect(rules({ 'host/bin/tether.js': "const relay = await import('@tether/relay');\n" })).toEqual([]);
    expect(rules({ 'host/src/x.ts': "import { main } from '@tether/relay';\n" })).toEqual([
      'appToApp: host imports @tether/relay',
    ]);
    expect(rules({ 'host/bin/other.js': "const relay = await import('@tether/relay');\n" })).toEqual([
      'appToApp: host imports @tether/relay',
    ]);
    expect(rules({ 'relay/bin/x.js': "const m = await import('@tether/machine');\n" })).toEqual([
      'appToApp: relay imports @tether/machine',
    ]);
  });

  it('refuse importing the host from anywhere', () => {
    for (const pkg of ['pwa', 'relay', 'machine', 'e2e', 'shared-protocol']) {
      const violations = checkBoundaries(
        workspaceWith({ [`${pkg}/src/x.ts`]: "import { Host } from '@tether/host';\n" }),
      );
      expect(violations.map(formatViolation)).toEqual([
        `${pkg}/src/x.ts:1  intoHost: ${pkg} imports @tether/host\n    because nothing imports the host: it is the top of the graph, so what another package needs from it belongs in machine or shared-protocol`,
      ]);
    }
  });

  it('let the host use machine, and machine only shared-protocol', () => {
    expect(
      rules({
        'host/src/a.ts':
          "import { LocalContext } from '@tether/machine';\nimport { ok } from '@tether/shared-protocol';\n",
        'machine/src/a.ts': "import { ok } from '@tether/shared-protocol';\n",
      }),
    ).toEqual([]);
    const violations = checkBoundaries(workspaceWith({ 'machine/src/a.ts': "import { App } from '@tether/pwa';\n" }));
    expect(violations.map((v) => v.rule)).toEqual(['machineAlone: machine imports @tether/pwa']);
    expect(violations[0]!.reason).toMatch(/depends only on shared-protocol and Node, never on the host/);
    expect(rules({ 'shared-protocol/src/a.ts': "import { LocalContext } from '@tether/machine';\n" })).toEqual([
      'protocolAlone: shared-protocol imports @tether/machine',
    ]);
  });

  it('refuse reaching into another package by path or by deep import', () => {
    expect(rules({ 'host/src/a.ts': "import x from '../../relay/src/server.js';\n" })).toEqual([
      'escape: ../../relay/src/server.js',
    ]);
    expect(rules({ 'relay/src/a.ts': "export * from '@tether/shared-protocol/src/handshake.js';\n" })).toEqual([
      'deepImport: @tether/shared-protocol/src/handshake.js',
    ]);
  });

  it('refuse Node and DOM in shared-protocol, but not in prose', () => {
    expect(rules({ 'shared-protocol/src/a.ts': "import { readFileSync } from 'node:fs';\n" })).toEqual([
      'neutralImport: node:fs',
    ]);
    expect(rules({ 'shared-protocol/src/a.ts': "import crypto from 'crypto';\n" })).toEqual(['neutralImport: crypto']);
    expect(rules({ 'shared-protocol/src/a.ts': 'export const b = Buffer.from([1]);\n' })).toEqual([
      'neutralGlobal: Buffer',
    ]);
    expect(rules({ 'shared-protocol/src/a.ts': 'export const w = window.location;\n' })).toEqual([
      'neutralGlobal: window',
    ]);
    expect(rules({ 'shared-protocol/src/a.ts': "import { z } from 'zod';\n" })).toEqual(['neutralDependency: zod']);
    expect(
      rules({ 'shared-protocol/src/a.ts': '// no Buffer here, nor window\nexport const x = { window: 1 }.window;\n' }),
    ).toEqual([]);
    // A file name is not the global: `credit-window.js` names a module of this package.
    expect(rules({ 'shared-protocol/src/a.ts': "export * from './link/credit-window.js';\n" })).toEqual([]);
  });

  it('refuse an app-to-app dependency in package.json', () => {
    const root = workspaceWith({});
    writeFileSync(join(root, 'relay', 'package.json'), JSON.stringify({ dependencies: { '@tether/host': '0.1.0' } }));
    writeFileSync(join(root, 'pwa', 'package.json'), JSON.stringify({ dependencies: { '@tether/machine': '0.1.0' } }));
    writeFileSync(join(root, 'host', 'package.json'), JSON.stringify({ dependencies: { '@tether/machine': '0.1.0' } }));
    expect(checkBoundaries(root).map((v) => `${v.file} ${v.rule}`)).toEqual([
      'relay/package.json intoHost: depends on @tether/host',
      'pwa/package.json appToApp: depends on @tether/machine',
    ]);
  });
});

describe("the host's layers", () => {
  it('refuse a lower folder importing a higher one, naming both and the reason', () => {
    expect(
      rules({
        'host/src/terminals/manager.ts': "import type { S } from '../gateway/stream.js';\n",
        'host/src/gateway/stream.ts': 'export type S = 1;\n',
        'host/src/machines/registry.ts': "import { h } from '../rpc/handlers.js';\n",
        'host/src/rpc/handlers.ts': 'export const h = 1;\n',
      }),
    ).toEqual([
      'hostLayer: host/src/machines/registry.ts imports ../rpc/handlers.js: handlers call terminals and machines, never the other way',
      'hostLayer: host/src/terminals/manager.ts imports ../gateway/stream.js: a terminal is a byte stream; the gateway subscribes to it (streams/ holds the stream type)',
    ]);
  });

  it('accept imports downwards, inside a folder, and from a test that sets a part up', () => {
    expect(
      rules({
        'host/src/rpc/handlers.ts': "import { m } from '../terminals/manager.js';\n",
        'host/src/terminals/manager.ts': "import { x } from './x.js';\nexport const m = x;\n",
        'host/src/terminals/x.ts': 'export const x = 1;\n',
        'host/src/terminals/manager.test.ts': "import { h } from '../rpc/handlers.js';\n",
      }),
    ).toEqual([]);
  });
});

describe("loops between the host's folders", () => {
  const loops = (files: Record<string, string>) =>
    checkBoundaries(workspaceWith(files))
      .filter((v) => v.rule.startsWith('folderCycle'))
      .map((v) => v.rule);

  it('refuse two folders importing each other through different files, naming the imports', () => {
    expect(
      loops({
        'host/src/rpc/handlers.ts': "import type { G } from '../gateway/view.js';\nexport const h = 1;\n",
        'host/src/gateway/view.ts': 'export type G = 1;\n',
        'host/src/gateway/gateway.ts': "import { h } from '../rpc/handlers.js';\nexport const g = h;\n",
      }),
    ).toEqual([
      'folderCycle: gateway → rpc → gateway (host/src/gateway/gateway.ts → host/src/rpc/handlers.ts; host/src/rpc/handlers.ts → host/src/gateway/view.ts)',
    ]);
  });

  it('leave out tests and test kits, and accept a folder used from many others', () => {
    expect(
      loops({
        'host/src/rpc/handlers.ts': "import { m } from '../machines/m.js';\nexport const h = m;\n",
        'host/src/machines/m.ts': 'export const m = 1;\n',
        'host/src/machines/m.test.ts': "import { h } from '../rpc/handlers.js';\n",
        'host/src/machines/testing/kit.ts': "import { h } from '../../rpc/handlers.js';\nexport const k = h;\n",
        'host/src/gateway/g.ts': "import { m } from '../machines/m.js';\nexport const g = m;\n",
      }),
    ).toEqual([]);
  });
});

describe('import circles inside a package', () => {
  const cycles = (files: Record<string, string>) =>
    checkBoundaries(workspaceWith(files)).filter((v) => v.rule.startsWith('cycle'));

  it('refuse two files importing each other, type-only imports included, with the files and the reason', () => {
    const found = cycles({
      'relay/src/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'relay/src/b.ts': "\n\nimport type { A } from './a.js';\nexport const b = 1;\n",
    });
    expect(found.map(formatViolation)).toEqual([
      'relay/src/a.ts:1  cycle: relay/src/a.ts → relay/src/b.ts → relay/src/a.ts\n' +
        '    because files that import each other (types too) can be neither read, tested nor loaded alone, and at load time one side sees the other half-initialised; move what both need into a file of its own',
    ]);
  });

  it('follow re-exports, dynamic imports, folder indexes and self-imports', () => {
    expect(
      cycles({
        'machine/src/a.ts': "export * from './b.js';\n",
        'machine/src/b.ts': "export { c } from './sub';\n",
        'machine/src/sub/index.ts': "export const c = () => import('../a.js');\n",
        'pwa/src/self.ts': "import { x } from './self.js';\nexport const y = x;\n",
      }).map((v) => v.rule),
    ).toEqual([
      'cycle: machine/src/a.ts → machine/src/b.ts → machine/src/sub/index.ts → machine/src/a.ts',
      'cycle: pwa/src/self.ts → pwa/src/self.ts',
    ]);
  });

  it('name every file of a knot once, even when it holds several circles', () => {
    expect(
      cycles({
        'host/src/a.ts': "import './b.js';\n",
        'host/src/b.ts': "import './a.js';\nimport './c.js';\n",
        'host/src/c.ts': "import './b.js';\n",
      }).map((v) => v.rule),
    ).toEqual(['cycle: host/src/a.ts → host/src/b.ts → host/src/a.ts (tied in the same knot: host/src/c.ts)']);
  });

  it('accept chains and diamonds, and imports that only look alike', () => {
    expect(
      cycles({
        'host/src/a.ts': "import './b.js';\nimport './c.js';\n",
        'host/src/b.ts': "import './d.js';\n",
        'host/src/c.ts': "import './d.js';\n// import './a.js';\n",
        'host/src/d.ts': 'export const text = "from \'./a.js\'";\n',
        // Same names in another package are other files.
        'relay/src/a.ts': "import './b.js';\n",
        'relay/src/b.ts': 'export const b = 1;\n',
      }),
    ).toEqual([]);
  });
});
