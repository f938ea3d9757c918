import { fromHex, toHex } from '../encoding.js';
import { boxKeyPairFromSecret } from '../identity.js';
import { encodeChannelMessage } from '../rpc/channel.js';
import { scriptedRandom } from './scripted-random.js';
import { MachineLinkInitiator, acceptMachineHello } from '../machine/link-handshake.js';
import { MAX_LINK_FRAME_PLAINTEXT } from '../machine/machine-limits.js';
import { encodeBodyChunk } from '../machine/link-body.js';
import type { LinkAead } from '../machine/link-aead.js';
import { typescriptLinkAead } from '../machine/link-aead.js';
import { LinkFrameOpener, LinkFrameSealer } from '../machine/link-frame.js';

/**
 * Fixed vectors of the machine link: explicit inputs (the host's static key, both ephemeral keys,
 * the welcome's nonce) and the exact bytes of the hello, the welcome, both directions' keys and
 * ivs, and the first sealed messages (a register request, a body chunk). Kept in their own file
 * (`test-vectors/machine-link.json`); checked with the TypeScript AEAD here and with OpenSSL's in
 * machine/src/link/node-link-aead.test.ts, so the two agree byte for byte.
 */
export interface MachineLinkVectors {
  hostSecret: string;
  machineEphemeralSecret: string;
  hostEphemeralSecret: string;
  welcomeNonce: string;
  hello: string;
  welcome: string;
  hostKey: string;
  machineToHost: string;
  hostToMachine: string;
  machineToHostIv: string;
  hostToMachineIv: string;
  /** The register request as JSON text, and its first sealed frame under machineToHost. */
  register: string;
  registerFrame: string;
  /** A body chunk (hex) of the reply to request 1, and the machine's second sealed frame that
   * carries it (link-body.ts; machine protocol 2). */
  body?: string;
  bodyFrame?: string;
}

const hex = (h: string) => {
  const b = fromHex(h);
  if (!b) throw new Error(`bad hex in machine-link vectors: ${h.slice(0, 16)}`);
  return b;
};

/** Recomputes every output from the inputs of `v`. */
export function computeMachineLinkVectors(
  v: MachineLinkVectors,
  aead: LinkAead = typescriptLinkAead,
): MachineLinkVectors {
  const initiator = new MachineLinkInitiator(scriptedRandom([hex(v.machineEphemeralSecret)]));
  const hello = initiator.hello();
  const host = boxKeyPairFromSecret(hex(v.hostSecret));
  const accepted = acceptMachineHello(hello, host, scriptedRandom([hex(v.hostEphemeralSecret), hex(v.welcomeNonce)]));
  if (!accepted.ok) throw new Error(`host refused the vector hello: ${accepted.error.message}`);
  const welcomed = initiator.acceptWelcome(accepted.value.welcome);
  if (!welcomed.ok) throw new Error(`machine refused the vector welcome: ${welcomed.error.message}`);
  const sealer = new LinkFrameSealer(aead, welcomed.value.keys.send, MAX_LINK_FRAME_PLAINTEXT);
  const registerFrame = sealer.seal(
    encodeChannelMessage({ t: 'req', id: 1, method: 'machine.register', params: JSON.parse(v.register) as unknown }),
  );
  if (!registerFrame.ok) throw new Error(registerFrame.error.message);
  const bodyFrame = v.body === undefined ? undefined : sealer.seal(encodeBodyChunk(1, hex(v.body)));
  if (bodyFrame && !bodyFrame.ok) throw new Error(bodyFrame.error.message);
  return {
    ...v,
    hello: toHex(hello),
    welcome: toHex(accepted.value.welcome),
    hostKey: toHex(welcomed.value.hostKey),
    machineToHost: toHex(welcomed.value.keys.send.key),
    hostToMachine: toHex(welcomed.value.keys.receive.key),
    machineToHostIv: toHex(welcomed.value.keys.send.iv),
    hostToMachineIv: toHex(welcomed.value.keys.receive.iv),
    registerFrame: toHex(registerFrame.value),
    ...(bodyFrame ? { bodyFrame: toHex(bodyFrame.value) } : {}),
  };
}

export interface MachineLinkCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

/** Recomputes the vectors, checks both sides agree, and opens the sealed register frame. */
export function checkMachineLinkVectors(
  expected: MachineLinkVectors,
  aead: LinkAead = typescriptLinkAead,
): MachineLinkCheck[] {
  const checks: MachineLinkCheck[] = [];
  const same = (name: string, got: unknown, want: unknown) => {
    const a = JSON.stringify(got);
    const b = JSON.stringify(want);
    checks.push(
      a === b ? { name, ok: true } : { name, ok: false, detail: `got ${a.slice(0, 200)} want ${b.slice(0, 200)}` },
    );
  };
  let actual: MachineLinkVectors;
  try {
    actual = computeMachineLinkVectors(expected, aead);
  } catch (error) {
    return [{ name: 'machine link compute', ok: false, detail: String(error) }];
  }
  same('machine hello', actual.hello, expected.hello);
  same('machine welcome', actual.welcome, expected.welcome);
  same('machine host key', actual.hostKey, expected.hostKey);
  same(
    'machine session keys',
    [actual.machineToHost, actual.hostToMachine, actual.machineToHostIv, actual.hostToMachineIv],
    [expected.machineToHost, expected.hostToMachine, expected.machineToHostIv, expected.hostToMachineIv],
  );
  same('machine register frame', actual.registerFrame, expected.registerFrame);
  // The host's side opens the machine's first frame with the key it derived on its own.
  const host = acceptMachineHello(
    hex(expected.hello),
    boxKeyPairFromSecret(hex(expected.hostSecret)),
    scriptedRandom([hex(expected.hostEphemeralSecret), hex(expected.welcomeNonce)]),
  );
  const opened = host.ok
    ? new LinkFrameOpener(aead, host.value.keys.receive, MAX_LINK_FRAME_PLAINTEXT).open(hex(expected.registerFrame))
    : host;
  same(
    'machine register frame opens',
    opened.ok && toHex(opened.value),
    toHex(
      encodeChannelMessage({
        t: 'req',
        id: 1,
        method: 'machine.register',
        params: JSON.parse(expected.register) as unknown,
      }),
    ),
  );
  if (expected.body !== undefined) {
    same('machine body frame', actual.bodyFrame, expected.bodyFrame);
    const receiver = host.ok ? new LinkFrameOpener(aead, host.value.keys.receive, MAX_LINK_FRAME_PLAINTEXT) : undefined;
    const body = receiver?.open(hex(expected.registerFrame)).ok
      ? receiver.open(hex(expected.bodyFrame ?? ''))
      : undefined;
    same('machine body frame opens', body?.ok && toHex(body.value), toHex(encodeBodyChunk(1, hex(expected.body))));
  }
  return checks;
}
