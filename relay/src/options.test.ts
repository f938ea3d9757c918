import { describe, expect, it } from 'vitest';
import { DEFAULT_BIND, DEFAULT_PORT, parseOptions } from './options.js';

const refusal = (argv: string[]) => {
  const r = parseOptions(argv);
  return r.ok ? undefined : [r.error.code, r.error.message];
};

describe('relay options', () => {
  it('has its defaults with no flags', () => {
    expect(parseOptions([])).toEqual({
      ok: true,
      value: {
        bind: DEFAULT_BIND,
        port: DEFAULT_PORT,
        meshBind: DEFAULT_BIND,
        meshPort: 0,
        noApp: false,
        trustedProxies: [],
        json: false,
        help: false,
      },
    });
  });

  it('takes --flag value and --flag=value alike; a repeated flag keeps its last value, --trust-proxy each', () => {
    const r = parseOptions([
      '--port=8080',
      '--bind',
      'localhost',
      '--public-url',
      'https://relay.example/',
      '--app-dir=/srv/app',
      '--trust-proxy',
      '10.0.0.1',
      '--trust-proxy=10.0.0.2',
      '--port',
      '9090',
      '--json',
      '-h',
    ]);
    expect(r).toEqual({
      ok: true,
      value: {
        bind: '127.0.0.1',
        port: 9090,
        meshBind: DEFAULT_BIND,
        meshPort: 0,
        publicUrl: 'https://relay.example',
        appDir: '/srv/app',
        noApp: false,
        trustedProxies: ['10.0.0.1', '10.0.0.2'],
        json: true,
        help: true,
      },
    });
    expect(parseOptions(['--help'])).toMatchObject({ ok: true, value: { help: true } });
    expect(parseOptions(['--no-app'])).toMatchObject({ ok: true, value: { noApp: true } });
  });

  it('refuses unknown flags, positional arguments and missing values, naming them', () => {
    expect(refusal(['--bogus'])).toEqual(['bad-request', 'unknown option --bogus (see --help)']);
    expect(refusal(['--bogus=1'])).toEqual(['bad-request', 'unknown option --bogus=1 (see --help)']);
    expect(refusal(['-x'])).toEqual(['bad-request', 'unknown option -x (see --help)']);
    expect(refusal(['serve'])).toEqual(['bad-request', 'unknown option serve (see --help)']);
    expect(refusal(['--json', 'serve'])).toEqual(['bad-request', 'unknown option serve (see --help)']);
    expect(refusal(['--port'])).toEqual(['bad-request', '--port needs a value']);
    expect(refusal(['--json', '--app-dir'])).toEqual(['bad-request', '--app-dir needs a value']);
    expect(refusal(['--port='])).toEqual(['bad-request', '--port needs a value']);
    expect(refusal(['--port', ''])).toEqual(['bad-request', '--port needs a value']);
    expect(refusal(['--port', 'x'])).toEqual(['bad-request', '--port x is not a port number']);
    expect(refusal(['--tls-key', 'k'])).toEqual(['bad-request', '--tls-cert and --tls-key go together']);
  });

  it('takes a mesh on loopback or a private address only', () => {
    expect(parseOptions(['--mesh-key-file', '/k', '--mesh-bind', '10.0.0.5', '--mesh-port', '7431'])).toMatchObject({
      ok: true,
      value: { meshKeyFile: '/k', meshBind: '10.0.0.5', meshPort: 7431 },
    });
    expect(parseOptions(['--mesh-bind', 'localhost'])).toMatchObject({ ok: true, value: { meshBind: '127.0.0.1' } });
    for (const address of ['0.0.0.0', '::', '203.0.113.9', 'relay.example']) {
      expect(refusal(['--mesh-bind', address])).toEqual([
        'bad-request',
        `--mesh-bind ${address} is not a loopback or private address: the mesh is for the nodes only`,
      ]);
    }
    expect(refusal(['--mesh-port', '70000'])).toEqual(['bad-request', '--mesh-port 70000 is not a port number']);
  });

  it('refuses a value given to a switch, and a flag where a value should be', () => {
    expect(refusal(['--json=yes'])).toEqual(['bad-request', '--json takes no value']);
    expect(refusal(['--bind', '--json'])).toEqual(['bad-request', '--bind needs a value']);
    // A value that starts with a dash is still given whole, after `=`.
    expect(refusal(['--app-dir=-x', '--no-app'])).toEqual([
      'bad-request',
      '--no-app serves no app, so --app-dir does not apply',
    ]);
  });
});
