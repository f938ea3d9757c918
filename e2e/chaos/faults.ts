import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { RelayCloseCode } from '@tether/shared-protocol';
import type { AfterReady, RelayAdversary } from '../support/relay-adversary.js';
import type { Rig } from './rig.js';

/**
 * One thing the adversary does, from `begin` until `end`, `holdMs` apart. A fault that turns a
 * relay hostile turns the one the host is linked through: the other stays honest, and the host is
 * to be reachable through it.
 */
export interface Fault {
  name: string;
  holdMs: number;
  begin(rig: Rig): Promise<void>;
  end(rig: Rig): Promise<void>;
}

/** The relay the host is on now (the first when it is between relays). */
const onHost = (rig: Rig): RelayAdversary => rig.hostRelay() ?? rig.relays[0]!;

/** The relay the host is on closes its link with `code`, and every new one right after `ready`. */
function hostileClose(name: string, code: number, reason: string, holdMs: number): Fault {
  return hostileAfterReady(name, { close: code, reason }, holdMs, (relay) => relay.closeHosts(code, reason));
}

function hostileAfterReady(
  name: string,
  after: AfterReady,
  holdMs: number,
  now: (relay: RelayAdversary) => void,
): Fault {
  let relay: RelayAdversary | undefined;
  return {
    name,
    holdMs,
    begin: (rig) => {
      relay = onHost(rig);
      relay.afterReady = after;
      now(relay);
      return Promise.resolve();
    },
    end: () => {
      if (relay) relay.afterReady = undefined;
      return Promise.resolve();
    },
  };
}

/**
 * Silent sockets held open on a relay node: the upgrade sent, the first message never. They come
 * from a process of their own, as a crowd would: made in the rig's process, they stalled the
 * proxies that stand for the network (and the phone) for half a second and more, which no real
 * crowd does to the host's path. Resolves once every socket has its answer or is waiting silent.
 */
function silentSockets(port: number, count: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', FLOOD_SCRIPT, String(port), String(count)], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', () => resolve(child));
  });
}

/** The flood's own process: `count` sockets to `port`, 50 to an address (one node allows 60 new
 * sockets an address at once), over 127.0.0.2 and up; says `ready` once each has connected. */
const FLOOD_SCRIPT = `
const { connect } = require('node:net');
const [port, count] = process.argv.slice(1).map(Number);
let waiting = count;
const done = () => { if (--waiting === 0) process.stdout.write('ready\\n'); };
for (let i = 0; i < count; i++) {
  const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.' + (2 + Math.floor(i / 50)) });
  let counted = false;
  const once = () => { if (!counted) { counted = true; done(); } };
  socket.on('error', () => { socket.destroy(); once(); });
  socket.on('connect', () => {
    socket.write('GET /relay/host HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n');
    once();
  });
}
setInterval(() => undefined, 60000);
`;

/** The faults, in the order the suite runs them; `scale` shortens each (the short form in CI). */
export function faults(scale = 1): Fault[] {
  const ms = (full: number) => Math.max(500, Math.round(full * scale));
  const tampered: string[] = [];
  let flood: ChildProcess[] = [];
  return [
    hostileClose('relay closes 4104 (replaced)', RelayCloseCode.Replaced, 'replaced', ms(3_000)),
    hostileClose('relay closes 4105 (auth failed)', RelayCloseCode.AuthFailed, 'auth-failed', ms(3_000)),
    hostileClose('relay closes 4100 (ticket)', RelayCloseCode.TicketRefused, 'ticket-forged', ms(3_000)),
    hostileClose('relay closes 4101 (expired)', RelayCloseCode.TicketExpired, 'ticket-expired', ms(3_000)),
    hostileClose('relay closes 4005 (version)', 4005, 'version-unsupported', ms(3_000)),
    {
      name: 'relay names another origin',
      holdMs: ms(3_000),
      begin: (rig) => {
        const relay = onHost(rig);
        relay.origin = 'https://elsewhere.example';
        relay.closeHosts(1011, 'server-error');
        return Promise.resolve();
      },
      end: (rig) => {
        for (const relay of rig.relays) relay.origin = undefined;
        return Promise.resolve();
      },
    },
    hostileAfterReady('relay drains right after ready', { drain: true }, ms(5_000), (relay) => relay.drainHosts()),
    hostileAfterReady('relay closes right after ready', { close: 1011, reason: 'server-error' }, ms(5_000), (relay) =>
      relay.closeHosts(1011, 'server-error'),
    ),
    {
      name: 'Redis stopped 3 s as the host links',
      holdMs: 3_000,
      begin: (rig) => {
        rig.redis.pause();
        onHost(rig).drainHosts();
        return Promise.resolve();
      },
      end: (rig) => Promise.resolve(rig.redis.resume()),
    },
    {
      name: 'Redis killed, back empty',
      holdMs: ms(2_000),
      begin: (rig) => rig.redis.kill(),
      end: (rig) => rig.redis.restart(),
    },
    {
      name: 'Redis keys tampered (SET, then DEL)',
      holdMs: ms(3_000),
      begin: async (rig) => {
        const keys = (await rig.redis.cli(['--raw', 'KEYS', 'tether:relay:host:*'])).split('\n').filter(Boolean);
        for (const key of keys) {
          await rig.redis.cli(['SET', key, 'a-node-of-nobody 999999', 'PX', '60000']);
          tampered.push(key);
        }
      },
      end: async (rig) => {
        for (const key of tampered.splice(0)) await rig.redis.cli(['DEL', key]);
      },
    },
    {
      name: 'machine: unsealed close codes',
      holdMs: ms(3_000),
      begin: (rig) => {
        const path = rig.machinePath;
        // A live link closed "revoked" (4003, not sealed), then every hello closed "version" (4005).
        for (const socket of path.sockets) path.closeClient(socket, 4003, 'revoked');
        path.fromClient = (socket) => {
          if (socket.marks.has('seen')) return undefined;
          socket.marks.add('seen');
          path.closeClient(socket, 4005, 'version-unsupported');
          return null;
        };
        return Promise.resolve();
      },
      end: (rig) => {
        rig.machinePath.fromClient = undefined;
        return Promise.resolve();
      },
    },
    {
      name: 'socket flood (silent, 1,100 a node)',
      holdMs: ms(4_000),
      begin: async (rig) => {
        flood = await Promise.all(rig.nodes.map((node) => silentSockets(node.port, 1_100)));
        // Each node answers after it has worked through the upgrades that came before: from then on
        // the flood holds its pending pool. (Taking in 1,100 upgrades keeps a node busy for 2–4 s on
        // a loaded 2-core machine; counted from here, that is the flood's arrival, not its hold.)
        await Promise.all(
          rig.nodes.map((node) => fetch(`http://127.0.0.1:${node.port}/metrics`).then((r) => r.text())),
        );
        // The host must link again into the flooded nodes.
        onHost(rig).drainHosts();
      },
      end: async () => {
        // Killed, its sockets close with it.
        for (const child of flood.splice(0)) {
          if (child.exitCode !== null || child.signalCode !== null) continue;
          await new Promise((resolve) => child.once('exit', resolve).kill('SIGKILL'));
        }
      },
    },
  ];
}
