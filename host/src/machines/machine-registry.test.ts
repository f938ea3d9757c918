import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalContext } from '@tether/machine';
import { afterEach, describe, expect, it } from 'vitest';
import type { MachineKit } from './testing/machine-kit.js';
import { machineKit } from './testing/machine-kit.js';

let kit: MachineKit;
afterEach(async () => {
  await kit.close();
});

describe('machine registration', () => {
  it('registers a machine with a token, binds its id, and publishes its status', async () => {
    kit = machineKit();
    const { token, record } = kit.tokens.create('laptop', Date.now());
    const machine = kit.machine({ token });
    expect(await machine.reached('linked')).toMatchObject({ name: 'linked', hostId: 'h_test', machineId: 'm_laptop' });
    expect(kit.registry.list()).toEqual([
      {
        id: 'm_laptop',
        name: 'laptop',
        status: 'online',
        roots: [machine.root],
        lastSeenAt: expect.any(Number) as number,
      },
    ]);
    expect(kit.store.get('m_laptop')?.tokenId).toBe(record.id);
    expect(kit.events.at(-1)).toMatchObject({ type: 'machine.status', machine: { name: 'laptop', status: 'online' } });
    expect(kit.tokens.get(record.id)?.lastUsedAt).not.toBeNull();
    // Its tools work there.
    writeFileSync(join(machine.root, 'only-here.txt'), 'machine file');
    const context = kit.registry.context('laptop')!;
    expect(await context.readFile(machine.root, 'only-here.txt', 100)).toMatchObject({
      ok: true,
      value: { text: 'machine file' },
    });
    // A file over the limit is refused, or with `head` its beginning is read and its size told.
    writeFileSync(join(machine.root, 'large.md'), `Start.${'x'.repeat(5000)}`);
    expect(await context.readFile(machine.root, 'large.md', 100)).toMatchObject({
      ok: false,
      error: { code: 'too-large' },
    });
    expect(await context.readFile(machine.root, 'large.md', 10, { head: true })).toEqual({
      ok: true,
      value: { text: 'Start.xxxx', size: 5006 },
    });
    // A cut that falls inside a character ends before it, never on half of one.
    writeFileSync(join(machine.root, 'accents.md'), `abcdefgh${'é'.repeat(100)}`);
    expect(await context.readFile(machine.root, 'accents.md', 11, { head: true })).toEqual({
      ok: true,
      value: { text: 'abcdefghé', size: 208 },
    });
    // Bytes that are not UTF-8 read as a local read gives them: each bad sequence one U+FFFD.
    const bad = Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82, 0x63, 0xf0, 0x9f, 0x98, 0x80, 0xc3]);
    writeFileSync(join(machine.root, 'bad.txt'), bad);
    const local = await new LocalContext().readFile(machine.root, 'bad.txt', 100);
    expect(local).toEqual({ ok: true, value: { text: 'a\ufffdb\ufffdc😀\ufffd', size: 11 } });
    expect(await context.readFile(machine.root, 'bad.txt', 100)).toEqual(local);
    await machine.stop();
    await new Promise((r) => setTimeout(r, 20));
    expect(kit.events.at(-1)).toMatchObject({ type: 'machine.status', machine: { status: 'offline' } });
  });

  it('refuses an unknown token for good, and keeps only the hash of a known one', async () => {
    kit = machineKit();
    const { token } = kit.tokens.create('laptop', Date.now());
    const stored = kit.db.prepare('SELECT hash FROM tokens').pluck().get() as string;
    expect(stored).not.toContain(token.split('.')[2]!);
    const machine = kit.machine({ token: `${token.slice(0, -2)}xx` });
    const final = await machine.done;
    expect(final).toMatchObject({ forGood: true });
    expect(final.why).toContain('does not know this machine token');
    expect(kit.registry.list()).toEqual([]);
  });

  it('binds a machine id to the token that first registered it', async () => {
    kit = machineKit();
    const first = kit.tokens.create('laptop', Date.now());
    const other = kit.tokens.create('other', Date.now());
    const machine = kit.machine({ token: first.token });
    await machine.reached('linked');
    await machine.stop();
    const impostor = kit.machine({ token: other.token });
    const final = await impostor.done;
    expect(final.why).toContain('bound to another token');
    expect(kit.store.get('m_laptop')?.tokenId).toBe(first.record.id);
    // Once the first token is revoked, a new one may take the id.
    kit.tokens.revoke(first.record.id, Date.now());
    const rebound = kit.machine({ token: other.token });
    expect(await rebound.reached('linked')).toMatchObject({ name: 'linked' });
    expect(kit.store.get('m_laptop')?.tokenId).toBe(other.record.id);
  });

  it('refuses a name that belongs to another machine', async () => {
    kit = machineKit();
    const { token } = kit.tokens.create('shared', Date.now());
    const first = kit.machine({ token, machineId: 'm_one', name: 'laptop' });
    await first.reached('linked');
    const second = kit.machine({ token, machineId: 'm_two', name: 'laptop', root: join(kit.base, 'second') });
    expect((await second.done).why).toContain('belongs to another machine');
  });

  it('revoking a token drops its live link at once, and the machine stops for good', async () => {
    kit = machineKit();
    const { token, record } = kit.tokens.create('laptop', Date.now());
    const machine = kit.machine({ token });
    await machine.reached('linked');
    kit.tokens.revoke(record.id, Date.now());
    expect(kit.registry.dropToken(record.id, record.name)).toBe(1);
    const final = await machine.done;
    expect(final).toMatchObject({ forGood: true });
    expect(final.why).toContain('the machine token laptop was revoked');
    expect(kit.registry.list()[0]?.status).toBe('offline');
  });

  it('forgetting a machine drops it, and its token may not bring it back', async () => {
    kit = machineKit();
    const { token } = kit.tokens.create('laptop', Date.now());
    const machine = kit.machine({ token });
    await machine.reached('linked');
    expect(kit.registry.forget('laptop')).toEqual({ ok: true, value: {} });
    expect((await machine.done).forGood).toBe(true);
    expect(kit.registry.list()).toEqual([]);
    const again = kit.machine({ token });
    expect((await again.done).why).toContain('was forgotten');
    // A new token may share it again.
    const fresh = kit.tokens.create('laptop again', Date.now());
    const back = kit.machine({ token: fresh.token });
    expect(await back.reached('linked')).toMatchObject({ name: 'linked' });
  });

  it('refuses a machine that asks the host anything but to register', async () => {
    kit = machineKit();
    const { token } = kit.tokens.create('laptop', Date.now());
    const machine = kit.machine({ token });
    await machine.reached('linked');
    const peer = (machine.agent as unknown as { peer: { request(m: string, p: unknown): Promise<unknown> } }).peer;
    expect(await peer.request('sessions.list', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await peer.request('machine.register', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });
});
