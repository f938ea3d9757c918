import { RELAY_TICKET_CODES } from '@tether/shared-protocol';

/**
 * The relay's counters and gauges, served as Prometheus text on `GET /metrics`. Every refusal and
 * every drop is counted under a reason from a closed list, and each reason is its metric label, so
 * an operator can tell a flood from a slow phone from a misconfigured host. Labels never carry a
 * host id, device id or address: the metrics say how much and why, not who.
 */

/** A connection or request turned away before it carried anything. */
export const REFUSAL_REASONS = [
  'rate-limited',
  'node-full',
  'pending-full',
  'bad-host-id',
  'upgrade-required',
  'auth-timeout',
  'preauth-too-large',
  'auth-malformed',
  'auth-failed',
  'version-unsupported',
  'text-message',
  ...RELAY_TICKET_CODES,
  'host-full',
  'pair-rate-limited',
  'call-rate-limited',
  'body-too-large',
  'bad-content-type',
  'malformed-request',
  'requests-full',
  'request-timeout',
  'request-aborted',
  'shutting-down',
  // Crowding: the oldest unauthenticated socket of the busiest range, closed for a newcomer when
  // the pending pool is full; plain sockets past an address's cap, and silent past the first-byte
  // deadline.
  'pending-evicted',
  'sockets-per-address',
  'first-byte-timeout',
  // Mesh links (node to node): a frame out of step, a wrong proof of the mesh key, a handshake not
  // finished in time, a node holding its most links.
  'mesh-bad-frame',
  'mesh-unauthorized',
  'mesh-auth-timeout',
  'mesh-full',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** An established connection closed by the relay, or a frame it did not deliver. */
export const DROP_REASONS = [
  'slow-consumer',
  'host-queue-full',
  'host-link-slow',
  'node-memory',
  'ping-timeout',
  'frame-too-large',
  'frame-malformed',
  'unexpected-frame',
  'unknown-frame-type',
  'unknown-conn',
  'text-message',
  'replaced',
  'host-gone',
  'reply-unknown-request',
  'attach-overflow',
  'cluster-queue-full',
  'cluster-publish-failed',
  'cluster-link-lost',
  'cluster-malformed',
  // Streams reset because the way to their node changed (its mesh link dropped, or was made).
  'mesh-link-lost',
  'node-gone',
  'open-timeout',
  'shutting-down',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export type ConnKind = 'host' | 'device';
export type Direction = 'to-host' | 'to-device';
export type RequestKind = 'pair' | 'call';
/** The per-address rate limiters: new sockets, pair requests, one-shot calls. */
export const LIMITERS = ['connect', 'pair', 'call'] as const;
export type LimiterName = (typeof LIMITERS)[number];

type Labels = Record<string, string>;

/** One counter's value, held in an object so the hot paths can keep it and add to it directly. */
interface Cell {
  value: number;
}

interface Family {
  help: string;
  type: 'counter' | 'gauge';
  values: Map<string, Cell>;
}

function labelKey(labels: Labels | undefined): string {
  if (!labels) return '';
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, '_')}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

export class RelayMetrics {
  private readonly families = new Map<string, Family>();
  private readonly gauges: { name: string; help: string; read: () => [Labels | undefined, number][] }[] = [];
  /**
   * The counters added to for every frame and every cluster message, found once here: a frame
   * costs two additions, not a label string built and looked up.
   */
  private readonly frames: Record<Direction, Cell>;
  private readonly bytes: Record<Direction, Cell>;
  private readonly clusterMessages: Record<string, Cell> = {};
  private readonly clusterBytes: Record<string, Cell> = {};

  constructor() {
    for (const reason of REFUSAL_REASONS) this.add('tether_relay_refusals_total', { reason }, 0);
    for (const reason of DROP_REASONS) this.add('tether_relay_drops_total', { reason }, 0);
    for (const kind of ['host', 'device'] as const) this.add('tether_relay_connections_accepted_total', { kind }, 0);
    for (const direction of ['to-host', 'to-device'] as const) {
      this.add('tether_relay_frames_total', { direction }, 0);
      this.add('tether_relay_bytes_total', { direction }, 0);
    }
    for (const limiter of LIMITERS) this.add('tether_relay_limiter_evictions_total', { limiter }, 0);
    const cell = (name: string, labels: Labels) => this.add(name, labels, 0);
    this.frames = {
      'to-host': cell('tether_relay_frames_total', { direction: 'to-host' }),
      'to-device': cell('tether_relay_frames_total', { direction: 'to-device' }),
    };
    this.bytes = {
      'to-host': cell('tether_relay_bytes_total', { direction: 'to-host' }),
      'to-device': cell('tether_relay_bytes_total', { direction: 'to-device' }),
    };
    for (const direction of ['out', 'in'] as const) {
      for (const path of ['direct', 'redis'] as const) {
        this.clusterMessages[`${direction} ${path}`] = cell('tether_relay_cluster_messages_total', { direction, path });
        this.clusterBytes[`${direction} ${path}`] = cell('tether_relay_cluster_bytes_total', { direction, path });
      }
    }
  }

  refuse(reason: RefusalReason): void {
    this.add('tether_relay_refusals_total', { reason });
  }

  drop(reason: DropReason): void {
    this.add('tether_relay_drops_total', { reason });
  }

  accepted(kind: ConnKind): void {
    this.add('tether_relay_connections_accepted_total', { kind });
  }

  forwarded(direction: Direction, bytes: number): void {
    this.frames[direction].value++;
    this.bytes[direction].value += bytes;
  }

  throttled(kind: ConnKind): void {
    this.add('tether_relay_throttled_total', { kind });
  }

  /** A rate limiter, full, forgot the address range seen longest ago to make room for a new one. */
  evicted(limiter: LimiterName): void {
    this.add('tether_relay_limiter_evictions_total', { limiter });
  }

  request(kind: RequestKind): void {
    this.add('tether_relay_requests_total', { kind });
  }

  replied(kind: RequestKind): void {
    this.add('tether_relay_replies_total', { kind });
  }

  /** A message to or from another node, by the way it took: a mesh link (`direct`) or Redis. */
  cluster(direction: 'out' | 'in', bytes: number, path: 'direct' | 'redis'): void {
    this.clusterMessages[`${direction} ${path}`]!.value++;
    this.clusterBytes[`${direction} ${path}`]!.value += bytes;
  }

  /** A gauge read when the metrics are rendered. */
  gauge(name: string, help: string, read: () => number | [Labels, number][]): void {
    this.gauges.push({
      name,
      help,
      read: () => {
        const v = read();
        return typeof v === 'number' ? [[undefined, v]] : v;
      },
    });
  }

  /** A counter's value (tests and /healthz). */
  get(name: string, labels?: Labels): number {
    return this.families.get(name)?.values.get(labelKey(labels))?.value ?? 0;
  }

  refusals(reason: RefusalReason): number {
    return this.get('tether_relay_refusals_total', { reason });
  }

  drops(reason: DropReason): number {
    return this.get('tether_relay_drops_total', { reason });
  }

  /** Prometheus text exposition format, version 0.0.4. */
  render(): string {
    const lines: string[] = [];
    for (const [name, family] of this.families) {
      lines.push(`# HELP ${name} ${family.help}`, `# TYPE ${name} ${family.type}`);
      for (const [labels, cell] of family.values) lines.push(`${name}${labels} ${cell.value}`);
    }
    for (const g of this.gauges) {
      lines.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
      for (const [labels, value] of g.read()) lines.push(`${g.name}${labelKey(labels)} ${value}`);
    }
    return `${lines.join('\n')}\n`;
  }

  private add(name: string, labels: Labels, by = 1): Cell {
    let family = this.families.get(name);
    if (!family) {
      family = { help: HELP[name] ?? name, type: 'counter', values: new Map() };
      this.families.set(name, family);
    }
    const key = labelKey(labels);
    let cell = family.values.get(key);
    if (!cell) family.values.set(key, (cell = { value: 0 }));
    cell.value += by;
    return cell;
  }
}

const HELP: Record<string, string> = {
  tether_relay_refusals_total: 'Connections and requests turned away before carrying anything, by reason.',
  tether_relay_drops_total: 'Established connections closed by the relay, or frames not delivered, by reason.',
  tether_relay_connections_accepted_total: 'Connections that authenticated, by kind.',
  tether_relay_frames_total: 'Frames forwarded, by direction.',
  tether_relay_bytes_total: 'Payload bytes forwarded, by direction.',
  tether_relay_throttled_total: 'Times a socket was paused by its byte-rate limit, by kind.',
  tether_relay_limiter_evictions_total:
    'Address ranges a full rate limiter forgot (the one seen longest ago) to make room for a new one.',
  tether_relay_requests_total: 'Pair requests and one-shot calls forwarded to hosts.',
  tether_relay_replies_total: 'Replies from hosts passed back to the caller.',
  tether_relay_cluster_messages_total:
    'Messages exchanged with other nodes, by direction and path (a mesh link, or Redis).',
  tether_relay_cluster_bytes_total: 'Bytes exchanged with other nodes, by direction and path (a mesh link, or Redis).',
};
