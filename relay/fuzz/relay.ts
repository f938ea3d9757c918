// npm run fuzz -- relay [--seconds N | --inputs N]
// A bounded run against the relay in-process: a real Switchboard with two hosts linked through
// in-memory ports, devices connected to each, and the HTTP app driven with `app.request()`.
// Inputs are mutated and random host answers to the challenge, device connect requests (tickets
// of this host, of the other host, expired), frames from an authenticated host (data, close,
// reply, ping and the ones a host never sends), device bytes and hang-ups, and HTTP requests at
// every endpoint with mutated pair and call bodies. Fails on a throw, an unhandled rejection, a
// close `ws` would refuse to send, a refusal without a named reason or stable code, a forged host
// answer or ticket let through, bytes delivered to any device or host but the one they were for
// (or that nobody sent), a request forwarded to another host, and memory that is not accounted
// for: every queued byte must sit in an outbox within its bounds, and closing everything must
// bring every count back to zero.
import type { HostIdentity, RandomBytes } from '@tether/shared-protocol';
import {
  CloseCode,
  RelayFrameType,
  concatBytes,
  RELAY_MAX_CALL_BODY,
  answerRelayChallenge,
  decodeRelayFrame,
  encodeConnectRequest,
  generateDeviceId,
  generateHostIdentity,
  isErrorCode,
  PROTOCOL_VERSION,
  generateBoxKeyPair,
  sealCall,
  toBase64Url,
  signRelayTicket,
  utf8Encode,
} from '@tether/shared-protocol';
import {
  ManualClock,
  REMOTE_MUTATIONS,
  mutate as mutateWith,
  parseFuzzBudget,
  parseFuzzSeed,
} from '@tether/shared-protocol/testing';
import { createRelayApp } from '../src/http-app.js';
import type { RelayLimits } from '../src/limits.js';
import { DEFAULT_LIMITS } from '../src/limits.js';
import { DROP_REASONS, REFUSAL_REASONS, RelayMetrics } from '../src/metrics.js';
import { Switchboard } from '../src/switchboard.js';
import { FuzzPort } from './fuzz-port.js';
import type { Attempt, FuzzDevice, FuzzHost, InFlight } from './relay-model.js';
import { Expected, frame, hex, mayOpen, sameBytes } from './relay-model.js';

const parsed = parseFuzzBudget(process.argv.slice(2), { seconds: 20 }, Date.now, (line) => console.log(line));
if (!parsed.ok) {
  console.error(`fuzz relay: ${parsed.message}`);
  process.exit(2);
}
const budget = parsed.budget;
const seeded = parseFuzzSeed(process.argv.slice(2));
if (!seeded.ok) {
  console.error(`fuzz relay: ${seeded.message}`);
  process.exit(2);
}
const random = seeded.random;
let failureCount = 0;
const failures: string[] = [];
const failure = (what: string) => {
  failureCount++;
  if (failures.length < 20) failures.push(what);
};
process.on('unhandledRejection', (reason) => failure(`unhandled rejection: ${String(reason)}`));
process.on('uncaughtException', (error) => failure(`uncaught exception: ${error.stack ?? error.message}`));

/** Small bounds, so a run reaches every one of them often. */
const LIMITS: RelayLimits = {
  ...DEFAULT_LIMITS,
  requestAnswerFloorMs: 0,
  maxDeviceConnsPerHost: 6,
  deviceOutboxBytes: 16 * 1024,
  deviceOutboxFrames: 16,
  hostOutboxBytes: 64 * 1024,
  hostOutboxFrames: 64,
  hostShareBytes: 16 * 1024,
  hostShareFrames: 16,
  nodeQueuedBytes: 96 * 1024,
  maxPendingRequestsPerHost: 4,
  maxPendingRequests: 6,
  attachBufferFrames: 4,
  maxTrackedAddresses: 32,
  maxPendingAuth: 24,
};
const ORIGIN = 'https://relay.fuzz';
const SOURCES = ['203.0.113.7', '198.51.100.9', '2001:db8::1', '2001:db8::2', '2001:db8:0:1::1', '192.0.2.44'];
const NAMED_REASONS = new Set<string>([...REFUSAL_REASONS, ...DROP_REASONS]);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const chance = (p: number) => random() < p;
const mutate = (seed: Uint8Array) => mutateWith(seed, random, REMOTE_MUTATIONS);
const bytesOf = (length: number) => Uint8Array.from({ length }, () => Math.floor(random() * 256));
const randomBytes = (max: number) => bytesOf(Math.floor(random() * max));

