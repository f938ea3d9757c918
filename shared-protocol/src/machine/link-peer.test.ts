import { describe, expect, it } from 'vitest';
import { memoryPipe } from '../client/memory-transport.js';
import { MAX_ERROR_MESSAGE, fail, ok } from '../errors.js';
import { generateBoxKeyPair } from '../identity.js';
import { ManualClock } from '../testing/manual-clock.js';
import { seededRandom } from '../testing/seeded-random.js';
import { acceptMachineLink, openMachineLink } from './link-open.js';
import { typescriptLinkAead as aead } from './link-aead.js';
import type { LinkPeer } from './link-peer.js';
import { LINK_BODY_CHUNK_BYTES, encodeBodyChunk } from './link-body.js';
import {
  LINK_PING_INTERVAL_MS,
  LINK_PONG_TIMEOUT_MS,
  MAX_LINK_BODY_BYTES,
  MAX_LINK_FRAME_PLAINTEXT,
} from './machine-limits.js';
import { jsonBytes } from '../json.js';
import { CloseCode, closeCodeToError } from '../close-codes.js';
import { MACHINE_LINK_VERSION } from './link-handshake.js';

const tick = () => new Promise<void>((resolve) => setTimeout(() => resolve(), 0));

async function linked(options: { pin?: Uint8Array } = {}) {
  const clock = new ManualClock();
  const random = seededRandom('link peer');
  const host = generateBoxKeyPair(random);
  const [machineEnd, hostEnd] = memoryPipe();
  const accepting = acceptMachineLink(hostEnd, { clock, random, aead, hostKeys: host });
  const opening = openMachineLink(machineEnd, {
    clock,
    random,
    aead,
    checkHostKey: (key) =>
      options.pin && !options.pin.every((b, i) => b === key[i])
        ? fail('handshake-failed', 'the host key changed')
        : ok(undefined),
  });
  const [hostPeer, machine] = await Promise.all([accepting, opening]);
  return { clock, host, hostPeer, machine, machineEnd, hostEnd };
}

function peers(l: Awaited<ReturnType<typeof linked>>): { host: LinkPeer; machine: LinkPeer } {
  if (!l.hostPeer.ok || !l.machine.ok) throw new Error('the link did not open');
  return { host: l.hostPeer.value, machine: l.machine.value.peer };
}

