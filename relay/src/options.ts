import type { Result } from '@tether/shared-protocol';
import { fail, ok, relayOrigin } from '@tether/shared-protocol';
import { BlockList, isIP } from 'node:net';
import type { ParseArgsConfig } from 'node:util';
import { parseArgs } from 'node:util';
import { isMeshAddress } from './cluster/mesh-auth.js';
import { parseRedisTarget } from './cluster/redis-target.js';
import { normalize } from './source-address.js';

/** The port a relay listens on unless told otherwise. */
export const DEFAULT_PORT = 7430;
/** Loopback: a relay is put behind a TLS load balancer, or given an address on purpose. */
export const DEFAULT_BIND = '127.0.0.1';

export const USAGE = `usage: tether relay [options]   (also: tether-relay [options])

Forwards sealed frames between phones and Tether hosts that cannot reach each other,
and serves the Tether app from its HTTPS origin (unless --no-app).

Whoever runs a relay that serves the app decides what the app does on the phones
paired on its page: such a relay is trusted like any site you open. A forward-only
relay (--no-app) serves no page and no script, and can neither read nor forge
anything; phones paired on the host's own page reach the host through it.

Options:
  --bind ADDR          address to listen on (default ${DEFAULT_BIND}; never a wildcard)
  --port N             port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --public-url URL     the https:// URL phones and hosts use (behind a load balancer)
  --tls-cert FILE      serve HTTPS with this certificate (PEM) ...
  --tls-key FILE       ... and this key (PEM, readable by you only)
  --redis URL          share presence and forward between nodes through Redis:
                       redis://, rediss://, or redis+sentinel://HOST:PORT[,HOST:PORT…]/MASTER
  --mesh-key-file FILE with --redis: forward stream data to the other nodes over direct links,
                       proven with this shared key (or TETHER_RELAY_MESH_KEY; 32 bytes or more)
  --mesh-bind ADDR     the loopback or private address those links reach (default ${DEFAULT_BIND})
  --mesh-port N        ... and its port (default 0: any free one; each node advertises its own)
  --app-dir DIR        the built app to serve (default: this repository's pwa/dist)
  --no-app             forward only: serve no page and no script, only the relay endpoints
  --trust-proxy ADDR   believe X-Forwarded-For from this load balancer (repeatable)
  --json               print {"event":"listening","url":...} once listening
  --help               show this help
`;

export interface CliOptions {
  bind: string;
  port: number;
  publicUrl?: string;
  tlsCert?: string;
  tlsKey?: string;
  redisUrl?: string;
  meshKeyFile?: string;
  meshBind: string;
  meshPort: number;
  appDir?: string;
  /** `--no-app`: forward only; no page or script is ever served. */
  noApp: boolean;
  trustedProxies: string[];
  json: boolean;
  help: boolean;
}

/** The flags, as `node:util`'s `parseArgs` reads them (strict: anything else is refused). */
const FLAGS = {
  bind: { type: 'string' },
  port: { type: 'string' },
  'public-url': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  redis: { type: 'string' },
  'mesh-key-file': { type: 'string' },
  'mesh-bind': { type: 'string' },
  'mesh-port': { type: 'string' },
  'app-dir': { type: 'string' },
  'trust-proxy': { type: 'string', multiple: true },
  'no-app': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** The flags that take a value, in the order their values are checked. */
const VALUE_FLAGS = [
  'bind',
  'port',
  'public-url',
  'tls-cert',
  'tls-key',
  'redis',
  'mesh-key-file',
  'mesh-bind',
  'mesh-port',
  'app-dir',
  'trust-proxy',
] as const;

/** Parses the command line; every mistake is a `bad-request` naming the flag. */
export function parseOptions(argv: readonly string[]): Result<CliOptions> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: FLAGS, strict: true, allowPositionals: true });
  } catch (error) {
    return refusal(error, argv);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 0) return fail('bad-request', `unknown option ${positionals[0]} (see --help)`);
  const o: CliOptions = {
    bind: DEFAULT_BIND,
    port: DEFAULT_PORT,
    meshBind: DEFAULT_BIND,
    meshPort: 0,
    noApp: values['no-app'] ?? false,
    trustedProxies: [],
    json: values.json ?? false,
    help: values.help ?? false,
  };
  for (const name of VALUE_FLAGS) {
    for (const value of [values[name]].flat()) {
      if (value === undefined) continue;
      if (value === '') return fail('bad-request', `--${name} needs a value`);
      const set = assign(o, `--${name}`, value);
      if (!set.ok) return set;
    }
  }
  if (o.noApp && o.appDir !== undefined) {
    return fail('bad-request', '--no-app serves no app, so --app-dir does not apply');
  }
  if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) {
    return fail('bad-request', '--tls-cert and --tls-key go together');
  }
  return ok(o);
}

