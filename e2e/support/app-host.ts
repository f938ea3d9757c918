import { devices } from '@playwright/test';
import type { BrowserContextOptions, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostProcess } from './host-process.js';
import { eventually, hostDataDir, makeDataDir, removeDataDir, startHost, tether, tetherJson } from './host-process.js';

/**
 * A real host for the app's browser tests: `tether start` on 127.0.0.1 with a free port, the demo
 * model, and a fresh data dir (its own folder is the one root sessions may use). The host serves
 * the built app (pwa/dist) at `/`.
 */
export interface AppHost {
  process: HostProcess;
  dataDir: string;
  /** `http://127.0.0.1:PORT`: the app and `/rc/*`. */
  url: string;
  /** The first pairing link the host printed. */
  pairUrl: string;
  /** Pair requests already taken by `nextPairRequest`. */
  seenPairRequests: Set<string>;
  stop(): Promise<void>;
}

export interface AppHostOptions {
  /** Milliseconds per streamed demo chunk (TETHER_DEMO_DELAY_MS); small keeps tests quick. */
  demoDelayMs?: number;
  bind?: string;
  /** `--model SPEC` (default: the demo model). */
  model?: string;
  /** More environment for the host process. */
  env?: NodeJS.ProcessEnv;
  /** Files written into the data dir before the host starts (name → text). */
  files?: Record<string, string>;
  /** More `tether start` arguments (e.g. `--max-model-calls 500`). */
  args?: string[];
  /** `--port N` (default 0: any free port); a restarted host keeps the app's origin with the same one. */
  port?: number;
  /** A stopped host's test folder to start on again (its keys, devices and sessions), not a fresh one. */
  dataDir?: string;
  /** Link to this relay and listen nowhere (`--relay URL --relay-only`): the app is the relay's. */
  relayOnly?: string;
  /** Link to this relay and listen on 127.0.0.1 too (`--relay URL`): starts once both are up. */
  relay?: string;
  /** Written to `<data-dir>/agents.json` before the host starts: ACP agents it offers. */
  agents?: Record<string, { command: string; args?: string[]; title?: string; env?: Record<string, string> }>;
}

export async function startAppHost(options: AppHostOptions = {}): Promise<AppHost> {
  const dataDir = options.dataDir ?? makeDataDir();
  if (options.dataDir === undefined) mkdirSync(hostDataDir(dataDir), { mode: 0o700 });
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(hostDataDir(dataDir), name), text);
  if (options.agents) {
    writeFileSync(join(hostDataDir(dataDir), 'agents.json'), JSON.stringify({ agents: options.agents }));
  }
  const model = options.model !== undefined ? ['--model', options.model] : [];
  const listen =
    options.relayOnly !== undefined
      ? ['--relay', options.relayOnly, '--relay-only']
      : ['--bind', options.bind ?? '127.0.0.1', '--port', String(options.port ?? 0)];
  const relay = options.relay !== undefined ? ['--relay', options.relay] : [];
  const process = await startHost(
    dataDir,
    [...listen, ...relay, '--root', dataDir, ...model, ...(options.args ?? [])],
    { TETHER_DEMO_DELAY_MS: String(options.demoDelayMs ?? 10), ...options.env },
  );
  if (options.relay !== undefined) await process.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  const listening =
    options.relayOnly !== undefined
      ? await process.waitFor((l) => l.event === 'relay' && l.state === 'linked')
      : await process.waitFor((l) => l.event === 'listening' || l.event === 'not-listening');
  if (listening.event === 'not-listening') throw new Error(`host is not listening: ${JSON.stringify(listening)}`);
  return {
    process,
    dataDir,
    url: options.relayOnly ?? String(listening.url),
    pairUrl: String(listening.pairUrl),
    seenPairRequests: new Set(),
    stop: async () => {
      await process.stop();
      removeDataDir(dataDir);
    },
  };
}

export interface PairRequestLine {
  id: string;
  label: string;
  code: string;
  /** Whether it came over a secure channel (TLS or loopback). */
  secure: boolean;
  /** What the device gets when allowed without --scopes. */
  scopes: string[];
}

