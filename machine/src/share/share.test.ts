import { nodeLinkAead } from '../link/node-link-aead.js';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Result, Transport } from '@tether/shared-protocol';
import {
  acceptMachineLink,
  generateBoxKeyPair,
  memoryPipe,
  ok,
  secureRandom,
  systemClock,
} from '@tether/shared-protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installService, servicePlan, systemdQuote, uninstallService } from './background-service.js';
import { HostKeyPins, machinePaths } from './machine-data.js';
import { acquireShareLock } from './share-lock.js';
import type { RunningShare, ShareOptions } from './share.js';
import { readTokenFile, shareStatus, startShare } from './share.js';

let base: string;
let root: string;
let tokenFile: string;
let dir: string;
const running: RunningShare[] = [];

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-share-')));
  root = join(base, 'code');
  mkdirSync(root);
  tokenFile = join(base, 'token');
  writeFileSync(tokenFile, 'tm_abc_secret\n', { mode: 0o600 });
  dir = join(base, 'machine');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  rmSync(base, { recursive: true, force: true });
});

const code = (r: Result<unknown>) => (r.ok ? 'ok' : r.error.code);

/** A host that accepts every registration, on in-memory pipes. */
function connectToHost(): () => Promise<Transport> {
  const hostKeys = generateBoxKeyPair();
  return () => {
    const [machineEnd, hostEnd] = memoryPipe();
    void acceptMachineLink(hostEnd, { clock: systemClock, random: secureRandom, aead: nodeLinkAead, hostKeys }).then(
      (peer) => {
        if (peer.ok)
          peer.value.onRequest = () => Promise.resolve(ok({ machineId: 'm_x', hostId: 'h_x', name: 'laptop' }));
      },
    );
    return Promise.resolve(machineEnd);
  };
}

function share(overrides: Partial<ShareOptions> = {}) {
  return startShare({
    hostUrl: 'http://127.0.0.1:7420',
    tokenFile,
    name: 'laptop',
    roots: [root],
    dir,
    version: '0.1.0',
    env: { HOME: join(base, 'home') },
    connect: connectToHost(),
    ...overrides,
  }).then((r) => {
    if (r.ok) running.push(r.value);
    return r;
  });
}

describe('tether machine share', () => {
  it('refuses a token file others can read, and never echoes the token', async () => {
    chmodSync(tokenFile, 0o644);
    const refused = await share();
    expect(code(refused)).toBe('forbidden');
    expect(refused.ok ? '' : refused.error.message).toContain('chmod 600');
    expect(refused.ok ? '' : refused.error.message).not.toContain('tm_abc_secret');
    expect(code(readTokenFile(join(base, 'missing')))).toBe('not-found');
  });

  it('refuses a bad name, URL or host key before dialling', async () => {
    expect(code(await share({ name: 'local' }))).toBe('invalid-params');
    expect(code(await share({ name: 'no spaces' }))).toBe('invalid-params');
    expect(code(await share({ hostUrl: 'ftp://host' }))).toBe('invalid-params');
    expect(code(await share({ hostKey: 'short' }))).toBe('invalid-params');
  });

  it('keeps a stable machine id in an owner-only data dir, and reports its status', async () => {
    const first = await share();
    if (!first.ok) throw new Error(first.error.message);
    const id = first.value.machineId;
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(machinePaths(dir).machineId).mode & 0o777).toBe(0o600);
    for (let i = 0; i < 50 && shareStatus(dir).state !== 'linked'; i++) await new Promise((r) => setTimeout(r, 10));
    const status = shareStatus(dir);
    expect(status).toMatchObject({ running: true, state: 'linked', host: 'http://127.0.0.1:7420', machineId: id });
    expect(JSON.stringify(status)).not.toContain('tm_abc_secret');
    expect(readFileSync(machinePaths(dir).status, 'utf8')).not.toContain('tm_abc_secret');
    await first.value.stop();
    running.length = 0;
    expect(shareStatus(dir)).toMatchObject({ running: false });
    const again = await share();
    expect(again.ok && again.value.machineId).toBe(id);
  });

  it('refuses a second share process for the same machine', async () => {
    const first = await share();
    expect(code(first)).toBe('ok');
    const second = await share();
    expect(code(second)).toBe('conflict');
    expect(second.ok ? '' : second.error.message).toContain(`pid ${process.pid}`);
  });

  it('takes over a lock its holder left behind when it died', () => {
    mkdirSync(dir);
    const path = machinePaths(dir).lock;
    writeFileSync(path, JSON.stringify({ pid: 999_999, nonce: 'dead', since: 0 }));
    const lock = acquireShareLock(path, 0, (pid) => pid !== 999_999);
    expect(code(lock)).toBe('ok');
    const held = acquireShareLock(path, 0, () => true);
    expect(code(held)).toBe('conflict');
    if (lock.ok) lock.value.release();
    expect(existsSync(path)).toBe(false);
  });

  it('pins host keys by origin in an owner-only file', () => {
    mkdirSync(dir);
    const pins = new HostKeyPins(join(dir, 'host-keys.json'));
    const key = generateBoxKeyPair().publicKey;
    pins.set('http://127.0.0.1:7420/some/path', key);
    expect(pins.get('http://127.0.0.1:7420')).toEqual(key);
    expect(pins.get('http://127.0.0.1:7421')).toBeUndefined();
    expect(statSync(join(dir, 'host-keys.json')).mode & 0o777).toBe(0o600);
  });
});