describe('machine link peer', () => {
  it('carries requests both ways, with replies and errors', async () => {
    const l = await linked();
    const { host, machine } = peers(l);
    expect(l.machine.ok && l.machine.value.hostKey).toEqual(l.host.publicKey);
    machine.onRequest = (method, params) =>
      Promise.resolve(method === 'echo' ? ok(params) : fail('unknown-method', `no ${method}`));
    host.onRequest = () => Promise.resolve(ok({ registered: true }));
    expect(await host.request('echo', { a: 1 })).toEqual({ ok: true, value: { a: 1 } });
    const refused = await host.request('nope', {});
    expect(refused.ok ? '' : refused.error.code).toBe('unknown-method');
    expect(await machine.request('machine.register', {})).toEqual({ ok: true, value: { registered: true } });
  });

  it('delivers events in order', async () => {
    const { host, machine } = peers(await linked());
    const seen: unknown[] = [];
    host.onEvent = (event) => seen.push(event);
    for (let i = 0; i < 5; i++) machine.notify({ type: 'proc.output', n: i });
    await tick();
    expect(seen.map((e) => (e as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('answers a reply over the frame cap as too-large instead of dropping it', async () => {
    const { host, machine } = peers(await linked());
    machine.onRequest = () => Promise.resolve(ok({ text: 'x'.repeat(MAX_LINK_FRAME_PLAINTEXT + 10) }));
    const reply = await host.request('fs.read', {});
    expect(reply.ok ? '' : reply.error.code).toBe('too-large');
  });

  it('answers with an error whose message is over the wire limit cut to it, never leaving the call waiting', async () => {
    const { host, machine } = peers(await linked());
    // A refusal that quotes what it was sent (a mangled path thousands of characters long).
    machine.onRequest = () => Promise.resolve(fail('invalid-params', `Invalid type: ${'x'.repeat(5000)}`));
    const reply = await Promise.race([
      host.request('fs.write', {}),
      tick()
        .then(tick)
        .then(() => 'no reply'),
    ]);
    expect(reply).not.toBe('no reply');
    const error = typeof reply === 'object' && !reply.ok ? reply.error : undefined;
    expect(error?.code).toBe('invalid-params');
    expect(error?.message.length).toBe(MAX_ERROR_MESSAGE);
    expect(error?.message.startsWith('Invalid type: xxx')).toBe(true);
    expect(error?.message.endsWith('…')).toBe(true);
  });

  it('fails what is pending with disconnected when the link drops', async () => {
    const l = await linked();
    const { host, machine } = peers(l);
    machine.onRequest = () => new Promise(() => undefined);
    const pending = host.request('exec.run', {});
    await tick();
    l.machineEnd.close(1006, 'gone');
    const result = await pending;
    expect(result.ok ? '' : result.error.code).toBe('disconnected');
    expect(await host.request('machine.ping', {})).toMatchObject({ ok: false, error: { code: 'disconnected' } });
  });

  it('carries a sealed goodbye with its code to the other side', async () => {
    const { host, machine } = peers(await linked());
    const ended = new Promise((resolve) => machine.onClose(resolve));
    host.bye('revoked', 'the token was revoked');
    expect(await ended).toMatchObject({ code: 'revoked', message: 'the token was revoked' });
  });

  it('carries a goodbye whose message is over the wire limit cut to it, its code intact', async () => {
    const { host, machine } = peers(await linked());
    const ended = new Promise<{ code: string; message: string }>((resolve) => machine.onClose(resolve));
    host.bye('revoked', `revoked: ${'y'.repeat(5000)}`);
    const error = await ended;
    expect(error.code).toBe('revoked');
    expect(error.message.length).toBe(MAX_ERROR_MESSAGE);
    expect(error.message.endsWith('…')).toBe(true);
  });

  it('ends a link whose other end stopped answering pings', async () => {
    const l = await linked();
    const { host } = peers(l);
    const ended = new Promise((resolve) => host.onClose(resolve));
    // The machine goes silent without closing: its frames stop arriving.
    l.hostEnd.onMessage = () => undefined;
    l.clock.advance(LINK_PING_INTERVAL_MS);
    await tick();
    l.clock.advance(LINK_PONG_TIMEOUT_MS);
    expect(await ended).toMatchObject({ code: 'timeout' });
  });

  it('keeps a link alive while pongs come back', async () => {
    const l = await linked();
    const { host } = peers(l);
    // Steps no longer than the pong wait, with the pipe delivering between them.
    for (let i = 0; i < 12; i++) {
      l.clock.advance(Math.min(LINK_PONG_TIMEOUT_MS, LINK_PING_INTERVAL_MS / 2));
      await tick();
    }
    expect(host.closed).toBe(false);
  });

  it('closes on a tampered frame', async () => {
    const l = await linked();
    const { host, machine } = peers(l);
    const ended = new Promise((resolve) => host.onClose(resolve));
    // Send a frame the host's opener did not expect: a replay of the machine's last one.
    machine.notify({ type: 'x' });
    await tick();
    const last = l.machineEnd.sent.at(-1)!;
    l.machineEnd.send(last);
    expect(await ended).toMatchObject({ code: 'frame-replayed' });
  });

  it('ends the link on a frame changed on the way, and on one delivered out of order', async () => {
    const flip = (at: number) => (frame: Uint8Array) => {
      const changed = frame.slice();
      changed[at < 0 ? frame.length + at : at]! ^= 1;
      return changed;
    };
    for (const [change, want] of [
      [flip(-20), 'frame-tampered'],
      [flip(-1), 'frame-tampered'],
      [flip(12), 'frame-reordered'],
      [flip(2), 'frame-wrong-key'],
    ] as const) {
      const l = await linked();
      const { host, machine } = peers(l);
      const ended = new Promise((resolve) => host.onClose(resolve));
      // The machine's next frame goes out changed, in place of the real one.
      const send = l.machineEnd.send.bind(l.machineEnd);
      l.machineEnd.send = (data) => send(change(data));
      machine.notify({ type: 'x' });
      expect(await ended).toMatchObject({ code: want });
    }
    const l = await linked();
    const { host, machine } = peers(l);
    const ended = new Promise((resolve) => host.onClose(resolve));
    const held: Uint8Array[] = [];
    const send = l.machineEnd.send.bind(l.machineEnd);
    l.machineEnd.send = (data) => void held.push(data.slice());
    machine.notify({ n: 1 });
    machine.notify({ n: 2 });
    send(held[1]!);
    expect(await ended).toMatchObject({ code: 'frame-reordered' });
  });

  it('refuses a machine of another link version with a close code it reads as version-unsupported', async () => {
    const clock = new ManualClock();
    const random = seededRandom('old machine');
    const [machineEnd, hostEnd] = memoryPipe();
    const accepting = acceptMachineLink(hostEnd, { clock, random, aead, hostKeys: generateBoxKeyPair(random) });
    const closed = new Promise<{ code: number }>((resolve) => (machineEnd.onClose = resolve));
    // A version 1 hello: same shape, the old version byte.
    machineEnd.send(Uint8Array.of(0x21, 1, ...random(32)));
    const refused = await accepting;
    expect(refused.ok ? 'ok' : refused.error.code).toBe('version-unsupported');
    expect(closeCodeToError((await closed).code)).toBe('version-unsupported');
  });

  it('tells a machine whose host speaks another link version so, and opens nothing', async () => {
    const clock = new ManualClock();
    const random = seededRandom('old host');
    const [machineEnd, hostEnd] = memoryPipe();
    const opening = openMachineLink(machineEnd, { clock, random, aead, checkHostKey: () => ok(undefined) });
    // An older host closes with VersionUnsupported on a hello it does not speak.
    hostEnd.onMessage = () => hostEnd.close(CloseCode.VersionUnsupported, 'version-unsupported');
    const result = await opening;
    expect(result.ok ? 'ok' : result.error.code).toBe('version-unsupported');
    expect(result.ok ? '' : result.error.message).toContain(`machine-link version ${MACHINE_LINK_VERSION}`);
  });

  it('refuses a host whose key does not match the pin', async () => {
    const other = generateBoxKeyPair(seededRandom('someone else'));
    const l = await linked({ pin: other.publicKey });
    expect(l.machine.ok ? 'ok' : l.machine.error.message).toBe('the host key changed');
  });
});

/** Sends a plaintext sealed as the peer's own next frame: what a broken or hostile peer could. */
const sendRaw = (peer: LinkPeer, plain: Uint8Array) =>
  (peer as unknown as { sendPlain(plain: Uint8Array): void }).sendPlain(plain);

describe('reply bodies on a machine link', () => {
  const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7) % 251);

  it('carries a reply body as binary chunks and joins them back under body', async () => {
    const l = await linked();
    const { host, machine } = peers(l);
    const body = bytes(LINK_BODY_CHUNK_BYTES + 5);
    machine.onRequest = () => Promise.resolve(ok({ size: body.length, body }));
    const before = l.machineEnd.sent.length;
    const reply = await host.request('fs.read', {});
    const value = reply.ok ? (reply.value as { size: number; body: Uint8Array }) : undefined;
    expect(value?.size).toBe(body.length);
    // Compared as text: toEqual walks a large array element by element.
    expect(value?.body instanceof Uint8Array && value.body.join()).toBe(body.join());
    // Two chunks and the reply; none near a frame's cap, and no JSON holding the bytes.
    const frames = l.machineEnd.sent.slice(before);
    expect(frames.length).toBe(3);
    expect(Math.max(...frames.map((f) => f.length))).toBeLessThan(LINK_BODY_CHUNK_BYTES + 64);
  });

  it('carries an empty body as an empty array', async () => {
    const { host, machine } = peers(await linked());
    machine.onRequest = () => Promise.resolve(ok({ size: 0, body: new Uint8Array(0) }));
    expect(await host.request('fs.read', {})).toEqual({ ok: true, value: { size: 0, body: new Uint8Array(0) } });
  });

  it('answers a body over the limit as too-large, sending none of it', async () => {
    const l = await linked();
    const { host, machine } = peers(l);
    machine.onRequest = () => Promise.resolve(ok({ body: new Uint8Array(MAX_LINK_BODY_BYTES + 1) }));
    const before = l.machineEnd.sent.length;
    const reply = await host.request('fs.read', {});
    expect(reply.ok ? '' : reply.error.code).toBe('too-large');
    expect(l.machineEnd.sent.length - before).toBe(1);
    expect(host.closed).toBe(false);
  });

  /** The host waits on a request the machine never answers, while the machine sends `frames`. */
  async function hostile(frames: (id: number) => Uint8Array[]) {
    const { host, machine } = peers(await linked());
    machine.onRequest = () => new Promise(() => undefined);
    const ended = new Promise((resolve) => host.onClose(resolve));
    const pending = host.request('fs.read', {});
    await tick();
    // The host's first request has id 1.
    for (const frame of frames(1)) sendRaw(machine, frame);
    return { ended: await ended, reply: await pending };
  }

  it('ends the link on a body chunk for no waiting request', async () => {
    const { ended, reply } = await hostile(() => [encodeBodyChunk(99, bytes(10))]);
    expect(ended).toMatchObject({ code: 'frame-malformed' });
    expect(reply.ok ? '' : reply.error.code).toBe('disconnected');
  });

  it('ends the link on a body past the limit', async () => {
    const chunk = bytes(LINK_BODY_CHUNK_BYTES);
    const count = MAX_LINK_BODY_BYTES / LINK_BODY_CHUNK_BYTES + 1;
    const { ended } = await hostile((id) => Array.from({ length: count }, () => encodeBodyChunk(id, chunk)));
    expect(ended).toMatchObject({ code: 'frame-malformed' });
    expect((ended as { message: string }).message).toMatch(/over/);
  });

  it('ends the link on a reply whose body length differs from its chunks', async () => {
    const { ended } = await hostile((id) => [
      encodeBodyChunk(id, bytes(10)),
      jsonBytes({ t: 'res', id, result: { size: 11, body: 11 } }),
    ]);
    expect(ended).toMatchObject({ code: 'frame-malformed' });
  });

  it('ends the link on a message between a body and its reply', async () => {
    const { ended } = await hostile((id) => [encodeBodyChunk(id, bytes(10)), jsonBytes({ t: 'evt', event: {} })]);
    expect(ended).toMatchObject({ code: 'frame-malformed' });
  });

  it('ends the link on a malformed body frame', async () => {
    const { ended } = await hostile(() => [Uint8Array.of(0, 1, 2)]);
    expect(ended).toMatchObject({ code: 'frame-malformed' });
  });
});
