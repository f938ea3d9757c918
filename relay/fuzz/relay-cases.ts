import {
  concatBytes,
  decodeRelayFrame,
  generateDeviceId,
  RelayFrameType,
  answerRelayChallenge,
  utf8Encode,
} from '@tether/shared-protocol';
import type { FuzzDevice } from './relay-model.js';
import { Expected, frame } from './relay-model.js';
import { FIXED_BYTES, STATUSES, hostGone, hosts, linkHost, liveHost, mutateFrom, presenting } from './relay-hosts.js';
import {
  bytesOf,
  chance,
  count,
  failure,
  mutate,
  pick,
  random,
  randomBytes,
  seededBytes,
  settle,
} from './relay-run.js';
import {
  LIMITS,
  ORIGIN,
  board,
  checkReason,
  clock,
  identities,
  newPort,
  ports,
  silent,
  tickets,
} from './relay-world.js';

/**
 * The relay fuzz run's inputs other than HTTP, each with its checks: host sockets answering their
 * challenge badly, devices presenting connect requests, frames from an authenticated host, device
 * bytes and hang-ups, slow readers and relinks, and time passing.
 */

let earlierAnswer: Uint8Array | undefined;

/** A new socket at /relay/host answering its challenge with a mutated answer, or garbage. */
export function hostAuth(): void {
  const identity = pick(identities);
  const port = newPort();
  let challenge: Uint8Array | undefined;
  port.onSent = (bytes) => (challenge ??= bytes);
  const link = board.acceptHost(port);
  if (!challenge) return failure('a host socket got no challenge');
  const answer = answerRelayChallenge(challenge, identity.sign, { relayUrl: ORIGIN, clock });
  if (!answer.ok) return failure(`a challenge could not be answered: ${answer.error.message}`);
  const roll = random();
  if (roll < 0.05 && silent.length < 16)
    return void silent.push({ port, authenticated: () => link.peer.isAuthenticated });
  if (roll < 0.1) port.deliver(utf8Encode('hello'), false);
  else if (roll < 0.2) port.deliver(randomBytes(1500));
  else if (roll < 0.3) {
    // A real answer to an earlier socket's challenge (a replay), or a cut one: never accepted.
    port.deliver(earlierAnswer && chance(0.7) ? earlierAnswer : answer.value.slice(0, 50));
  } else port.deliver(mutate(answer.value));
  earlierAnswer = answer.value;
  if (link.peer.isAuthenticated || board.local(identity.hostId) === link) {
    failure('a mutated host answer was accepted');
  }
  if (!port.isClosed) failure('a refused host answer left its socket open');
  checkReason(port);
  count(`host-auth:${port.closedWith?.reason ?? 'open'}`);
}

/** A device presents a connect request to one host: the real one, mutated, foreign or expired. */
export async function deviceConnect(): Promise<void> {
  const target = liveHost(Math.floor(random() * 2));
  const issuer = chance(0.85) ? target.identity : pick(identities);
  const { deviceId, expired, ticket, request } = pick(tickets.get(issuer.hostId)!);
  const port = newPort();
  const conn = board.acceptDevice(port, target.identity.hostId);
  const device: FuzzDevice = {
    host: target,
    port,
    conn,
    deviceId,
    connId: undefined,
    fromHost: new Expected(),
    toHost: new Expected(),
  };
  port.onSent = (bytes) => {
    if (!device.fromHost.take(bytes)) failure('a device got bytes its host never sent it');
  };
  target.devices.push(device);
  const roll = random();
  const sent = roll < 0.4 ? request : roll < 0.9 ? mutate(request) : roll < 0.95 ? randomBytes(200) : utf8Encode('x');
  presenting({
    device,
    hostId: target.identity.hostId,
    ticket,
    key: issuer.sign.publicKey,
    valid: issuer === target.identity && !expired,
    sent,
  });
  port.deliver(sent, roll < 0.99);
  presenting(undefined);
  // Finding the host is asynchronous (it may be on another node): a refusal for a full host comes after.
  await settle();
  if (device.connId === undefined) {
    if (!port.isClosed) failure('a refused device was left open');
    checkReason(port);
    count(`device-connect:${port.closedWith?.reason ?? 'open'}`);
  }
  // Keep a few devices per host: the oldest hang up.
  const open = target.devices.filter((d) => !d.port.isClosed);
  if (open.length > LIMITS.maxDeviceConnsPerHost + 2) open[0]!.port.hangUp(1000, 'enough');
  target.devices = target.devices.filter((d) => !d.port.isClosed);
}

/** A close or reply with a raw code or status, which `encodeRelayFrame` would refuse to write. */
function rawField(type: number, id: number, field: number, rest: Uint8Array): Uint8Array {
  const head = new Uint8Array(8);
  const view = new DataView(head.buffer);
  view.setUint8(0, 1);
  view.setUint8(1, type);
  view.setUint32(2, id);
  view.setUint16(6, field);
  return concatBytes(head, rest);
}

const CLOSE_CODES = [1000, 1001, 1011, 3000, 4000, 4008, 4100, 4999];
const CLOSE_REASONS = ['', 'bye', 'host-gone', 'é'.repeat(61), '\u{1f600}'.repeat(30), 'x'.repeat(123)];

/**
 * A frame from an authenticated host: for one of its own connections (or none), with its fields
 * changed. A frame that does not decode ends the link, and a new link costs two Ed25519
 * operations of several milliseconds each; so most changes keep the frame decodable (a payload,
 * a body, a code, a reason, a status, a nonce), and a few in a hundred change its fixed fields or
 * header, send garbage, or send a frame only the relay sends.
 */
