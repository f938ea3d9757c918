// npm run bench -- protocol (after shared-protocol/bench/protocol.ts)
// Full handshakes per second, device and host side in one process on one core, with the X25519
// the host chooses at start (node:crypto, OpenSSL) against tweetnacl's (the app's fallback) in the
// same run. Three X25519 operations a side: ephemeral key, static–static box key, ephemeral–ephemeral.
import type { X25519 } from '@tether/shared-protocol';
import {
  HandshakeInitiator,
  HandshakeResponder,
  ReplayCache,
  generateDeviceId,
  secureRandom,
  systemClock,
  tweetnaclX25519,
} from '@tether/shared-protocol';
import { benchRowLine } from '@tether/shared-protocol/testing';
import { chooseX25519 } from '../src/crypto/node-x25519.js';

/** Rounds per implementation, alternating; each figure is its best round (see protocol.ts). */
const ROUNDS = 9;

function best(values: number[]): number {
  return Math.max(...values);
}

/** Runs `fn` repeatedly for about `ms` and returns operations per second. */
function rate(fn: () => void, ms: number): number {
  for (let i = 0; i < 3; i++) fn();
  let ops = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    fn();
    ops++;
  }
  return ops / ((performance.now() - start) / 1000);
}

function handshake(device: X25519, host: X25519): () => void {
  const hostKeys = host.keyPair(secureRandom);
  const deviceKeys = device.keyPair(secureRandom);
  const deviceId = generateDeviceId();
  const replay = new ReplayCache(systemClock, 1_000_000);
  return () => {
    const init = new HandshakeInitiator({
      deviceId,
      deviceKeys,
      hostBoxPublicKey: hostKeys.publicKey,
      clock: systemClock,
      random: secureRandom,
      x25519: device,
    });
    const responder = new HandshakeResponder({
      hostKeys,
      lookupDevice: () => deviceKeys.publicKey,
      clock: systemClock,
      random: secureRandom,
      replay,
      x25519: host,
    });
    const accepted = responder.acceptHello(init.hello());
    if (!accepted.ok || !init.acceptWelcome(accepted.value.welcome).ok) throw new Error('handshake refused');
  };
}

const chosen = chooseX25519();
const fast: number[] = [];
const mixed: number[] = [];
const slow: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  // Alternate so that machine noise hits each alike.
  fast.push(rate(handshake(chosen, chosen), 250));
  mixed.push(rate(handshake(tweetnaclX25519, chosen), 250));
  slow.push(rate(handshake(tweetnaclX25519, tweetnaclX25519), 250));
}
const perSecond = best(fast);
console.log(`handshakes, device and host side on one core (X25519: ${chosen.name} chosen at start)`);
console.log(`  both ${chosen.name}: ${perSecond.toFixed(0)} per second  (target ≥ 1,000)`);
console.log(`  device tweetnacl (the app's fallback), host ${chosen.name}: ${best(mixed).toFixed(0)} per second`);
console.log(`  both tweetnacl (before): ${best(slow).toFixed(0)} per second`);
console.log(`  ratio against tweetnacl in this run: ${(perSecond / best(slow)).toFixed(2)}×`);
console.log(
  benchRowLine({
    id: 'protocol.handshakes',
    label: `handshakes per second, both sides, one core (${chosen.name}), against tweetnacl in the same run`,
    ratio: perSecond / best(slow),
    better: 'higher',
    detail: { perSecond: Math.round(perSecond), tweetnaclPerSecond: Math.round(best(slow)) },
  }),
);
