import { RELAY_MAX_CALL_BODY, RELAY_MAX_LINK_MESSAGE, fromBase64UrlExact, toBase64Url } from '@tether/shared-protocol';
import type { RawData } from 'ws';
import { WebSocket, WebSocketServer } from 'ws';
import type { RelayMetrics } from '../metrics.js';
import { decodeClusterMessage } from './cluster-message.js';
import type { MeshTranscript } from './mesh-auth.js';
import { NONCE_BYTES, formatMeshAddress, meshNonce, meshProof, proofMatches } from './mesh-auth.js';

/**
 * The node-to-node link: a WebSocket from the node that sends to the node that receives (each
 * node dials the peers it sends to, and takes the links of the peers that send to it). Once both
 * ends have proven the mesh key (mesh-auth.ts), every message is one cluster message in a binary
 * frame, decoded with the cluster schema and from the node the link proved to be.
 *
 *   listener → dialer   text {"t":"challenge","node":L,"nonce":nL}
 *   dialer → listener   text {"t":"proof","node":D,"nonce":nD,"mac":HMAC(key, dial…)}
 *   listener → dialer   text {"t":"welcome","mac":HMAC(key, accept…)}
 *   dialer → listener   binary cluster messages, in order
 */

/** Close codes of a mesh link, each with its reason. */
export const MeshCloseCode = {
  /** A frame that is not the next step of the handshake, or not a cluster message of the peer. */
  BadFrame: 4400,
  /** The proof of the key was wrong (or the listener's answer was). */
  Unauthorized: 4401,
  /** The handshake did not finish in time. */
  AuthTimeout: 4408,
  /** The listener is not the node the dialer looked for (its address is stale). */
  WrongNode: 4409,
  /** The listener holds its most links already. */
  Full: 4503,
} as const;

/** The largest message a link carries: the largest cluster message (a relayed frame, or a call's body). */
const MAX_MESSAGE = Math.max(RELAY_MAX_LINK_MESSAGE, RELAY_MAX_CALL_BODY) + 1024;
/** Handshake text: a few hundred bytes. */
const MAX_HANDSHAKE = 512;
/** Milliseconds a link has to finish its handshake. */
export const MESH_AUTH_TIMEOUT_MS = 5_000;
/** Links a node takes at once (authenticated or not): far more than peers in a cluster. */
export const MAX_MESH_LINKS = 128;
/** Milliseconds between the dialer's pings; a link that goes unanswered as long is ended by the dialer. */
export const MESH_PING_MS = 1_000;
/** Milliseconds a listener keeps a link whose dialer has stopped pinging (a peer gone without a word). */
const MESH_SILENT_MS = 10 * MESH_PING_MS;

const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A handshake step, decoded strictly: undefined unless it is exactly `t` with good fields. */
function step(data: RawData, isBinary: boolean, t: 'challenge' | 'proof' | 'welcome') {
  const raw = Buffer.isBuffer(data) ? data : Buffer.concat([data].flat() as Buffer[]);
  if (isBinary || raw.length > MAX_HANDSHAKE) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || (v as { t?: unknown }).t !== t) return undefined;
  const o = v as Record<string, unknown>;
  const bytes = (name: string) => (typeof o[name] === 'string' ? fromBase64UrlExact(o[name], NONCE_BYTES) : undefined);
  const node = typeof o.node === 'string' && NODE_ID.test(o.node) ? o.node : undefined;
  const nonce = bytes('nonce');
  const mac = bytes('mac');
  const want = { challenge: ['node', 'nonce'], proof: ['node', 'nonce', 'mac'], welcome: ['mac'] }[t];
  if (Object.keys(o).length !== want.length + 1) return undefined;
  if (want.includes('node') && !node) return undefined;
  if ((want.includes('nonce') && !nonce) || (want.includes('mac') && !mac)) return undefined;
  return { node: node ?? '', nonce: nonce ?? new Uint8Array(), mac: mac ?? new Uint8Array() };
}

const asBytes = (data: RawData): Uint8Array => {
  const b = Buffer.isBuffer(data) ? data : Buffer.concat([data].flat() as Buffer[]);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};

