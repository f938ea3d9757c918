import { PAIR_ANSWER_WAIT_MS, RPC_TIMEOUT_MS } from '@tether/shared-protocol';

/**
 * The relay's bounds, each with its unit and reason. Together they keep a node's memory bounded
 * whatever a client does: every byte the relay holds sits in an outbox with a cap, every table has
 * a cap, and every wait has a deadline. `RelayLimits` gathers them so a test or a bench can shrink
 * or widen them; production uses `DEFAULT_LIMITS`.
 */

/** Milliseconds from a WebSocket opening to a verified first message (host auth or device ticket):
 * 10 s, the same as a device waits for the host's welcome, so a relay never holds a silent socket
 * longer than a real client would wait for it. */
export const AUTH_DEADLINE_MS = 10_000;

/** Bytes a connection may send before it has authenticated: 1 KiB. A host's answer is 98 bytes and a
 * device's connect request 139; anything larger is not a client of ours, and is cut off by the
 * WebSocket parser before it is buffered. */
export const PREAUTH_MAX_BYTES = 1024;

/** Connections awaiting their first message at once, per node: 1,024. Bounds what a crowd of silent
 * sockets can hold (each at most PREAUTH_MAX_BYTES) until the auth deadline clears them. When it is
 * full, a newcomer takes the place of the oldest of the range holding the most (census.ts): a crowd
 * from many ranges delays nobody, since a real client speaks within a round trip. */
export const MAX_PENDING_AUTH = 1024;

/** Of those, from one address range (an IPv4 address, an IPv6 /64): 32; one more is refused (503).
 * Many phones behind one carrier NAT each wait only a round trip, and new connections from one
 * address are limited to 60 at once anyway. */
export const MAX_PENDING_AUTH_PER_ADDRESS = 32;

/** Plain TCP/HTTP sockets one address range may hold open, counted from the connection until it
 * becomes a WebSocket (from then on the pending pool and the connection limits hold it): 64, a few
 * browsers' worth of parallel requests. Past it a new socket is closed at once. A trusted proxy's
 * sockets carry many clients and are not capped. */
export const MAX_SOCKETS_PER_ADDRESS = 64;

/** Milliseconds a new socket may stay silent before its request starts: 5 s, many round trips of a
 * slow mobile link. A socket that has said nothing by then is closed (Node's own deadline for the
 * headers counts only from a request's first byte: a socket that never sent one stayed open for as
 * long as its client liked, over two minutes when measured). */
export const FIRST_BYTE_TIMEOUT_MS = 5_000;

/** Open WebSocket connections per node, of every kind: 20,000. An idle connection costs under 10 KB
 * of RSS (`npm run bench -- relay`), so this keeps a node's sockets under about 300 MB before any
 * traffic; the descriptors (LimitNOFILE) are more often the bound. */
export const MAX_CONNECTIONS = 20_000;

/** Device connections one host may have open through the relay (across nodes on its link): 64, the
 * same cap the host puts on its own listener. */
export const MAX_DEVICE_CONNS_PER_HOST = 64;

/** New WebSocket connections per source address (an IPv6 /64 counts as one): a burst of 60, then one a second. Generous because
 * carrier NAT puts many phones behind one address; strict enough that one address cannot churn a
 * node's connection table. */
export const CONNECT_BURST_PER_ADDRESS = 60;
export const CONNECTS_PER_SECOND_PER_ADDRESS = 1;

/** Pair requests per source address: a burst of 10, then one every 6 s (10 a minute), like the host. */
export const PAIR_BURST_PER_ADDRESS = 10;
export const PAIRS_PER_SECOND_PER_ADDRESS = 10 / 60;

/** One-shot calls per source address: a burst of 60, then two a second (answers to notifications). */
export const CALL_BURST_PER_ADDRESS = 60;
export const CALLS_PER_SECOND_PER_ADDRESS = 2;

/** Address ranges (an IPv4 address, an IPv6 /64) tracked by each rate limiter: 65,536, about 5 MiB
 * per limiter. When full, the range seen longest ago is forgotten to make room: a flood from many
 * ranges can weaken the limit of the ones it pushes out, but never shut out everyone else. */
export const MAX_TRACKED_ADDRESSES = 65_536;

/** Bytes a second a device may send, with its burst: 2 MiB/s, 8 MiB. Over the rate the relay stops
 * reading that socket until the bucket refills, so TCP slows the sender: nothing is buffered. The
 * burst holds several of the largest frames (1 MiB). */
export const DEVICE_BYTES_PER_SECOND = 2 * 1024 * 1024;
export const DEVICE_BURST_BYTES = 8 * 1024 * 1024;

/** Bytes a second a host link may send, with its burst: 16 MiB/s, 32 MiB. A host link carries every
 * device of that host. */
export const HOST_BYTES_PER_SECOND = 16 * 1024 * 1024;
export const HOST_BURST_BYTES = 32 * 1024 * 1024;

/** What a device's outbox (host → device) may hold: 4 MiB or 4,096 frames. A device that lets more
 * pile up is too slow and is closed (4008), and its host is told. */