const clock = new ManualClock();
const metrics = new RelayMetrics();
/** Every byte the run makes comes from the seed, so `--seed` repeats a run. */
const seededBytes: RandomBytes = (n) => bytesOf(n);
const board = new Switchboard({ clock, random: seededBytes, limits: LIMITS, metrics, origin: ORIGIN });
const app = createRelayApp({
  relay: board,
  limits: LIMITS,
  metrics,
  clock,
  trustedProxies: new Set(['192.0.2.44']),
  app: undefined,
  isClosing: () => false,
});

/** Every port made, until it is closed: what the census must count. */
const ports = new Set<FuzzPort>();
/** Ports that never authenticated and were left open (silent sockets for the auth deadline). */
const silent: { port: FuzzPort; authenticated: () => boolean }[] = [];
const identities: HostIdentity[] = [generateHostIdentity(seededBytes), generateHostIdentity(seededBytes)];

/**
 * Signed and sealed seeds, made once: Ed25519 and X25519 in plain JavaScript take milliseconds
 * each, and the relay's own checks of what they sign are what the run should spend its time on.
 * Valid tickets expire long after any time the manual clock reaches; expired ones, before it starts.
 */
const TICKETS_PER_HOST = 24;
const tickets = new Map(
  identities.map((identity) => [
    identity.hostId,
    Array.from({ length: TICKETS_PER_HOST }, (_, i) => {
      const deviceId = generateDeviceId(seededBytes);
      const expired = i % 8 === 0;
      const expiresAt = clock.now() + (expired ? -10 * 60_000 : 100 * 365 * 24 * 3_600_000);
      const ticket = signRelayTicket({ deviceId, expiresAt }, identity.sign);
      const request = encodeConnectRequest(identity.sign.publicKey, ticket);
      if (!request.ok) throw new Error(request.error.message);
      return { identity, deviceId, expired, ticket, request: request.value };
    }),
  ]),
);
const strangerHostIds = Array.from({ length: 4 }, () => generateHostIdentity(seededBytes).hostId);
/** Well-formed one-shot calls that open nowhere: what a stranger who knows a host id can send. */
const callBodies = Array.from(
  { length: 16 },
  () =>
    sealCall(
      {
        deviceId: generateDeviceId(seededBytes),
        deviceKeys: generateBoxKeyPair(seededBytes),
        hostBoxPublicKey: generateBoxKeyPair(seededBytes).publicKey,
        clock,
        random: seededBytes,
      },
      Uint8Array.of(1, 2, 3),
    ).message,
);
/** A well-formed pair request no host can open. */
const pairBody = () =>
  utf8Encode(
    JSON.stringify({
      v: PROTOCOL_VERSION,
      pairingId: toBase64Url(seededBytes(16)),
      nonce: toBase64Url(seededBytes(24)),
      box: toBase64Url(seededBytes(48)),
    }),
  );
const hosts: FuzzHost[] = [];
const inFlight = new Map<number, InFlight>();
let nextRequest = 1;
let attempt: Attempt | undefined;
const outcomes = new Map<string, number>();
const count = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);

function newPort(source = pick(SOURCES)): FuzzPort {
  const port = new FuzzPort(source, (what) => failure(what));
  ports.add(port);
  return port;
}