/** Waits for a pair request not taken before (`pair.request` on the host's output). */
export async function nextPairRequest(host: AppHost): Promise<PairRequestLine> {
  const seen = host.seenPairRequests;
  const line = await host.process.waitFor((l) => l.event === 'pair.request' && !seen.has(String(l.id)), 30_000);
  seen.add(String(line.id));
  return {
    id: String(line.id),
    label: String(line.label),
    code: String(line.code),
    secure: line.secure === true,
    scopes: Array.isArray(line.scopes) ? line.scopes.map(String) : [],
  };
}

/** `tether pair allow ID`, with `--scopes` when given. */
export async function allowPairRequest(host: AppHost, id: string, scopes?: string[]): Promise<void> {
  const result = await tether(host.dataDir, ['pair', 'allow', id, ...(scopes ? ['--scopes', scopes.join(',')] : [])]);
  if (result.code !== 0) throw new Error(`tether pair allow failed: ${result.stderr}`);
}

/** A fresh pairing link (`tether pair --json`). */
export async function mintPairLink(host: AppHost): Promise<string> {
  return (await tetherJson<{ link: string }>(host.dataDir, ['pair'])).link;
}

export interface DeviceLine {
  id: string;
  label: string;
  revoked: boolean;
}

export async function listDevices(host: AppHost): Promise<DeviceLine[]> {
  return tetherJson<DeviceLine[]>(host.dataDir, ['devices']);
}

/** The session's event log as the host keeps it (`tether sessions show ID --json`). */
export async function sessionEvents(host: AppHost, sessionId: string): Promise<Record<string, unknown>[]> {
  return tetherJson<Record<string, unknown>[]>(host.dataDir, ['sessions', 'show', sessionId]);
}

/**
 * Pairs the page with the host through its pairing link: the page shows the code, the host prints
 * the same code, `tether pair allow` allows it, and the page goes on to the host's sessions.
 */
export async function pairThroughLink(
  page: Page,
  host: AppHost,
  options: { link?: string; scopes?: string[] } = {},
): Promise<PairRequestLine> {
  await page.goto(options.link ?? host.pairUrl);
  const request = await nextPairRequest(host);
  await expect(page.locator('[data-pairing-code]')).toHaveAttribute('data-pairing-code', request.code);
  await allowPairRequest(host, request.id, options.scopes);
  await expectHostSessions(page);
  return request;
}

/** Once paired, the app opens the host's sessions by itself: waits for them, connected. */
export async function expectHostSessions(page: Page): Promise<void> {
  await expect(page).toHaveURL(/#\/h\/[^/]+$/);
  await expect(page.locator('[data-screen="sessions"] [data-host-status="connected"]')).toBeVisible();
}

/** Starts a session from the app: the host's root folder, the demo model, a first message. */
export async function createSession(page: Page, host: AppHost, text: string): Promise<string> {
  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByRole('button', { name: 'Browse folders on the computer' }).click();
  await page.getByRole('list', { name: 'Folders' }).getByRole('button').first().click();
  await expect(page.getByLabel('Folder', { exact: true })).toHaveValue(/.+/);
  await page.getByLabel('First message').fill(text);
  await page.getByRole('button', { name: 'Start session' }).click();
  await expect(page.locator('[data-screen="session"]')).toBeVisible();
  const sessionId = await eventually(async () => {
    const match = /\/s\/([^/]+)$/.exec(new URL(page.url()).hash);
    return Promise.resolve(match ? decodeURIComponent(match[1]!) : undefined);
  });
  void host;
  return sessionId;
}

/** Device presets without `defaultBrowserType` (which would switch the run to WebKit). */
export function device(name: 'iPhone 15' | 'iPad Pro 11' | 'Pixel 7'): BrowserContextOptions {
  const { defaultBrowserType: _ignored, ...options } = devices[name];
  return options;
}

export { makeDataDir, removeDataDir };
