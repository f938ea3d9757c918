// Writes test-vectors/machine-link.json from seeded inputs. Run only on purpose, when the machine
// link's handshake or framing changes (and then bump MACHINE_LINK_VERSION: old peers would
// produce the old bytes):
//   npx tsx shared-protocol/scripts/generate-machine-vectors.ts
import { writeFileSync } from 'node:fs';
import { toHex } from '../src/encoding.js';
import type { MachineLinkVectors } from '../src/testing/machine-link-vectors.js';
import { computeMachineLinkVectors } from '../src/testing/machine-link-vectors.js';
import { seededRandom } from '../src/testing/seeded-random.js';

const r = seededRandom('tether machine link vectors v1');
const h = (n: number) => toHex(r(n));

const inputs: MachineLinkVectors = {
  hostSecret: h(32),
  machineEphemeralSecret: h(32),
  hostEphemeralSecret: h(32),
  welcomeNonce: h(24),
  hello: '',
  welcome: '',
  hostKey: '',
  machineToHost: '',
  hostToMachine: '',
  machineToHostIv: '',
  hostToMachineIv: '',
  register: JSON.stringify({
    token: 'tm_Qx7pL2mZ_example-secret-not-a-real-token',
    machineId: 'm_3fK9dQ2xL8pZ',
    name: 'laptop',
    roots: ['/home/ada/code'],
    capabilities: ['exec', 'files', 'search', 'processes', 'tasks'],
    protocolVersion: 1,
    version: '0.1.0',
  }),
  registerFrame: '',
  // Bytes a JSON string could not hold as they are: a NUL, an escape, invalid UTF-8.
  body: '00011b5b316d68c3a96c6c6fff0a',
  bodyFrame: '',
};

const vectors = computeMachineLinkVectors(inputs);
const file = new URL('../test-vectors/machine-link.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(vectors, null, 2)}\n`);
console.log(`wrote ${file.pathname}`);