/** A closed port's reason must be one the relay names, unless it passes on what the host said. */
function checkReason(port: FuzzPort, passedOn?: { code: number; reason: string }): void {
  const closed = port.closedWith;
  if (!closed) return;
  if (passedOn && closed.code === passedOn.code && closed.reason === passedOn.reason) return;
  if (!NAMED_REASONS.has(closed.reason)) failure(`closed with an unnamed reason: ${closed.code} ${closed.reason}`);
}

// ---------------------------------------------------------------- hosts

/** Links `identity` as a host, answering its challenge; the link replaces any older one. */
function linkHost(identity: HostIdentity): FuzzHost {
  count('host:linked');
  const port = newPort('198.51.100.1');
  const host: FuzzHost = { identity, port, link: undefined!, conns: new Map(), devices: [] };
  let challenge: Uint8Array | undefined;
  port.onSent = (bytes) => (challenge ??= bytes);
  host.link = board.acceptHost(port);
  port.onSent = (bytes) => fromRelayToHost(host, bytes);
  const answer = challenge && answerRelayChallenge(challenge, identity.sign, { relayUrl: ORIGIN, clock });
  if (!answer?.ok) throw new Error('the relay sent no challenge that can be answered');
  port.deliver(answer.value);
  if (board.local(identity.hostId) !== host.link) failure('a real host answer was refused');
  return host;
}

/** The host's side of what the relay writes to it: each frame checked against the model. */
function fromRelayToHost(host: FuzzHost, bytes: Uint8Array): void {
  const decoded = decodeRelayFrame(bytes);
  if (!decoded.ok) return failure(`the relay sent a host a frame its decoder refuses: ${decoded.error.message}`);
  const f = decoded.value;
  switch (f.type) {
    case 'ready':
      if (f.hostId !== host.identity.hostId) failure('the relay said ready for another host id');
      return;
    case 'about':
      // The fuzzed node serves no app (the switchboard's default): it must not say otherwise.
      if (f.servesApp) failure('a relay that serves no app said it does');
      return;
    case 'open': {
      const a = attempt;
      if (!a || a.hostId !== host.identity.hostId || a.device.deviceId !== f.deviceId) {
        return failure('a host was told of a device that never presented a ticket for it');
      }
      if (!mayOpen(a)) return failure('a forged, expired or foreign ticket was let through');
      if (host.conns.has(f.connId)) failure('a connection id was used twice on one link');
      a.device.connId = f.connId;
      host.conns.set(f.connId, a.device);
      count('device:opened');
      return;
    }
    case 'data': {
      const device = host.conns.get(f.connId);
      if (!device) return failure('a host got data for a connection it was never told of');
      if (!device.toHost.take(f.payload)) failure('a host got bytes its device never sent');
      return;
    }
    case 'close':
      if (!host.conns.delete(f.connId)) failure('a host was told of the close of a connection it never had');
      return;
    case 'pair-request':
    case 'call-request': {
      const kind = f.type === 'pair-request' ? 'pair' : 'call';
      const request = [...inFlight.values()].find(
        (r) => !r.reached && r.kind === kind && r.hostId === host.identity.hostId && r.body === hex(f.body),
      );
      if (!request) return failure(`a ${kind} request reached a host it was not sent to`);
      request.reached = true;
      queueMicrotask(() => answerRequest(host, request, f.reqId));
      return;
    }
    case 'ping':
      queueMicrotask(() => host.port.deliver(frame({ type: 'pong', nonce: f.nonce })));
      return;
    case 'pong':
      return;
    default:
      failure(`the relay sent a host a ${f.type} frame`);
  }
}

/**
 * The host answers a forwarded request: well, with another body, or not at all; seldom with a
 * changed header or garbage, which ends its link.
 */
