import type { ClientState } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { Store } from '../lib/store.js';
import { reachOf, watchReach } from './reachability.js';

const open: ClientState = { name: 'open' };
const firstDial: ClientState = { name: 'connecting', attempt: 0 };
const redial: ClientState = { name: 'connecting', attempt: 3 };
const failed: ClientState = { name: 'waiting', attempt: 0, retryAt: 0, error: { code: 'unavailable', message: '' } };
const refusedUnsealed: ClientState = {
  name: 'waiting',
  attempt: 2,
  retryAt: 0,
  error: { code: 'handshake-failed', message: '' },
};
const refused: ClientState = { name: 'refused', error: { code: 'revoked', message: '' } };

describe('reachOf', () => {
  it('is reachable while any computer answers, whatever the browser says', () => {
    expect(reachOf(false, [failed, open])).toBe('reachable');
    expect(reachOf(true, [open, redial])).toBe('reachable');
  });

  it('believes the browser only when nothing is open', () => {
    expect(reachOf(false, [firstDial])).toBe('no-network');
    expect(reachOf(false, [])).toBe('no-network');
  });

  it('says unreachable when the network looks up but every computer failed its last attempt', () => {
    expect(reachOf(true, [failed])).toBe('unreachable');
    expect(reachOf(true, [failed, redial])).toBe('unreachable');
  });

  it('says nothing yet while a computer is being dialled for the first time', () => {
    expect(reachOf(true, [firstDial])).toBe('checking');
    expect(reachOf(true, [failed, firstDial])).toBe('checking');
  });

  it('has nothing to reach without computers, or with only refusing ones', () => {
    expect(reachOf(true, [])).toBe('reachable');
    expect(reachOf(true, [refused, { name: 'idle' }])).toBe('reachable');
    expect(reachOf(true, [refused, failed])).toBe('unreachable');
  });

  it('counts an unsealed refusal as an answer: the path works, the row explains', () => {
    expect(reachOf(true, [refusedUnsealed])).toBe('reachable');
  });
});

describe('watchReach', () => {
  it('follows the network hint, each connection, and connections coming and going', () => {
    const connections: { status: Store<ClientState> }[] = [{ status: new Store<ClientState>(firstDial) }];
    const app = { connectionsVersion: new Store(0), allConnections: () => connections as never[] };
    const network = new Store(true);
    const reach = watchReach(app, network);
    expect(reach.get()).toBe('checking');

    connections[0]!.status.set(failed);
    expect(reach.get()).toBe('unreachable');
    network.set(false);
    expect(reach.get()).toBe('no-network');
    network.set(true);

    const second = { status: new Store<ClientState>(open) };
    connections.push(second);
    app.connectionsVersion.set(1);
    expect(reach.get()).toBe('reachable');
    second.status.set(failed);
    expect(reach.get()).toBe('unreachable');

    // A connection that was dropped is no longer listened to.
    const dropped = connections.pop()!;
    app.connectionsVersion.set(2);
    connections[0]!.status.set(open);
    expect(reach.get()).toBe('reachable');
    dropped.status.set(failed);
    expect(reach.get()).toBe('reachable');
  });
});
