import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PORT } from '../../remote/start-remote.js';
import { parseArgs } from '../args.js';
import { START_OPTIONS, readStartOptions } from './start-options.js';

function read(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const args = parseArgs(argv, START_OPTIONS);
  if (!args.ok) throw new Error(args.error.message);
  return readStartOptions(args.value, env);
}

function refusal(argv: string[]): string {
  const result = read(argv);
  if (result.ok) throw new Error(`accepted ${argv.join(' ')}`);
  expect(result.error.code).toBe('invalid-params');
  return result.error.message;
}

describe('readStartOptions', () => {
  it('defaults to the usual port, the home folder and a listener', () => {
    const result = read(['--data-dir', '/d']);
    expect(result.ok && result.value).toEqual({
      json: false,
      relayOnly: false,
      host: {
        dataDir: '/d',
        env: {},
        roots: [homedir()],
        remote: { bind: 'auto', port: DEFAULT_PORT, tailscaleCert: false, roots: [homedir()] },
      },
    });
  });

  it('turns minutes into milliseconds and folders into absolute paths', () => {
    const result = read([
      '--data-dir=/d',
      '--machine-wait',
      '1.5',
      '--terminal-idle',
      '2',
      '--root',
      'a',
      '--root',
      '/b',
      '--app-dir',
      'app',
      '--max-model-calls',
      '7',
      '--context-window',
      '8192',
      '--port',
      '0',
      '--json',
    ]);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.json).toBe(true);
    expect(result.value.host).toMatchObject({
      machineWaitMs: 90_000,
      terminalIdleMs: 120_000,
      maxModelCalls: 7,
      contextWindow: 8192,
      roots: [resolve('a'), '/b'],
      remote: { port: 0, appDir: resolve('app'), roots: [resolve('a'), '/b'] },
    });
  });

  it('keeps the computer awake unless told --no-keep-awake', () => {
    const plain = parseArgs([], START_OPTIONS);
    const off = parseArgs(['--no-keep-awake'], START_OPTIONS);
    if (!plain.ok || !off.ok) throw new Error('unparsed');
    const on = readStartOptions(plain.value, {});
    const notOn = readStartOptions(off.value, {});
    expect(on.ok && on.value.host.keepAwake).toBeUndefined();
    expect(notOn.ok && notOn.value.host.keepAwake).toEqual({ enabled: false });
  });

  it('takes the demo delay from the environment only when it is a number', () => {
    const args = parseArgs([], START_OPTIONS);
    if (!args.ok) throw new Error('unparsed');
    const fast = readStartOptions(args.value, { TETHER_DEMO_DELAY_MS: '5' });
    expect(fast.ok && fast.value.host.demoDelayMs).toBe(5);
    const junk = readStartOptions(args.value, { TETHER_DEMO_DELAY_MS: 'soon' });
    expect(junk.ok && 'demoDelayMs' in junk.value.host).toBe(false);
  });

  it('with --relay-only, starts no listener', () => {
    const result = read(['--relay', 'https://relay.example', '--relay-only']);
    expect(result.ok && result.value.relayOnly).toBe(true);
    expect(result.ok && result.value.host.relay).toEqual({ urls: ['https://relay.example'] });
    expect(result.ok && 'remote' in result.value.host).toBe(false);
  });

  it('takes several relays, repeated or as a comma list, in the order given', () => {
    const result = read(['--relay', 'https://a.example', '--relay', 'https://b.example/,http://127.0.0.1:7430']);
    expect(result.ok && result.value.host.relay).toEqual({
      urls: ['https://a.example', 'https://b.example', 'http://127.0.0.1:7430'],
    });
  });

  it.each([
    [
      ['--relay', 'https://a.example', '--relay', 'https://A.example/'],
      '--relay https://A.example/: given twice (https://a.example)',
    ],
    [['--relay', 'https://a.example,https://a.example'], '--relay https://a.example: given twice (https://a.example)'],
    [['--relay', 'https://a.example,'], '--relay: an empty URL in the list'],
    [
      ['--relay', 'https://a.example', '--relay', 'relay.example'],
      "--relay relay.example: give the relay's https:// URL (plain http:// only for a relay on this computer's loopback address)",
    ],
    [
      ['--relay', 'http://192.168.1.9:7430'],
      "--relay http://192.168.1.9:7430: give the relay's https:// URL (plain http:// only for a relay on this computer's loopback address)",
    ],
    [['--relay', Array.from({ length: 9 }, (_, i) => `https://r${i}.example`).join(',')], '--relay: at most 8 relays'],
  ])('refuses relays %j with a reason', (argv, message) => {
    expect(refusal(argv)).toBe(message);
  });

  it.each([
    [['--port', '65536'], '--port takes a number from 0 to 65535'],
    [['--port', 'http'], '--port takes a number from 0 to 65535'],
    [['--max-model-calls', '0'], '--max-model-calls takes a whole number from 1 to 100000'],
    [['--context-window', '100'], '--context-window takes a whole number of tokens from 4096 to 10000000'],
    [['--context-window', '8k'], '--context-window takes a whole number of tokens from 4096 to 10000000'],
    [['--machine-wait', '1441'], '--machine-wait takes minutes, from 0 to 1440'],
    [['--machine-wait=-1'], '--machine-wait takes minutes, from 0 to 1440'],
    [['--terminal-idle', '1.5'], '--terminal-idle takes a whole number of minutes'],
    [['--relay-only'], '--relay-only needs --relay URL'],
    [
      ['--relay', 'https://r', '--relay-only', '--tailscale-cert'],
      '--relay-only listens on no address, so --tailscale-cert does not apply',
    ],
    [
      ['--relay', 'https://r', '--relay-only', '--port', '1', '--bind', 'lan'],
      '--relay-only listens on no address, so --bind does not apply',
    ],
  ])('refuses %j', (argv, message) => {
    expect(refusal(argv)).toBe(message);
  });
});