export const DEVICE_OUTBOX_BYTES = 4 * 1024 * 1024;
export const DEVICE_OUTBOX_FRAMES = 4096;

/** What a host link's outbox (relay → host) may hold in all: 16 MiB or 16,384 frames. A host that
 * lets more pile up is too slow and its link is closed. */
export const HOST_OUTBOX_BYTES = 16 * 1024 * 1024;
export const HOST_OUTBOX_FRAMES = 16_384;

/** The share of a host link's outbox one device connection may fill: 4 MiB or 4,096 frames. A device
 * sending faster than its host reads is closed (4008, `host-queue-full`) before it can crowd out the
 * host's other devices. */
export const HOST_OUTBOX_SHARE_BYTES = 4 * 1024 * 1024;
export const HOST_OUTBOX_SHARE_FRAMES = 4096;

/** Bytes queued in all outboxes of a node together: 512 MiB. The per-connection caps times the
 * connection cap is far more than a node has, so this is the bound that holds when many fill at
 * once: past it, any connection that still has a backlog is closed when more arrives for it. */
export const NODE_QUEUED_BYTES = 512 * 1024 * 1024;

/** Milliseconds between pings to each peer: 25 s, under the 30 s idle timeouts of mobile networks
 * and proxies, so a pinged connection is never idle long enough to be dropped silently. */
export const PING_INTERVAL_MS = 25_000;

/** Milliseconds without hearing anything from a peer (a message, a pong) before it is dead: 75 s,
 * three ping intervals, so one or two lost pongs are forgiven and a dead peer is noticed within 75 s. */
export const PEER_TIMEOUT_MS = 3 * PING_INTERVAL_MS;

/** Milliseconds a closing socket may take to finish its close handshake before it is destroyed: 5 s. */
export const CLOSE_GRACE_MS = 5_000;

/** Pair requests and one-shot calls waiting for their host's reply, per host and per node. */
export const MAX_PENDING_REQUESTS_PER_HOST = 32;
export const MAX_PENDING_REQUESTS = 4096;

/** Milliseconds a pair request waits for the host: 55 s, 5 s more than the host holds one open for
 * the person's answer (50 s), and under common 60 s proxy idle timeouts. */
export const PAIR_REPLY_WAIT_MS = PAIR_ANSWER_WAIT_MS + 5_000;

/** Milliseconds a one-shot call waits for the host: 20 s, the client's own RPC timeout. */
export const CALL_REPLY_WAIT_MS = RPC_TIMEOUT_MS;

/** Milliseconds before which no answer to a pair request or a one-shot call leaves the relay: 250 ms,
 * above a round trip to most hosts. A host id the relay does not have is answered at once and a
 * linked host's refusal comes back after a round trip, so without it the time taken would say
 * which hosts use the relay. A phone pairing or answering a notification waits at most this much
 * more; the host has the request as soon as it arrives. */
export const REQUEST_ANSWER_FLOOR_MS = 250;

/** Device messages held while a connection is being attached to its host (which may take a Redis
 * round trip): 16 messages or 2 MiB. The socket is paused meanwhile, so only what was already in
 * flight arrives; a client that still overflows it is not following the protocol. */
export const ATTACH_BUFFER_FRAMES = 16;
export const ATTACH_BUFFER_BYTES = 2 * 1024 * 1024;

/** HTTP server timeouts: headers within 10 s (slow-loris), checked every second (Node's default is
 * every 30 s), a whole request within 70 s (a pair request waits up to 55 s for its reply), idle
 * keep-alive 5 s, at most 64 headers; a TLS handshake (with --tls) within 10 s. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const HEADERS_CHECK_INTERVAL_MS = 1_000;
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 70_000;
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const MAX_HEADERS = 64;

/** Milliseconds a node that is asked to stop (SIGTERM) waits for its hosts to link elsewhere after
 * telling them to (`drain`) before it closes what is left: hosts relink in well under a second,
 * so this only bounds a host that does not know the message (an older one) or cannot leave; far
 * under systemd's default 90 s stop timeout. */
export const DRAIN_GRACE_MS = 10_000;

/** Cluster (Redis). A host's presence lives 30 s unless refreshed every 10 s; a node's own heartbeat
 * lives 3 s, refreshed every second (three tries before it lapses, so a pause of a second or two
 * does not make a live node look dead), and other nodes check it every second for the streams
 * they hold with it: a node that dies is noticed within 4 s (TTL plus one check), its streams
 * closed then, and its hosts' presence no longer counts (a lookup checks the holder's heartbeat
 * too). One SET and a few EXISTS a second per node: nothing to Redis. */
export const PRESENCE_TTL_MS = 30_000;
export const PRESENCE_REFRESH_MS = 10_000;
export const NODE_TTL_MS = 3_000;
export const NODE_HEARTBEAT_MS = 1_000;

/** Milliseconds a node waits for another to acknowledge a device connection it forwarded: 5 s. No
 * answer means that node is gone or overloaded; the device is told the host is offline. */
export const OPEN_ACK_TIMEOUT_MS = 5_000;

/** Bytes published to Redis and not yet acknowledged by it, per node: 64 MiB; and per stream, the
 * same share a device gets of a host link. Past either, the stream that pushes is closed. */