/** A refusal of `parseArgs` in this command's words, naming the option as it was typed. */
function refusal(error: unknown, argv: readonly string[]): Result<never> {
  const code = (error as { code?: unknown }).code;
  const name = /'(-[^' <]*)/.exec(error instanceof Error ? error.message : '')?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && name) {
    return fail('bad-request', `unknown option ${argv.find((a) => a.startsWith(`${name}=`)) ?? name} (see --help)`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && name) {
    const takesValue = (VALUE_FLAGS as readonly string[]).includes(name.slice(2));
    return fail('bad-request', takesValue ? `${name} needs a value` : `${name} takes no value`);
  }
  throw error;
}

function assign(o: CliOptions, flag: string, value: string): Result<void> {
  switch (flag) {
    case '--bind': {
      if (value === 'localhost') value = '127.0.0.1';
      if (!isIP(value)) return fail('bad-request', `--bind ${value} is not an IP address`);
      if (isWildcard(value)) {
        return fail(
          'bad-request',
          `--bind ${value} would listen on every interface; name the one address to serve on (the public address, or the one the load balancer reaches)`,
        );
      }
      o.bind = value;
      return ok(undefined);
    }
    case '--port':
    case '--mesh-port': {
      const port = Number(value);
      if (!/^\d+$/.test(value) || port > 65_535) return fail('bad-request', `${flag} ${value} is not a port number`);
      if (flag === '--port') o.port = port;
      else o.meshPort = port;
      return ok(undefined);
    }
    case '--mesh-bind':
      if (value === 'localhost') value = '127.0.0.1';
      if (!isMeshAddress(value)) {
        return fail(
          'bad-request',
          `--mesh-bind ${value} is not a loopback or private address: the mesh is for the nodes only`,
        );
      }
      o.meshBind = value;
      return ok(undefined);
    case '--mesh-key-file':
      o.meshKeyFile = value;
      return ok(undefined);
    case '--public-url':
      if (!relayOrigin(value) || !/^(https?|wss?):/i.test(value)) {
        return fail('bad-request', `--public-url ${value} is not an http(s) URL`);
      }
      o.publicUrl = value.replace(/\/+$/, '');
      return ok(undefined);
    case '--tls-cert':
      o.tlsCert = value;
      return ok(undefined);
    case '--tls-key':
      o.tlsKey = value;
      return ok(undefined);
    case '--redis':
      {
        const target = parseRedisTarget(value);
        if (!target.ok) return target;
      }
      o.redisUrl = value;
      return ok(undefined);
    case '--app-dir':
      o.appDir = value;
      return ok(undefined);
    case '--trust-proxy': {
      const address = normalize(value);
      if (!address) return fail('bad-request', `--trust-proxy ${value} is not an IP address`);
      o.trustedProxies.push(address);
      return ok(undefined);
    }
    default:
      return fail('bad-request', `unknown option ${flag}`);
  }
}

const WILDCARDS = new BlockList();
WILDCARDS.addAddress('0.0.0.0', 'ipv4');
WILDCARDS.addAddress('::', 'ipv6');

/** `0.0.0.0`, `::` and their other spellings (`0:0::0`, `::ffff:0.0.0.0`): every interface. */
function isWildcard(address: string): boolean {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  const mapped = /^::ffff:(.+)$/i.exec(address)?.[1];
  return (
    WILDCARDS.check(address, family) || (mapped !== undefined && isIP(mapped) === 4 && WILDCARDS.check(mapped, 'ipv4'))
  );
}