function answerRequest(host: FuzzHost, request: InFlight, reqId: number): void {
  const roll = random();
  if (roll < 0.05) return;
  const valid = frame({ type: 'reply', reqId, status: pick(STATUSES), body: utf8Encode(`{"r":${reqId}}`) });
  const bytes =
    roll < 0.75
      ? valid
      : roll < 0.99
        ? mutateFrom(valid, FIXED_BYTES[RelayFrameType.Reply]!)
        : roll < 0.997
          ? mutate(valid)
          : randomBytes(40);
  const sent = decodeRelayFrame(bytes);
  if (sent.ok && sent.value.type === 'reply' && sent.value.reqId === reqId) {
    request.reply = { status: sent.value.status, body: sent.value.body.slice() };
  }
  host.port.deliver(bytes);
}

/** The live link for host `i`, linked again when the last one closed. */
function liveHost(i: number): FuzzHost {
  const current = hosts[i];
  if (current && !current.port.isClosed) return current;
  if (current) hostGone(current);
  const host = linkHost(identities[i]!);
  hosts[i] = host;
  return host;
}

/** A host's link closed: each of its devices must have been closed with it. */
function hostGone(host: FuzzHost): void {
  checkReason(host.port);
  for (const device of host.devices) {
    if (device.connId !== undefined && !device.port.isClosed) failure('a device outlived its host link');
  }
  host.devices = [];
}

// ---------------------------------------------------------------- cases

let earlierAnswer: Uint8Array | undefined;