export interface MeshListenerOptions {
  key: Uint8Array;
  nodeId: string;
  host: string;
  port: number;
  metrics: RelayMetrics;
  /** A message from an authenticated peer, already checked to be a cluster message from it. */
  onMessage(bytes: Uint8Array): void;
  /** An authenticated peer's link closed: what it sent last may be lost. */
  onPeerGone(node: string): void;
}

/** Takes the links of the peers that send to this node. */
export class MeshListener {
  /** Ends the links whose dialers have stopped pinging. */
  private readonly sweep: ReturnType<typeof setInterval>;

  private constructor(
    private readonly wss: WebSocketServer,
    readonly address: string,
    heard: WeakMap<WebSocket, number>,
  ) {
    this.sweep = setInterval(() => {
      const silentSince = Date.now() - MESH_SILENT_MS;
      for (const ws of wss.clients) if ((heard.get(ws) ?? Infinity) < silentSince) ws.terminate();
    }, MESH_SILENT_MS / 2);
    this.sweep.unref();
  }

  static listen(o: MeshListenerOptions): Promise<MeshListener | string> {
    return new Promise((resolve) => {
      const wss = new WebSocketServer({
        host: o.host,
        port: o.port,
        maxPayload: MAX_MESSAGE,
        perMessageDeflate: false,
      });
      wss.once('error', (e) => resolve(`the mesh cannot listen on ${formatMeshAddress(o.host, o.port)}: ${e.message}`));
      wss.once('listening', () => {
        const port = (wss.address() as { port: number }).port;
        const links = { latest: new Map<string, WebSocket>(), heard: new WeakMap<WebSocket, number>() };
        wss.on('connection', (ws) => accept(ws, wss, links, o));
        resolve(new MeshListener(wss, formatMeshAddress(o.host, port), links.heard));
      });
    });
  }

  close(): Promise<void> {
    clearInterval(this.sweep);
    for (const ws of this.wss.clients) ws.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }
}

/** Takes one link; `latest` holds each peer's newest authenticated link, `heard` when each
 * authenticated link last brought a ping. */
function accept(
  ws: WebSocket,
  wss: WebSocketServer,
  { latest, heard }: { latest: Map<string, WebSocket>; heard: WeakMap<WebSocket, number> },
  o: MeshListenerOptions,
): void {
  const refuse = (code: number, reason: 'mesh-bad-frame' | 'mesh-unauthorized' | 'mesh-auth-timeout' | 'mesh-full') => {
    o.metrics.refuse(reason);
    ws.close(code, reason);
  };
  ws.on('error', () => {});
  if (wss.clients.size > MAX_MESH_LINKS) return refuse(MeshCloseCode.Full, 'mesh-full');
  const listenerNonce = meshNonce();
  let peer: string | undefined;
  const timer = setTimeout(() => refuse(MeshCloseCode.AuthTimeout, 'mesh-auth-timeout'), MESH_AUTH_TIMEOUT_MS);
  timer.unref();
  ws.send(JSON.stringify({ t: 'challenge', node: o.nodeId, nonce: toBase64Url(listenerNonce) }));
  ws.on('message', (data, isBinary) => {
    if (peer !== undefined) {
      const bytes = asBytes(data);
      const decoded = isBinary ? decodeClusterMessage(bytes) : undefined;
      if (!decoded?.ok || decoded.value.from !== peer) return refuse(MeshCloseCode.BadFrame, 'mesh-bad-frame');
      return o.onMessage(bytes);
    }
    const proof = step(data, isBinary, 'proof');
    if (!proof) return refuse(MeshCloseCode.BadFrame, 'mesh-bad-frame');
    const t = { listenerNonce, dialerNonce: proof.nonce, dialer: proof.node, listener: o.nodeId };
    if (proof.node === o.nodeId || !proofMatches(proof.mac, meshProof(o.key, 'dial', t))) {
      return refuse(MeshCloseCode.Unauthorized, 'mesh-unauthorized');
    }
    clearTimeout(timer);
    peer = proof.node;
    latest.set(peer, ws);
    heard.set(ws, Date.now());
    ws.on('ping', () => heard.set(ws, Date.now()));
    ws.send(JSON.stringify({ t: 'welcome', mac: toBase64Url(meshProof(o.key, 'accept', t)) }));
  });
  ws.on('close', () => {
    clearTimeout(timer);
    // A link the peer has already replaced says nothing of the streams on its newer one.
    if (peer === undefined || latest.get(peer) !== ws) return;
    latest.delete(peer);
    o.onPeerGone(peer);
  });
}