describe('the background service', () => {
  const command = [
    '/usr/bin/node',
    '/opt/tether/bin/tether.js',
    'machine',
    'share',
    '--host',
    'http://100.64.0.1:7420',
    '--root',
    '/home/ada/my code',
    '--service',
  ];
  const spec = (platform: NodeJS.Platform) => ({
    name: 'laptop',
    command,
    home: join(base, 'home'),
    platform,
    env: { PATH: '/usr/bin:/bin' },
    logFile: join(base, 'machine', 'service.log'),
    uid: 1000,
  });

  it('writes a systemd user unit and enables it', async () => {
    const plan = servicePlan(spec('linux'));
    if (!plan.ok) throw new Error(plan.error.message);
    const ran: string[][] = [];
    const outcome = await installService(plan.value, (c) => {
      ran.push([...c]);
      return Promise.resolve({ code: 0, output: '' });
    });
    expect(outcome.done).toBe(true);
    expect(plan.value.file).toBe(join(base, 'home', '.config', 'systemd', 'user', 'tether-machine-laptop.service'));
    const unit = readFileSync(plan.value.file, 'utf8');
    expect(unit).toContain(
      'ExecStart=/usr/bin/node /opt/tether/bin/tether.js machine share --host http://100.64.0.1:7420 --root "/home/ada/my code" --service',
    );
    expect(unit).toContain('Restart=on-failure');
    expect(unit).toContain('WantedBy=default.target');
    expect(ran).toEqual([
      ['systemctl', '--user', 'daemon-reload'],
      ['systemctl', '--user', 'enable', '--now', 'tether-machine-laptop.service'],
    ]);
    const removed: string[][] = [];
    await uninstallService(plan.value, (c) => (removed.push([...c]), Promise.resolve({ code: 0, output: '' })));
    expect(removed[0]).toEqual(['systemctl', '--user', 'disable', '--now', 'tether-machine-laptop.service']);
    expect(existsSync(plan.value.file)).toBe(false);
  });

  it('prints the exact commands when the service manager cannot be reached', async () => {
    const plan = servicePlan(spec('linux'));
    if (!plan.ok) throw new Error(plan.error.message);
    const outcome = await installService(plan.value, () =>
      Promise.resolve({ code: 1, output: 'Failed to connect to bus: No medium found' }),
    );
    expect(outcome.done).toBe(false);
    expect(outcome.manual?.commands).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable --now tether-machine-laptop.service',
    ]);
    expect(outcome.manual?.why).toContain('Failed to connect to bus');
  });

  it('writes a launchd agent on macOS', async () => {
    const plan = servicePlan(spec('darwin'));
    if (!plan.ok) throw new Error(plan.error.message);
    const ran: string[][] = [];
    await installService(plan.value, (c) => (ran.push([...c]), Promise.resolve({ code: 0, output: '' })));
    expect(plan.value.file).toBe(join(base, 'home', 'Library', 'LaunchAgents', 'dev.tether.machine.laptop.plist'));
    const plist = readFileSync(plan.value.file, 'utf8');
    expect(plist).toContain('<string>/home/ada/my code</string>');
    expect(plist).toContain('<key>SuccessfulExit</key>');
    expect(ran).toEqual([['launchctl', 'bootstrap', 'gui/1000', plan.value.file]]);
  });

  it('says so on a platform without one', () => {
    expect(code(servicePlan(spec('win32')))).toBe('unsupported');
  });

  it('quotes systemd arguments so nothing in them is expanded', () => {
    expect(systemdQuote('/plain/path')).toBe('/plain/path');
    expect(systemdQuote('a b')).toBe('"a b"');
    expect(systemdQuote('100%$HOME"x')).toBe('"100%%$$HOME\\"x"');
  });
});