export const CLUSTER_INFLIGHT_BYTES = 64 * 1024 * 1024;
export const CLUSTER_STREAM_INFLIGHT_BYTES = HOST_OUTBOX_SHARE_BYTES;

export interface RelayLimits {
  authDeadlineMs: number;
  preauthMaxBytes: number;
  maxPendingAuth: number;
  maxPendingAuthPerAddress: number;
  maxSocketsPerAddress: number;
  firstByteTimeoutMs: number;
  maxConnections: number;
  maxDeviceConnsPerHost: number;
  connectBurst: number;
  connectsPerSecond: number;
  pairBurst: number;
  pairsPerSecond: number;
  callBurst: number;
  callsPerSecond: number;
  maxTrackedAddresses: number;
  deviceBytesPerSecond: number;
  deviceBurstBytes: number;
  hostBytesPerSecond: number;
  hostBurstBytes: number;
  deviceOutboxBytes: number;
  deviceOutboxFrames: number;
  hostOutboxBytes: number;
  hostOutboxFrames: number;
  hostShareBytes: number;
  hostShareFrames: number;
  nodeQueuedBytes: number;
  pingIntervalMs: number;
  peerTimeoutMs: number;
  closeGraceMs: number;
  maxPendingRequestsPerHost: number;
  maxPendingRequests: number;
  pairReplyWaitMs: number;
  callReplyWaitMs: number;
  requestAnswerFloorMs: number;
  attachBufferFrames: number;
  attachBufferBytes: number;
  presenceTtlMs: number;
  presenceRefreshMs: number;
  nodeTtlMs: number;
  nodeHeartbeatMs: number;
  openAckTimeoutMs: number;
  clusterInflightBytes: number;
  clusterStreamInflightBytes: number;
}

export const DEFAULT_LIMITS: Readonly<RelayLimits> = Object.freeze({
  authDeadlineMs: AUTH_DEADLINE_MS,
  preauthMaxBytes: PREAUTH_MAX_BYTES,
  maxPendingAuth: MAX_PENDING_AUTH,
  maxPendingAuthPerAddress: MAX_PENDING_AUTH_PER_ADDRESS,
  maxSocketsPerAddress: MAX_SOCKETS_PER_ADDRESS,
  firstByteTimeoutMs: FIRST_BYTE_TIMEOUT_MS,
  maxConnections: MAX_CONNECTIONS,
  maxDeviceConnsPerHost: MAX_DEVICE_CONNS_PER_HOST,
  connectBurst: CONNECT_BURST_PER_ADDRESS,
  connectsPerSecond: CONNECTS_PER_SECOND_PER_ADDRESS,
  pairBurst: PAIR_BURST_PER_ADDRESS,
  pairsPerSecond: PAIRS_PER_SECOND_PER_ADDRESS,
  callBurst: CALL_BURST_PER_ADDRESS,
  callsPerSecond: CALLS_PER_SECOND_PER_ADDRESS,
  maxTrackedAddresses: MAX_TRACKED_ADDRESSES,
  deviceBytesPerSecond: DEVICE_BYTES_PER_SECOND,
  deviceBurstBytes: DEVICE_BURST_BYTES,
  hostBytesPerSecond: HOST_BYTES_PER_SECOND,
  hostBurstBytes: HOST_BURST_BYTES,
  deviceOutboxBytes: DEVICE_OUTBOX_BYTES,
  deviceOutboxFrames: DEVICE_OUTBOX_FRAMES,
  hostOutboxBytes: HOST_OUTBOX_BYTES,
  hostOutboxFrames: HOST_OUTBOX_FRAMES,
  hostShareBytes: HOST_OUTBOX_SHARE_BYTES,
  hostShareFrames: HOST_OUTBOX_SHARE_FRAMES,
  nodeQueuedBytes: NODE_QUEUED_BYTES,
  pingIntervalMs: PING_INTERVAL_MS,
  peerTimeoutMs: PEER_TIMEOUT_MS,
  closeGraceMs: CLOSE_GRACE_MS,
  maxPendingRequestsPerHost: MAX_PENDING_REQUESTS_PER_HOST,
  maxPendingRequests: MAX_PENDING_REQUESTS,
  pairReplyWaitMs: PAIR_REPLY_WAIT_MS,
  callReplyWaitMs: CALL_REPLY_WAIT_MS,
  requestAnswerFloorMs: REQUEST_ANSWER_FLOOR_MS,
  attachBufferFrames: ATTACH_BUFFER_FRAMES,
  attachBufferBytes: ATTACH_BUFFER_BYTES,
  presenceTtlMs: PRESENCE_TTL_MS,
  presenceRefreshMs: PRESENCE_REFRESH_MS,
  nodeTtlMs: NODE_TTL_MS,
  nodeHeartbeatMs: NODE_HEARTBEAT_MS,
  openAckTimeoutMs: OPEN_ACK_TIMEOUT_MS,
  clusterInflightBytes: CLUSTER_INFLIGHT_BYTES,
  clusterStreamInflightBytes: CLUSTER_STREAM_INFLIGHT_BYTES,
});
