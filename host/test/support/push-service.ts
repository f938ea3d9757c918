import { execFileSync } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import { Agent, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A stand-in push service for tests, on HTTPS at 127.0.0.1 with a CA of its own (trusted only by
 * the tests' sender). It hands out subscriptions as a browser's push service would (holding each
 * one's private key, as the browser does), and checks every message as a strict push service
 * would: the VAPID JWT (RFC 8292: ES256 under the `k` key, audience = this origin, expiry within
 * 24 h, a mailto:/https: subject), TTL, Urgency and Topic headers, a body of at most 4096 bytes in
 * aes128gcm, which it decrypts (RFC 8291) to hand the test the plaintext.
 */

export interface StandInSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface ReceivedPush {
  subscriptionId: string;
  endpoint: string;
  ttl: number;
  urgency: string | undefined;
  topic: string | undefined;
  /** The decrypted payload, as text. */
  payload: string;
  /** The VAPID JWT's claims and the `k` key it was signed with. */
  vapid: { aud: string; exp: number; sub: string; k: string };
  bodyBytes: number;
  /** What this stand-in answered. */
  status: number;
}

/** What to answer a (valid) message: a status, after a delay, with headers. */
export interface Reply {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
}

interface Keys {
  ecdh: ReturnType<typeof createECDH>;
  publicKey: Buffer;
  auth: Buffer;
}

export interface PushServiceStandIn {
  origin: string;
  /** The CA certificate (PEM) to trust, and its file. */
  ca: string;
  caFile: string;
  /** An agent that trusts the CA: give it to the sender. */
  agent: Agent;
  subscribe(): StandInSubscription;
  /** Every message accepted so far (whatever it was answered). */
  received: ReceivedPush[];
  /** Messages refused as malformed (a bad JWT, a missing header, a body that does not open), by why. */
  refused: string[];
  /** How each valid message is answered; 201 by default. */
  reply: (push: ReceivedPush, index: number) => Reply;
  /** Waits for a received message matching `predicate` (already received, or to come). */
  next(predicate?: (push: ReceivedPush) => boolean, timeoutMs?: number): Promise<ReceivedPush>;
  close(): Promise<void>;
}

export async function startPushService(): Promise<PushServiceStandIn> {
  const dir = mkdtempSync(join(tmpdir(), 'tether-push-'));
  const tls = makeCertificates(dir);
  const subscriptions = new Map<string, Keys>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  const waiters: { predicate: (p: ReceivedPush) => boolean; resolve: (p: ReceivedPush) => void }[] = [];
  let origin = '';
  const service: PushServiceStandIn = {
    origin: '',
    ca: tls.ca,
    caFile: tls.caFile,
    agent: new Agent({ ca: tls.ca, keepAlive: false }),
    received,
    refused,
    reply: () => ({ status: 201 }),
    subscribe: () => {
      const id = randomBytes(12).toString('base64url');
      const ecdh = createECDH('prime256v1');
      const publicKey = ecdh.generateKeys();
      const auth = randomBytes(16);
      subscriptions.set(id, { ecdh, publicKey, auth });
      return {
        endpoint: `${origin}/push/${id}`,
        keys: { p256dh: publicKey.toString('base64url'), auth: auth.toString('base64url') },
      };
    },
    next: (predicate = () => true, timeoutMs = 10_000) => {
      const found = received.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no push arrived; refused: ${refused.join('; ') || 'none'}`)),
          timeoutMs,
        );
        waiters.push({ predicate, resolve: (p) => (clearTimeout(timer), resolve(p)) });
      });
    },
    close: async () => {
      service.agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      rmSync(dir, { recursive: true, force: true });
    },
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const refuse = (status: number, why: string) => {
      refused.push(why);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(why);
    };
    const match = /^\/push\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) return refuse(404, 'no such endpoint');
    const keys = subscriptions.get(match[1]!);
    if (!keys) return refuse(410, 'unknown subscription');
    const vapid = checkVapid(req.headers.authorization, origin);
    if (typeof vapid === 'string') return refuse(401, vapid);
    const ttl = req.headers.ttl;
    if (typeof ttl !== 'string' || !/^\d+$/.test(ttl)) return refuse(400, 'TTL header missing');
    const urgency = header(req, 'urgency');
    if (urgency !== undefined && !['very-low', 'low', 'normal', 'high'].includes(urgency))
      return refuse(400, 'bad Urgency');
    const topic = header(req, 'topic');
    if (topic !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(topic)) return refuse(400, 'bad Topic');
    if (header(req, 'content-encoding') !== 'aes128gcm') return refuse(415, 'not aes128gcm');
    if (body.length > 4096) return refuse(413, 'body over 4096 bytes');
    const payload = decrypt(body, keys);
    if (typeof payload !== 'string') return refuse(400, payload.error);
    const push: ReceivedPush = {
      subscriptionId: match[1]!,
      endpoint: `${origin}${req.url}`,
      ttl: Number(ttl),
      urgency,
      topic,
      payload,
      vapid,
      bodyBytes: body.length,
      status: 0,
    };
    const reply = service.reply(push, received.length);
    push.status = reply.status;
    received.push(push);
    for (const w of [...waiters]) {
      if (!w.predicate(push)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(push);
    }
    const send = () => {
      if (!res.destroyed) res.writeHead(reply.status, reply.headers ?? {}).end();
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  };

  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 64 * 1024) chunks.push(chunk);
    });
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service.origin = origin;
  return service;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** RFC 8292: `vapid t=<JWT>, k=<P-256 public key>`; the claims, or why they do not hold. */
function checkVapid(authorization: string | undefined, origin: string): ReceivedPush['vapid'] | string {
  const match = /^vapid t=([A-Za-z0-9_.-]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!match) return 'no VAPID authorization';
  const [, jwt, k] = match;
  const [head, claims, signature] = jwt!.split('.');
  if (!head || !claims || !signature) return 'JWT is not three parts';
  let header: { typ?: string; alg?: string };
  let body: { aud?: unknown; exp?: unknown; sub?: unknown };
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as typeof header;
    body = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as typeof body;
  } catch {
    return 'JWT is not JSON';
  }
  if (header.alg !== 'ES256') return 'JWT is not ES256';
  const raw = Buffer.from(k!, 'base64url');
  if (raw.length !== 65 || raw[0] !== 4) return 'k is not an uncompressed P-256 key';
  let key: KeyObject;
  try {
    key = createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: raw.subarray(1, 33).toString('base64url'),
        y: raw.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
  } catch {
    return 'k is not a P-256 key';
  }
  const signed = Buffer.from(`${head}.${claims}`);
  if (!verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')))
    return 'JWT signature does not hold';
  if (body.aud !== origin) return `JWT audience ${String(body.aud)} is not ${origin}`;
  const now = Date.now() / 1000;
  if (typeof body.exp !== 'number' || body.exp <= now || body.exp > now + 24 * 3600)
    return 'JWT expiry not within 24 h';
  if (typeof body.sub !== 'string' || !/^(mailto:|https:)/.test(body.sub))
    return 'JWT subject is not mailto: or https:';
  if (/@localhost$|\.local$|localhost/.test(body.sub)) return 'JWT subject is a placeholder (Apple refuses those)';
  return { aud: body.aud, exp: body.exp, sub: body.sub, k: k! };
}

function hmac(key: Buffer, data: Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** RFC 8291 (aes128gcm, one record): the plaintext, or why the body does not open. */
function decrypt(body: Buffer, keys: Keys): string | { error: string } {
  if (body.length < 16 + 4 + 1 + 65 + 17) return { error: 'body too short' };
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  if (idLength !== 65) return { error: 'key id is not a P-256 public key' };
  const senderKey = body.subarray(21, 21 + 65);
  const ciphertext = body.subarray(21 + 65);
  if (ciphertext.length > recordSize) return { error: 'more than one record' };
  let secret: Buffer;
  try {
    secret = keys.ecdh.computeSecret(senderKey);
  } catch {
    return { error: 'sender key is not on the curve' };
  }
  const prkKey = hmac(keys.auth, secret);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), keys.publicKey, senderKey, Buffer.of(1)]);
  const ikm = hmac(prkKey, keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  try {
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
    const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end--;
    if (end < 0 || padded[end] !== 2) return { error: 'no last-record delimiter' };
    return padded.subarray(0, end).toString('utf8');
  } catch {
    return { error: 'body does not decrypt' };
  }
}

/** A CA, and a certificate for 127.0.0.1 it signed, made with openssl. */
function makeCertificates(dir: string): { ca: string; caFile: string; key: string; cert: string } {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run([
    'req', '-x509', ...ec, '-days', '2', '-subj', '/CN=tether test push CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout', 'ca.key', '-out', 'ca.crt',
  ]); // prettier-ignore
  run(['req', '-new', ...ec, '-subj', '/CN=127.0.0.1', '-keyout', 'leaf.key', '-out', 'leaf.csr']);
  writeFileSync(join(dir, 'leaf.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');
  run([
    'x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2',
    '-extfile', 'leaf.ext', '-out', 'leaf.crt',
  ]); // prettier-ignore
  return {
    ca: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    caFile: join(dir, 'ca.crt'),
    key: readFileSync(join(dir, 'leaf.key'), 'utf8'),
    cert: readFileSync(join(dir, 'leaf.crt'), 'utf8'),
  };
}
