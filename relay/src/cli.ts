import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AppFiles } from '@tether/shared-protocol';
import { DEFAULT_APP_DIR, loadAppFiles } from './app-files.js';
import { meshKeyFrom } from './cluster/mesh-auth.js';
import type { RelayLimits } from './limits.js';
import { parseOptions, USAGE } from './options.js';
import { RelayServer } from './relay-server.js';

export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Resolves when the relay should stop; by default, on SIGINT or SIGTERM. */
  stop?: Promise<unknown>;
  /** Called once listening (tests reach the server through it). */
  onListening?: (relay: RelayServer) => void;
  /** Bounds other than the defaults (benches and tests). */
  limits?: Partial<RelayLimits>;
  /** The environment (TETHER_RELAY_MESH_KEY); the process's by default. */
  env?: Record<string, string | undefined>;
}

const processIo: CliIo = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
};

/**
 * `tether-relay [options]`: runs one relay node until SIGINT or SIGTERM, then shuts it down cleanly.
 * Returns the exit status: 0 after a clean stop, 1 when it could not start, 2 for a usage error.
 */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  // Asking for help is answered, whatever else is on the line.
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  const parsed = parseOptions(argv);
  if (!parsed.ok) {
    io.stderr(`tether-relay: ${parsed.error.message}`);
    return 2;
  }
  const o = parsed.value;
  const notice = (text: string) => io.stderr(`tether-relay: ${text}`);

  let tls: { cert: Buffer; key: Buffer } | undefined;
  if (o.tlsCert && o.tlsKey) {
    try {
      tls = { cert: readFileSync(o.tlsCert), key: readFileSync(o.tlsKey) };
    } catch (error) {
      io.stderr(`tether-relay: cannot read the TLS certificate or key: ${(error as Error).message}`);
      return 1;
    }
    if ((statSync(o.tlsKey).mode & 0o077) !== 0) {
      notice(`${o.tlsKey} can be read by other users: make it yours only (chmod 600)`);
    }
  }

  const meshKey = readMeshKey(o.meshKeyFile, (io.env ?? process.env).TETHER_RELAY_MESH_KEY, notice);
  if (typeof meshKey === 'string') {
    io.stderr(`tether-relay: ${meshKey}`);
    return 1;
  }
  if (meshKey && !o.redisUrl) {
    io.stderr('tether-relay: the mesh joins nodes of a cluster: give --redis too');
    return 2;
  }

  let app: AppFiles | undefined;
  if (o.noApp) notice('forward only (--no-app): serving no page and no script, only the relay endpoints');
  else {
    const appDir = resolve(o.appDir ?? DEFAULT_APP_DIR);
    const loaded = existsSync(appDir) ? loadAppFiles(appDir) : undefined;
    if (typeof loaded === 'string') {
      io.stderr(`tether-relay: ${loaded}`);
      return 1;
    }
    app = loaded;
    if (!app) notice(`no built app in ${appDir}: serving the relay endpoints only (build it with npm run build)`);
  }

  const started = await RelayServer.start({
    bind: o.bind,
    port: o.port,
    ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
    ...(tls ? { tls } : {}),
    ...(o.redisUrl ? { redisUrl: o.redisUrl } : {}),
    ...(meshKey ? { mesh: { key: meshKey, host: o.meshBind, port: o.meshPort } } : {}),
    ...(app ? { app } : {}),
    forwardOnly: o.noApp,
    trustedProxies: o.trustedProxies,
    ...(io.limits ? { limits: io.limits } : {}),
  });
  if (!started.ok) {
    io.stderr(`tether-relay: ${started.error.message}`);
    return 1;
  }
  const relay = started.value;
  if (o.json) {
    io.stdout(
      JSON.stringify({
        event: 'listening',
        url: relay.url,
        node: relay.nodeId,
        port: relay.port,
        app: o.noApp ? 'none' : app ? 'served' : 'not-built',
      }),
    );
  } else {
    io.stdout(`tether-relay listening on ${relay.url} (node ${relay.nodeId})`);
    if (o.redisUrl) io.stdout(`  cluster: ${redactUrl(o.redisUrl)}`);
    if (relay.cluster?.meshAddress) io.stdout(`  mesh: ${relay.cluster.meshAddress}`);
  }
  if (o.bind.startsWith('127.') || o.bind === '::1') {
    notice(`bound to loopback ${o.bind}: only this machine (or a load balancer on it) reaches the relay`);
  } else if (!tls && !o.publicUrl?.startsWith('https:')) {
    notice(
      'serving plain HTTP on a network address: phones need HTTPS (give --tls-cert/--tls-key or put TLS in front)',
    );
  }
  io.onListening?.(relay);

  await (io.stop ?? untilSignal());
  // Hosts are told to link elsewhere first, so a rolling restart of the nodes loses nothing.
  await relay.drain();
  if (!o.json) io.stdout('tether-relay stopped');
  return 0;
}

/**
 * The mesh key, from `--mesh-key-file` or else TETHER_RELAY_MESH_KEY: undefined without either, a
 * message (naming the file, never the key) if it cannot be used.
 */
function readMeshKey(
  file: string | undefined,
  env: string | undefined,
  notice: (text: string) => void,
): Uint8Array | string | undefined {
  let text = env;
  if (file !== undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      return `cannot read the mesh key: ${(error as Error).message}`;
    }
    if ((statSync(file).mode & 0o077) !== 0)
      notice(`${file} can be read by other users: make it yours only (chmod 600)`);
  }
  if (text === undefined || text === '') return undefined;
  return meshKeyFrom(text);
}

/** A URL without its password, for printing. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the given URL';
  }
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

// Run directly (`tsx relay/src/cli.ts …`, or the built file).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}
