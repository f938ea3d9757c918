import { request } from 'node:http';
import { PROTOCOL_VERSION, parsePairingLink, relayPairUrl, secureRandom, toBase64Url } from '@tether/shared-protocol';
import { expect, test } from '@playwright/test';
import { makeDataDir, removeDataDir, startHost } from '../support/host-process.js';
import type { RedisProcess, RelayProcess } from '../support/relay-process.js';
import { startRedis, startRelay } from '../support/relay-process.js';

/**
 * Someone who knows a host id (it is in every pairing link naming a relay) asks two relay nodes of
 * one cluster, in turn, to pair with it. Each node lets 10 tries through at once from an address
 * and one more every 6 s, so together they let through more than the host's own limit (20 posts a
 * minute). The answers must read the same for a host that is linked and for an id with no host
 * behind it: the host's own limit must not say that it is there.
 */

const cleanups: (() => Promise<unknown> | void)[] = [];
test.afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** POSTs `body` to `url` from the loopback address `from`: each asker its own address, so the
 * relays' per-address limits count them apart. */
function post(url: string, body: string, from: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', localAddress: from, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(`${res.statusCode} ${text}`));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const stranger = () =>
  JSON.stringify({
    v: PROTOCOL_VERSION,
    pairingId: toBase64Url(secureRandom(16)),
    nonce: toBase64Url(secureRandom(24)),
    box: toBase64Url(secureRandom(48)),
  });

test('two relay nodes answer pair requests for a linked host as for no host, past the host’s own limit', async () => {
  test.setTimeout(90_000);
  const redis: RedisProcess = await startRedis();
  cleanups.push(() => redis.stop());
  const nodes: RelayProcess[] = [];
  for (let i = 0; i < 2; i++) {
    const node = await startRelay(['--no-app', '--redis', redis.url]);
    cleanups.push(() => node.stop());
    nodes.push(node);
  }
  const dataDir = makeDataDir();
  const host = await startHost(dataDir, ['--relay', nodes[0]!.url, '--relay-only']);
  cleanups.push(async () => {
    await host.stop();
    removeDataDir(dataDir);
  });
  const linked = await host.waitFor((l) => l.event === 'relay' && l.state === 'linked');
  const hint = parsePairingLink(String(linked.pairUrl));
  if (!hint.ok || !hint.value.relay) throw new Error('no relay hint in the pairing link');
  const present = hint.value.relay.hostId;
  const absent = toBase64Url(secureRandom(16));

  /** `n` tries at `hostId` from `from`, alternating between the nodes; their answers in order. */
  const ask = async (hostId: string, from: string, n: number, answers: string[]) => {
    for (let i = 0; i < n; i++) {
      const node = nodes[answers.length % 2]!;
      answers.push(await post(relayPairUrl(node.url, hostId)!, stranger(), from));
    }
  };
  const toPresent: string[] = [];
  const toAbsent: string[] = [];
  await Promise.all([ask(present, '127.0.0.2', 20, toPresent), ask(absent, '127.0.0.3', 20, toAbsent)]);
  // Each node has let one more try through since: 22 reached the host, past its 20 a minute.
  await new Promise((resolve) => setTimeout(resolve, 6_500));
  await Promise.all([ask(present, '127.0.0.2', 4, toPresent), ask(absent, '127.0.0.3', 4, toAbsent)]);

  // More than the host's 20 a minute got past the nodes' own limits...
  expect(toAbsent.filter((a) => a.startsWith('410 ')).length).toBeGreaterThan(20);
  // ...and a linked host answered every one of them as no host does.
  expect(toPresent).toEqual(toAbsent);
});