export function hostFrame(): void {
  const host = liveHost(Math.floor(random() * 2));
  const connIds = [...host.conns.keys()];
  const connId = connIds.length > 0 && chance(0.9) ? pick(connIds) : Math.floor(random() * 20);
  const reqId = Math.floor(random() * 50);
  const roll = random();
  let bytes: Uint8Array;
  if (roll < 0.56) {
    bytes = frame({ type: 'data', connId, payload: randomBytes(chance(0.05) ? 8000 : 120) });
    if (chance(0.3)) bytes = mutateFrom(bytes, FIXED_BYTES[RelayFrameType.Data]!);
  } else if (roll < 0.6) {
    // A code a close frame cannot carry, or a reason too long or not UTF-8, is malformed.
    const bad = chance(0.01);
    const code = bad ? pick([999, 1005, 1006, 2000, 5000]) : pick(CLOSE_CODES);
    const reason = bad && chance(0.5) ? Uint8Array.of(0xff, 0xfe) : utf8Encode(pick(CLOSE_REASONS));
    bytes = rawField(RelayFrameType.Close, connId, code, reason);
  } else if (roll < 0.8) {
    const status = chance(0.01) ? pick([0, 101, 199, 204, 205, 304, 600, 65535]) : pick(STATUSES);
    bytes = rawField(RelayFrameType.Reply, reqId, status, chance(0.5) ? utf8Encode('{}') : randomBytes(300));
  } else if (roll < 0.988) {
    // A nonce of another length is malformed (written by hand: the encoder refuses it).
    const type = chance(0.5) ? RelayFrameType.Ping : RelayFrameType.Pong;
    bytes = concatBytes(Uint8Array.of(1, type), bytesOf(chance(0.01) ? pick([7, 9]) : 8));
  } else if (roll < 0.993) {
    bytes = mutateFrom(frame({ type: 'data', connId, payload: randomBytes(60) }), 2);
  } else if (roll < 0.996) {
    bytes = chance(0.5) ? mutate(frame({ type: 'pong', nonce: bytesOf(8) })) : randomBytes(100);
  } else if (roll < 0.998) {
    bytes = frame({
      type: 'open',
      connId,
      kind: 'device',
      deviceId: generateDeviceId(seededBytes),
      source: '192.0.2.9',
    });
  } else bytes = frame({ type: 'ready', hostId: host.identity.hostId, maxConnections: 3, maxPayload: 100 });
  const decoded = decodeRelayFrame(bytes);
  const target = decoded.ok && 'connId' in decoded.value ? host.conns.get(decoded.value.connId) : undefined;
  if (decoded.ok && decoded.value.type === 'data' && target) target.fromHost.add(decoded.value.payload);
  // A device the relay closed on its own while it was being attached: the host hears of it once
  // the attach ends, so its own close may still name it.
  const wasOpen = target !== undefined && !target.port.isClosed;
  host.port.deliver(bytes, chance(0.999));
  if (decoded.ok && decoded.value.type === 'close' && target && wasOpen && !host.port.isClosed) {
    // The host closed that device: it must be closed with exactly the host's code and reason.
    const { code, reason } = decoded.value;
    const closed = target.port.closedWith;
    if (!closed || closed.code !== code || closed.reason !== reason) {
      failure(`a host's close reached its device as ${closed ? `${closed.code} ${closed.reason}` : 'nothing'}`);
    }
    host.conns.delete(decoded.value.connId);
  }
  count(`host-frame:${decoded.ok ? decoded.value.type : decoded.error.code}`);
}

/** A connected device sends bytes (or text, or hangs up with any code). */
export async function deviceSends(): Promise<void> {
  const host = liveHost(Math.floor(random() * 2));
  const devices = host.devices.filter((d) => d.connId !== undefined && !d.port.isClosed);
  if (devices.length === 0) return deviceConnect();
  const device = pick(devices);
  const roll = random();
  if (roll < 0.97) {
    const bytes = randomBytes(chance(0.05) ? 9000 : 200);
    device.toHost.add(bytes);
    device.port.deliver(bytes);
  } else if (roll < 0.98) {
    device.port.deliver(utf8Encode('text'), false);
  } else {
    const reason = pick(['', 'bye', 'ü'.repeat(100)]);
    device.port.hangUp(pick([1000, 1001, 1005, 1006, 4000, 2999]), reason);
  }
  if (device.port.isClosed) checkReason(device.port);
}

/** Slow readers and relinks: what makes queues fill and links be replaced. */
export function churn(): void {
  const host = liveHost(Math.floor(random() * 2));
  const roll = random();
  if (roll < 0.4) {
    const device = pick(host.devices);
    if (device) device.port.slow = !device.port.slow;
  } else if (roll < 0.7) host.port.slow = !host.port.slow;
  else if (roll < 0.95) {
    for (const port of ports) port.flush();
  } else {
    // The same host links again: the older link is replaced, its devices told the host is gone.
    const i = hosts.indexOf(host);
    const older = host;
    hosts[i] = linkHost(older.identity);
    if (!older.port.isClosed) failure('a replaced host link stayed open');
    if (older.port.closedWith && older.port.closedWith.reason !== 'replaced') failure('a replaced link said otherwise');
    hostGone(older);
  }
}

/** Time passes: auth deadlines, pings, request deadlines. */
export function tick(): void {
  clock.advance(Math.floor(random() * 12_000));
  for (let i = silent.length - 1; i >= 0; i--) {
    const s = silent[i]!;
    if (s.port.isClosed) {
      silent.splice(i, 1);
      if (!s.authenticated() && s.port.closedWith?.reason !== 'auth-timeout') {
        failure(`a silent socket closed with ${s.port.closedWith?.reason ?? 'nothing'}`);
      }
    }
  }
}
