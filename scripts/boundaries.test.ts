import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RULES_DOC, rulesSection, withRulesSection } from './boundaries-doc.js';
import { PACKAGES, checkBoundaries, formatViolation, hostLayerGaps } from './boundaries.js';
import { HOST_LAYERS } from './host-layers.js';

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
    expect(hostLayerGaps(repo)).toEqual([]);
  });

  it('are what docs/architecture.md shows (npm run boundaries -- --write-docs writes it)', () => {
    const page = readFileSync(join(repo, RULES_DOC), 'utf8');
    expect(withRulesSection(page)).toBe(page);
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
  it('refuse a lower folder importing a higher one, naming both layers and the reason', () => {
    expect(
      rules({
        'host/src/terminals/manager.ts': "import type { S } from '../gateway/stream.js';\n",
        'host/src/gateway/stream.ts': 'export type S = 1;\n',
        'host/src/machines/registry.ts': "import { h } from '../rpc/handlers.js';\n",
        'host/src/rpc/handlers.ts': 'export const h = 1;\n',
        'host/src/ids.ts': "import { w } from './wiring/w.js';\nexport const i = w;\n",
        'host/src/wiring/w.ts': 'export const w = 1;\n',
      }),
    ).toEqual([
      expect.stringMatching(
        /^hostLayer: host\/src\/ids\.ts imports \.\/wiring\/w\.js: the ground \(ids\.ts\) is below the host and its wiring \(wiring\): the ground uses nothing above it$/,
      ),
      expect.stringMatching(
        /^hostLayer: host\/src\/machines\/registry\.ts imports \.\.\/rpc\/handlers\.js: execution \(machines\) is below the surfaces \(rpc\): .*handlers call terminals and machines, never the other way$/,
      ),
      expect.stringMatching(
        /^hostLayer: host\/src\/terminals\/manager\.ts imports \.\.\/gateway\/stream\.js: execution \(terminals\) is below the gateway \(gateway\): .*a terminal is a byte stream the gateway subscribes to/,
      ),
    ]);
  });

  it('accept imports downwards, sideways in a layer, inside a folder, and from a test or test kit', () => {
    expect(
      rules({
        'host/src/rpc/handlers.ts': "import { m } from '../terminals/manager.js';\n",
        'host/src/terminals/manager.ts': "import { x } from './x.js';\nexport const m = x;\n",
        'host/src/terminals/x.ts': "import { t } from '../tools/t.js';\nexport const x = t;\n",
        'host/src/tools/t.ts': "import { v } from '../version.js';\nexport const t = v;\n",
        'host/src/version.ts': 'export const v = 1;\n',
        'host/src/terminals/manager.test.ts': "import { h } from '../rpc/handlers.js';\n",
        'host/src/store/testing/kit.ts': "import { h } from '../../rpc/handlers.js';\nexport const k = h;\n",
      }),
    ).toEqual([]);
  });

  it('place every folder of host/src in one layer, and name none that is gone', () => {
    const root = workspaceWith({ 'host/src/newpart/a.ts': 'export const a = 1;\n' });
    for (const layer of HOST_LAYERS) {
      for (const name of layer.folders) {
        const path = /\.ts$/.test(name) ? name : `${name}/x.ts`;
        mkdirSync(dirname(join(root, 'host/src', path)), { recursive: true });
        writeFileSync(join(root, 'host/src', path), 'export const x = 1;\n');
      }
    }
    expect(hostLayerGaps(root)).toEqual(['host/src/newpart stands in no layer']);
    rmSync(join(root, 'host/src/cli'), { recursive: true });
    expect(hostLayerGaps(root)).toEqual([
      'host/src/newpart stands in no layer',
      'cli is in a layer but not in host/src',
    ]);
  });
});

describe("the page's rules section", () => {
  it('is rewritten between its markers, and the page is refused without them', () => {
    const stale = rulesSection().replace('the ground uses nothing above it', 'the ground may use anything');
    expect(withRulesSection(`# Page\n\n${stale}\n\nProse.\n`)).toBe(`# Page\n\n${rulesSection()}\n\nProse.\n`);
    expect(() => withRulesSection('# Page\n')).toThrow(/no boundary rules section/);
  });

  it('shows every package, every layer with its folders, and the launcher', () => {
    const section = rulesSection();
    for (const pkg of PACKAGES) expect(section).toContain(`- \`${pkg}\`: `);
    for (const layer of HOST_LAYERS) expect(section).toContain(`**${layer.name}**`);
    expect(section).toContain('`host.ts`, `wiring/`');
    expect(section).toContain('`host/bin/tether.js`');
  });
});

describe("loops between a package's folders", () => {
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

  it('refuse them in every package, a top-level file counting as a folder', () => {
    expect(
      loops({
        'pwa/src/push/view.ts': "import { formatRoute } from '../ui/route.js';\nexport const v = formatRoute;\n",
        'pwa/src/ui/route.ts': 'export const formatRoute = 1;\n',
        'pwa/src/ui/panel.tsx': "import { v } from '../push/view.js';\nexport const p = v;\n",
        'shared-protocol/src/pairing.ts': "import { d } from './relay/details.js';\nexport const p = d;\n",
        'shared-protocol/src/relay/details.ts': 'export const d = 1;\n',
        'shared-protocol/src/relay/answers.ts': "import { p } from '../pairing.js';\nexport const a = p;\n",
        'relay/src/cluster/node.ts': "import { o } from '../options.js';\nexport const n = o;\n",
        'relay/src/options.ts': "import { n } from './cluster/node.js';\nexport const o = 1;\nexport const m = n;\n",
        'machine/src/share/a.ts': "import { t } from '../terminal/t.js';\nexport const a = t;\n",
        'machine/src/terminal/t.ts':
          "import type { A } from '../share/b.js';\nexport const t = 1;\nexport type T = A;\n",
        'machine/src/share/b.ts': 'export type A = 1;\n',
      }),
    ).toEqual([
      'folderCycle: pairing.ts → relay → pairing.ts (shared-protocol/src/pairing.ts → shared-protocol/src/relay/details.ts; shared-protocol/src/relay/answers.ts → shared-protocol/src/pairing.ts)',
      'folderCycle: share → terminal → share (machine/src/share/a.ts → machine/src/terminal/t.ts; machine/src/terminal/t.ts → machine/src/share/b.ts)',
      'folderCycle: cluster → options.ts → cluster (relay/src/cluster/node.ts → relay/src/options.ts; relay/src/options.ts → relay/src/cluster/node.ts)',
      'folderCycle: push → ui → push (pwa/src/push/view.ts → pwa/src/ui/route.ts; pwa/src/ui/panel.tsx → pwa/src/push/view.ts)',
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
