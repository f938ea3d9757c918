// Writes test-vectors/vectors.json from seeded inputs. Run only on purpose, when a codec changes
// (and then decide on a PROTOCOL_VERSION bump: old peers would produce the old bytes):
//   npx tsx shared-protocol/scripts/generate-vectors.ts
import { writeFileSync } from 'node:fs';
import { toBase64Url, toHex } from '../src/encoding.js';
import { boxKeyPairFromSecret, generateDeviceId } from '../src/identity.js';
import type { Vectors } from '../src/testing/vectors.js';
import { computeVectors } from '../src/testing/vectors.js';
import { seededRandom } from '../src/testing/seeded-random.js';

const r = seededRandom('tether test vectors v1');
const h = (n: number) => toHex(r(n));
const hostSecret = h(32);

const inputs: Vectors = {
  base64url: ['', '00', '0001', '000102', 'fbff', 'ffffffff', h(32)].map((hex) => ({ hex, text: '' })),
  identity: { boxSecret: hostSecret, signSeed: h(32), boxPublic: '', signPublic: '', hostId: '', fingerprint: '' },
  pairing: {
    base: 'https://laptop.tail1234.ts.net:7420',
    hostBoxPublic: toHex(boxKeyPairFromSecret(r(32)).publicKey),
    pairingId: h(16),
    pairingKey: h(32),
    link: '',
    deviceSecret: h(32),
    label: 'iPhone · Safari',
    deviceNonce: h(32),
    commitment: '',
    commitNonce: h(24),
    commit: null,
    requestId: toBase64Url(r(16)),
    hostNonce: h(32),
    challengeNonce: h(24),
    challenge: null,
    revealNonce: h(24),
    reveal: null,
    confirmationCode: '',
    reply: {
      deviceId: generateDeviceId(r),
      hostId: 'q3Xw9pLzR0a8mN2bC4dE6g',
      hostName: 'laptop',
      hostBoxPublicKey: 'A'.repeat(42) + 'E',
      hostSignPublicKey: 'B'.repeat(42) + 'E',
      scopes: ['watch', 'approve', 'chat', 'terminal'],
    },
    replyNonce: h(24),
    replyBody: null,
  },
  handshake: {
    hostSecret,
    deviceSecret: h(32),
    deviceId: generateDeviceId(r),
    time: 1_767_225_600_000,
    deviceEphemeralSecret: h(32),
    helloNonce: h(24),
    hello: '',
    hostEphemeralSecret: h(32),
    welcomeNonce: h(24),
    welcome: '',
    deviceToHost: '',
    hostToDevice: '',
  },
  frames: { key: h(32), plaintexts: ['', '{"t":"ping","n":1}', 'é'.repeat(40)], frames: [] },
  oneShot: {
    hostSecret,
    deviceSecret: h(32),
    deviceId: generateDeviceId(r),
    time: 1_767_225_600_000,
    ephemeralSecret: h(32),
    nonce: h(24),
    body: '{"t":"req","id":1,"method":"approvals.answer","params":{"id":"a1","decision":"allow-once"}}',
    call: '',
    replyNonce: h(24),
    replyBody: '{"t":"res","id":1,"result":{}}',
    reply: '',
  },
  // Drawn last, so that the vectors above keep their bytes.
  relay: {
    signSeed: h(32),
    deviceId: generateDeviceId(r),
    expiresAt: 1_769_904_000_000,
    ticket: '',
    relayUrl: 'https://relay.example.com',
    time: 1_767_225_600_000,
    challengeNonce: h(32),
    challenge: '',
    auth: '',
    connect: '',
    frames: [
      {
        input: { type: 'open', connId: 1, kind: 'device', deviceId: 'AAECAwQFBgcICQoLDA0ODw', source: '203.0.113.7' },
        hex: '',
      },
      { input: { type: 'data', connId: 1, payload: '0301020304' }, hex: '' },
      { input: { type: 'close', connId: 1, code: 4008, reason: 'slow-consumer' }, hex: '' },
      {
        input: {
          type: 'pair-request',
          reqId: 7,
          source: '2001:db8::1',
          body: toHex(new TextEncoder().encode('{"v":1}')),
        },
        hex: '',
      },
      { input: { type: 'call-request', reqId: 8, source: '203.0.113.7', body: '04' }, hex: '' },
      { input: { type: 'reply', reqId: 7, status: 200, body: toHex(new TextEncoder().encode('{}')) }, hex: '' },
      { input: { type: 'ready', hostId: 'AAECAwQFBgcICQoLDA0ODw', maxConnections: 64, maxPayload: 1048605 }, hex: '' },
      { input: { type: 'ping', nonce: '0001020304050607' }, hex: '' },
      { input: { type: 'pong', nonce: '0001020304050607' }, hex: '' },
    ],
  },
};

const out = new URL('../test-vectors/vectors.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(computeVectors(inputs), null, 2)}\n`);
console.log(`wrote ${out.pathname}`);