/** A link this node dialed to one peer: it sends, in order, and says when it closes. */
export class MeshConn {
  onClose: (() => void) | null = null;
  private closed = false;

  constructor(private readonly ws: WebSocket) {
    ws.on('close', () => this.gone());
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Resolves true once the message is written to the socket, false if the link closed first. */
  send(bytes: Uint8Array): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => this.ws.send(bytes, { binary: true }, (error) => resolve(!error)));
  }

  /** Checks the peer answers: a ping unanswered by the next check ends the link. */
  watch(everyMs = MESH_PING_MS): void {
    let answered = true;
    this.ws.on('pong', () => (answered = true));
    const timer = setInterval(() => {
      if (!answered) return this.ws.terminate();
      answered = false;
      this.ws.ping();
    }, everyMs);
    timer.unref();
    this.ws.once('close', () => clearInterval(timer));
  }

  /** Closes after what is queued (`graceful`), or at once. */
  close(graceful = false): void {
    if (graceful) this.ws.close(1001, 'leaving');
    else this.ws.terminate();
  }

  private gone(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose?.();
  }
}

/** Dials `peer` at `address` and proves the key both ways; undefined if any step fails or is late. */
export function dialMesh(o: {
  address: string;
  key: Uint8Array;
  self: string;
  peer: string;
  timeoutMs: number;
}): Promise<MeshConn | undefined> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${o.address}/`, {
      perMessageDeflate: false,
      maxPayload: MAX_HANDSHAKE,
      // Masking guards a browser's proxies from a page's chosen bytes; between two nodes it is only a
      // copy of each message: a zero key makes `ws` skip it on both ends.
      generateMask: (mask) => mask.fill(0),
    });
    const done = (conn: MeshConn | undefined, code?: number, reason?: string) => {
      clearTimeout(timer);
      if (!conn) {
        ws.removeAllListeners('message');
        if (code !== undefined && ws.readyState === WebSocket.OPEN) ws.close(code, reason);
        else ws.terminate();
      }
      resolve(conn);
    };
    const timer = setTimeout(() => done(undefined), o.timeoutMs);
    ws.on('error', () => done(undefined));
    ws.on('close', () => done(undefined));
    const dialerNonce = meshNonce();
    let t: MeshTranscript | undefined;
    ws.on('message', (data, isBinary) => {
      if (!t) {
        const challenge = step(data, isBinary, 'challenge');
        if (!challenge) return done(undefined, MeshCloseCode.BadFrame, 'mesh-bad-frame');
        if (challenge.node !== o.peer) return done(undefined, MeshCloseCode.WrongNode, 'mesh-wrong-node');
        t = { listenerNonce: challenge.nonce, dialerNonce, dialer: o.self, listener: o.peer };
        const mac = toBase64Url(meshProof(o.key, 'dial', t));
        return ws.send(JSON.stringify({ t: 'proof', node: o.self, nonce: toBase64Url(dialerNonce), mac }));
      }
      const welcome = step(data, isBinary, 'welcome');
      if (!welcome || !proofMatches(welcome.mac, meshProof(o.key, 'accept', t))) {
        return done(undefined, MeshCloseCode.Unauthorized, 'mesh-unauthorized');
      }
      ws.removeAllListeners('close');
      ws.removeAllListeners('error');
      ws.on('error', () => {});
      // Nothing comes this way once open: any message is a peer out of step.
      ws.on('message', () => ws.close(MeshCloseCode.BadFrame, 'mesh-bad-frame'));
      done(new MeshConn(ws));
    });
  });
}