/** A new socket at /relay/host answering its challenge with a mutated answer, or garbage. */
function hostAuth(): void {
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
async function deviceConnect(): Promise<void> {
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
  attempt = {
    device,
    hostId: target.identity.hostId,
    ticket,
    key: issuer.sign.publicKey,
    valid: issuer === target.identity && !expired,
    sent,
  };
  port.deliver(sent, roll < 0.99);
  attempt = undefined;
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

/** Bytes before each frame type's variable part: version, type, then connId, or reqId and status. */
const FIXED_BYTES: Partial<Record<number, number>> = {
  [RelayFrameType.Data]: 6,
  [RelayFrameType.Reply]: 8,
};

/** `seed` with its first `keep` bytes as they are and the rest mutated. */
function mutateFrom(seed: Uint8Array, keep: number): Uint8Array {
  return concatBytes(seed.subarray(0, keep), mutate(seed.subarray(keep)));
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
const STATUSES = [200, 201, 299, 400, 403, 404, 409, 429, 500, 503, 599];

/**
 * A frame from an authenticated host: for one of its own connections (or none), with its fields
 * changed. A frame that does not decode ends the link, and a new link costs two Ed25519
 * operations of several milliseconds each; so most changes keep the frame decodable (a payload,
 * a body, a code, a reason, a status, a nonce), and a few in a hundred change its fixed fields or
 * header, send garbage, or send a frame only the relay sends.
 */
function hostFrame(): void {
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
async function deviceSends(): Promise<void> {
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
function churn(): void {
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

/** One HTTP request at the relay's app, with the answer checked. */
async function http(): Promise<void> {
  const host = liveHost(Math.floor(random() * 2));
  const kind = chance(0.5) ? 'pair' : 'call';
  const hostId = chance(0.85) ? host.identity.hostId : chance(0.5) ? pick(strangerHostIds) : 'not-a-host';
  const paths = [
    `/relay/${kind}/${hostId}`,
    `/relay/${kind}/${hostId}`,
    `/relay/${kind}/${hostId}`,
    '/relay/host',
    `/relay/connect/${hostId}`,
    '/relay/elsewhere',
    '/healthz',
    '/metrics',
    '/',
    '/assets/x.js',
  ];
  let path = pick(paths);
  if (chance(0.05)) path = Buffer.from(mutate(utf8Encode(path))).toString('latin1');
  let url: URL;
  try {
    url = new URL(path, 'http://relay.fuzz');
  } catch {
    return;
  }
  const method = chance(0.85) ? 'POST' : pick(['GET', 'OPTIONS', 'PUT', 'DELETE', 'HEAD']);
  const seed = kind === 'pair' ? pairBody() : pick(callBodies);
  const roll = random();
  const body =
    roll < 0.5
      ? seed
      : roll < 0.9
        ? mutate(seed)
        : roll < 0.97
          ? randomBytes(300)
          : new Uint8Array(RELAY_MAX_CALL_BODY + 1 + Math.floor(random() * 10));
  const headers: Record<string, string> = {};
  if (chance(0.9)) headers['content-type'] = kind === 'pair' ? 'application/json' : 'application/octet-stream';
  if (chance(0.1)) headers['x-forwarded-for'] = pick(['1.2.3.4', 'junk', '2001:db8::9, 10.0.0.1', '']);
  const upgrade = chance(0.05);
  if (upgrade) {
    headers.upgrade = 'websocket';
    headers.connection = 'Upgrade';
  }
  const hasBody = method === 'POST' || method === 'PUT' || method === 'DELETE';
  const id = nextRequest++;
  const record: InFlight = { kind, hostId, body: hex(body), reached: false, reply: undefined };
  inFlight.set(id, record);
  let done = false;
  const answer = Promise.resolve(
    app.request(
      url.pathname + url.search,
      { method, headers, ...(hasBody ? { body: body as Uint8Array<ArrayBuffer> } : {}) },
      { incoming: { socket: { remoteAddress: pick(SOURCES) } } },
    ),
  ).finally(() => (done = true));
  // A request the host has not answered waits for its deadline on the manual clock.
  for (let waits = 0; !done; waits++) {
    await settle();
    if (done) break;
    if (waits === 20) return failure(`${method} ${url.pathname}: no answer after every deadline passed`);
    clock.advance(Math.max(LIMITS.pairReplyWaitMs, LIMITS.callReplyWaitMs) + 1);
  }
  let response: Response;
  try {
    response = await answer;
  } catch (error) {
    inFlight.delete(id);
    return failure(`the app threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  inFlight.delete(id);
  const text = new Uint8Array(await response.arrayBuffer());
  count(`http:${response.status}`);
  if (!response.headers.get('content-security-policy')) failure(`${url.pathname}: no security headers`);
  if (!response.headers.get('cache-control')) failure(`${url.pathname}: no cache-control`);
  const socketPath = url.pathname === '/relay/host' || url.pathname.startsWith('/relay/connect/');
  // The host's own answer passes through as it is.
  if (record.reply && sameBytes(text, record.reply.body) && response.status === record.reply.status) return;
  if (response.status === 500) {
    // `app.request` has no socket to upgrade: only an admitted WebSocket request ends here.
    if (!(upgrade && (method === 'GET' || method === 'HEAD') && socketPath)) failure(`${method} ${url.pathname}: 500`);
    return;
  }
  if (record.reply) {
    failure(`${url.pathname}: the host answered ${record.reply.status} but the caller got ${response.status}`);
  }
  if (url.pathname === '/metrics' && response.status === 200) {
    const body = new TextDecoder().decode(text);
    for (const h of identities) if (body.includes(h.hostId)) failure('/metrics names a host');
    for (const s of SOURCES) if (body.includes(s)) failure('/metrics names an address');
  }
  if (url.pathname.startsWith('/relay/') && response.status >= 400 && method !== 'HEAD') {
    let code: unknown;
    try {
      code = (JSON.parse(new TextDecoder().decode(text)) as { error?: { code?: unknown } }).error?.code;
    } catch {
      code = undefined;
    }
    if (typeof code !== 'string' || !isErrorCode(code)) {
      failure(`${method} ${url.pathname}: ${response.status} without a stable error code`);
    }
  }
}

/** Time passes: auth deadlines, pings, request deadlines. */
function tick(): void {
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

/** Lets queued microtasks and promise callbacks run (timers stay on the manual clock). */
async function settle(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

// ---------------------------------------------------------------- bounds

/** Memory the relay holds must all be in its outboxes, within their bounds; the counts must add up. */
function checkBounds(): void {
  for (const port of ports) if (port.isClosed) ports.delete(port);
  const census = board.census;
  if (census.open !== ports.size) failure(`the census counts ${census.open} open sockets, there are ${ports.size}`);
  if (census.pending < 0 || census.pending > census.open) failure(`the census counts ${census.pending} pending`);
  if (census.pending > LIMITS.maxPendingAuth + 64) failure('pending sockets past their bound');
  let queued = 0;
  let pending = 0;
  for (const host of hosts) {
    const outbox = host.link.peer.outbox;
    if (!host.port.isClosed) queued += outbox.bytes;
    pending += host.link.pendingRequests;
    if (outbox.frames > LIMITS.hostOutboxFrames) failure('a host outbox holds more frames than its bound');
    if (outbox.bytes > LIMITS.hostOutboxBytes + 16 * 1024) failure('a host outbox holds more bytes than its bound');
    if (host.link.pendingRequests > LIMITS.maxPendingRequestsPerHost) failure('a host has too many waiting requests');
    for (const device of host.devices) {
      if (device.port.isClosed) continue;
      const o = device.conn.peer.outbox;
      queued += o.bytes;
      if (o.frames > LIMITS.deviceOutboxFrames) failure('a device outbox holds more frames than its bound');
      if (o.bytes > LIMITS.deviceOutboxBytes + 16 * 1024) failure('a device outbox holds more bytes than its bound');
    }
  }
  if (board.budget.used !== queued) failure(`the node budget says ${board.budget.used} bytes, outboxes hold ${queued}`);
  if (board.budget.used > LIMITS.nodeQueuedBytes + 16 * 1024) failure('the node holds more bytes than its budget');
  if (board.requests.size !== pending)
    failure(`the node counts ${board.requests.size} waiting requests, hosts ${pending}`);
}

// ---------------------------------------------------------------- run

liveHost(0);
liveHost(1);
await settle();
for (let i = 0; budget.more() && failureCount === 0; i++) {
  budget.tried++;
  const roll = random();
  try {
    // Connects and host answers are few: each costs an Ed25519 check of a few milliseconds.
    if (roll < 0.3) hostFrame();
    else if (roll < 0.52) await deviceSends();
    else if (roll < 0.54) await deviceConnect();
    else if (roll < 0.544) hostAuth();
    else if (roll < 0.574) churn();
    else await http();
  } catch (error) {
    failure(`threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  if (i % 64 === 0) await settle();
  if (i % 500 === 0) tick();
  checkBounds();
  budget.progress('relay');
}

// Everything closes: every count goes back to zero, and the app still answers.
await settle();
board.closeAll(true);
for (const port of ports) port.hangUp(CloseCode.Normal, 'end');
await settle();
for (const port of ports) if (port.isClosed) ports.delete(port);
if (board.census.open !== 0 || board.census.pending !== 0) failure('sockets still counted after closing all');
if (board.budget.used !== 0) failure(`${board.budget.used} bytes still counted after closing all`);
if (board.requests.size !== 0) failure('requests still counted after closing all');
const health = await app.request('/healthz');
if (health.status !== 200) failure(`/healthz answered ${health.status} at the end`);

console.log(`fuzz relay: ${budget.summary()}, ${failureCount} failures`);
console.log(
  `  outcomes: ${[...outcomes]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}=${n}`)
    .join(', ')}`,
);
const named = [
  ...REFUSAL_REASONS.map((r) => [r, metrics.refusals(r)] as const),
  ...DROP_REASONS.map((r) => [r, metrics.drops(r)] as const),
];
console.log(
  `  refused and dropped by reason: ${named
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k}=${n}`)
    .join(', ')}`,
);
for (const f of failures) console.log(`  ${f}`);
if (failureCount > 0) console.log(`  again with: npm run fuzz -- relay --seed ${seeded.seed}`);
process.exit(failureCount > 0 ? 1 : 0);
