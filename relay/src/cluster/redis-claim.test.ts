import { RelayCloseCode, generateHostIdentity } from '@tether/shared-protocol';
import type { HostIdentity } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import type { RelayServer } from '../relay-server.js';
import { FakeDevice, FakeHost, until } from '../testing/clients.js';
import { redisNodes } from '../testing/redis-nodes.js';

/**
 * Two relay nodes on a real redis-server, and two links for one host id accepted at the same
 * moment, one on each node (two processes holding one host key, or a host relinking while its old
 * link is still open): exactly one of them must hold the host, every node must agree which, and
 * the other must be told it was replaced, as one node does with a newer link.
 */

/** Host ids linked twice at once: the two claims cross within a millisecond for some of them. */
const HOSTS = 24;

const cluster = redisNodes();
const node = () => cluster.node({ presenceRefreshMs: 300, presenceTtlMs: 3_000 });

/** A host link, or the close it got before it was ready. */
async function link(relay: RelayServer, identity: HostIdentity): Promise<FakeHost | { refused: string }> {
  try {
    return cluster.track(await FakeHost.connect(relay.url, identity));
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

describe('a host id claimed on two nodes at once', () => {
  it('leaves exactly one link holding it, the same for every node; the other is told it was replaced', async () => {
    const a = await node();
    const b = await node();
    const ids = Array.from({ length: HOSTS }, () => generateHostIdentity());
    const pairs = await Promise.all(ids.map((id) => Promise.all([link(a, id), link(b, id)])));
    const live = (l: FakeHost | { refused: string }) => l instanceof FakeHost && l.closed === undefined;
    // Claims are announced once Redis has them; give every announcement time to arrive, and one
    // presence refresh to find a claim taken without one.
    await until(() => pairs.every((p) => p.filter(live).length <= 1), 'each host to settle', 5_000).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 800));

    for (const [i, pair] of pairs.entries()) {
      const holders = pair.filter(live);
      expect(holders, `host ${i}: links still open`).toHaveLength(1);
      const loser = pair.find((l) => !live(l))!;
      if (loser instanceof FakeHost)
        expect(loser.closed).toEqual({ code: RelayCloseCode.Replaced, reason: 'replaced' });
      else expect(loser.refused).toContain(String(RelayCloseCode.Replaced));
      // A device on either node reaches the one holder.
      const holder = holders[0] as FakeHost;
      holder.echo = true;
      for (const relay of [a, b]) {
        const d = cluster.track(await FakeDevice.connect(relay.url, ids[i]!));
        d.send(Uint8Array.of(i));
        await until(
          () => d.received.length === 1 || d.closed !== undefined,
          `host ${i}: the echo through ${relay.url}`,
        );
        expect(d.closed, `host ${i}: device on ${relay.url}`).toBeUndefined();
        d.close();
      }
    }
  });
});
