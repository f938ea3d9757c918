import { CloseCode, memoryPipe } from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PENDING_MACHINE_LINKS, MAX_PENDING_MACHINE_LINKS_PER_ADDRESS } from './machine-link-server.js';
import type { MachineKit, TestMachine } from './testing/machine-kit.js';
import { machineKit } from './testing/machine-kit.js';

let kit: MachineKit;
afterEach(async () => kit.close());

/** A socket that opens a machine link and never says hello; records how it was closed. */
function silentSocket(address: string, closed: { address: string; code: number }[]): void {
  const [silent, hostEnd] = memoryPipe();
  silent.onClose = ({ code }) => closed.push({ address, code });
  kit.server.accept(hostEnd, address);
}

/** Lets closes already made reach the other end (a memory pipe delivers them on a later turn). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** The first state after dialling: `linked` when the host took the machine at once. */
async function firstAnswer(machine: TestMachine): Promise<string> {
  const state = await Promise.race([machine.reached('linked'), machine.reached('retrying')]);
  return state.name;
}

describe('the machine link handshake pool', () => {
  it('holds only a few silent sockets per address, so one address cannot lock every machine out', async () => {
    kit = machineKit();
    const closed: { address: string; code: number }[] = [];
    for (let i = 0; i < MAX_PENDING_MACHINE_LINKS + 4; i++) silentSocket('198.51.100.7', closed);
    await settle();
    const refused = MAX_PENDING_MACHINE_LINKS + 4 - MAX_PENDING_MACHINE_LINKS_PER_ADDRESS;
    expect(closed).toHaveLength(refused);
    expect(closed.every((c) => c.code === CloseCode.Busy)).toBe(true);
    expect(kit.stats.get('machine:too-many-handshaking')).toBe(refused);

    const { token } = kit.tokens.create('laptop', Date.now());
    const machine = kit.machine({ token, address: '203.0.113.5' });
    expect(await firstAnswer(machine)).toBe('linked');
  });

  it('counts an IPv6 /64 as one address', async () => {
    kit = machineKit();
    const closed: { address: string; code: number }[] = [];
    for (let i = 1; i <= MAX_PENDING_MACHINE_LINKS_PER_ADDRESS + 1; i++) silentSocket(`2001:db8:1:2::${i}`, closed);
    await settle();
    expect(closed.map((c) => c.address)).toEqual([`2001:db8:1:2::${MAX_PENDING_MACHINE_LINKS_PER_ADDRESS + 1}`]);
    silentSocket('2001:db8:1:3::1', closed);
    await settle();
    expect(closed).toHaveLength(1);
  });

  it('when full, evicts the oldest silent socket of the busiest address, letting machines from anywhere in', async () => {
    kit = machineKit();
    const closed: { address: string; code: number }[] = [];
    const addresses = ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'];
    // The busiest address first and fullest: more than it may hold, then the others fill the pool.
    for (let i = 0; i < MAX_PENDING_MACHINE_LINKS; i++) silentSocket(addresses[0]!, closed);
    const perOther = (MAX_PENDING_MACHINE_LINKS - MAX_PENDING_MACHINE_LINKS_PER_ADDRESS) / (addresses.length - 1);
    for (const address of addresses.slice(1)) for (let i = 0; i < perOther; i++) silentSocket(address, closed);
    await settle();
    expect(closed).toHaveLength(MAX_PENDING_MACHINE_LINKS - MAX_PENDING_MACHINE_LINKS_PER_ADDRESS);
    closed.length = 0;

    // A machine from a new address: the pool is full, so the oldest socket of the busiest goes.
    const first = kit.tokens.create('laptop', Date.now());
    const laptop = kit.machine({ token: first.token, address: '203.0.113.5' });
    expect(await firstAnswer(laptop)).toBe('linked');
    expect(closed).toEqual([{ address: addresses[0], code: CloseCode.Busy }]);
    expect(kit.stats.get('machine:handshake-pool-full')).toBe(1);

    // That address now holds one fewer: a machine behind it links too.
    const second = kit.tokens.create('desktop', Date.now());
    const desktop = kit.machine({
      token: second.token,
      name: 'desktop',
      machineId: 'm_desktop',
      address: addresses[0]!,
    });
    expect(await firstAnswer(desktop)).toBe('linked');
    expect(kit.stats.get('machine:registered')).toBe(2);
  });
});
