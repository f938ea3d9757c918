import type { Clock, Connect, Transport, WebSocketConstructor } from '@tether/shared-protocol';
import { fromBase64UrlExact, relayConnect, webSocketConnect } from '@tether/shared-protocol';
import type { HostRecord } from '../data/records.js';
import { Store } from '../lib/store.js';
import type { HostPath, PathKind, PathPlan } from './relay-paths.js';
import { planPaths, unreachableText } from './relay-paths.js';

/** Milliseconds a direct connection may take to open when a relay is there to fall back on: a
 * LAN address that is not there (the phone left home) can otherwise hang for a TCP timeout. */
export const DIRECT_OPEN_TIMEOUT_MS = 4000;
/** Milliseconds any connection may take to open. */
export const OPEN_TIMEOUT_MS = 15_000;
/** Milliseconds after a path failed during which the others are tried first: a phone away from
 * home does not pay the direct timeout on every reconnect, and comes back to direct soon after it
 * is home; a relay that is down, or that no longer has the host (it moved to another relay), is
 * passed over for the next. */
export const DIRECT_RETRY_MS = 2 * 60_000;

export interface PathState {
  /** The path of the connection that opened last; null before any did. */
  current: PathKind | null;
  plan: PathPlan;
}

/** A Connect that tries the host's paths in turn, and says which one it is on. */
export type PathConnect = Connect & { readonly path: Store<PathState> };

/** What finding a path needs of a host: a paired host's record, or what a share link says. */
export type PathHost = Pick<HostRecord, 'apiBase' | 'relay' | 'hostId' | 'hostSignPublicKey'>;

export interface PathConnectDeps {
  /** The host's record as it is now (a renewed ticket, a relay added since pairing). */
  host: () => PathHost | undefined;
  pageOrigin: string;
  WebSocketImpl: WebSocketConstructor;
  clock: Clock;
}

/**
 * Opens a transport to a host by the first path that works, direct before the relay, and records
 * which one it took. Switching paths is only ever a reconnect: the DeviceClient above resumes every
 * watched session from its last sequence number, so a switch never loses or doubles an event.
 */
export function pathConnect(deps: PathConnectDeps): PathConnect {
  const initial = deps.host();
  const path = new Store<PathState>({
    current: null,
    plan: initial ? planPaths(initial, deps.pageOrigin) : { paths: [], unreachable: 'other-origin' },
  });
  /** When each path (by its URL) last failed: to open, or closed before its first message. */
  const failedAt = new Map<string, number>();
  const keyOf = (target: HostPath) => (target.kind === 'direct' ? target.url : target.relayUrl);
  const failed = (target: HostPath) => failedAt.set(keyOf(target), deps.clock.now());

  const open = (host: PathHost, target: HostPath, timeoutMs: number): Promise<Transport> => {
    let connect: Connect;
    if (target.kind === 'direct') connect = webSocketConnect(target.url, deps.WebSocketImpl);
    else {
      const hostSignPublicKey = fromBase64UrlExact(host.hostSignPublicKey, 32)!;
      connect = relayConnect({
        relayUrl: target.relayUrl,
        hostId: host.hostId,
        hostSignPublicKey,
        ticket: () => deps.host()?.relay?.ticket ?? '',
        WebSocketImpl: deps.WebSocketImpl,
      });
    }
    return withTimeout(connect(), timeoutMs, deps.clock);
  };

  const attempt = async (): Promise<Transport> => {
    const host = deps.host();
    if (!host) throw new Error('this computer is no longer paired');
    const plan = planPaths(host, deps.pageOrigin);
    path.update((state) => ({ ...state, plan }));
    if (plan.paths.length === 0) throw new Error(unreachableText(plan.unreachable!, host.apiBase));
    // Paths that worked, or were not tried lately, in the plan's order; then the relays that
    // failed lately, the one that failed longest ago first, so that each gets its turn; then a
    // direct path that failed lately (the phone is away from home: the relays are its way in).
    const now = deps.clock.now();
    const lately = (target: HostPath) => now - (failedAt.get(keyOf(target)) ?? -Infinity) < DIRECT_RETRY_MS;
    const rank = (target: HostPath) => (target.kind === 'direct' ? Infinity : failedAt.get(keyOf(target))!);
    const order = [
      ...plan.paths.filter((p) => !lately(p)),
      ...plan.paths.filter(lately).sort((a, b) => rank(a) - rank(b)),
    ];
    let lastError: unknown;
    for (const target of order) {
      const quick = target !== order.at(-1);
      try {
        const transport = await open(host, target, quick ? DIRECT_OPEN_TIMEOUT_MS : OPEN_TIMEOUT_MS);
        path.set({ current: target.kind, plan });
        // Something that takes the connection and closes it before a word (a captive portal, an
        // address now held by another machine, a relay the host is no longer linked to) is no
        // better than no answer: the others first next time.
        return closedBeforeAnswer(transport, () => failed(target));
      } catch (error) {
        failed(target);
        lastError = error;
      }
    }
    throw lastError instanceof Error ? lastError : new Error('the computer could not be reached');
  };
  return Object.assign(attempt, { path });
}

/** Resolves with the transport if it opens in time; one that opens later is closed at once. */
function withTimeout(opening: Promise<Transport>, ms: number, clock: Clock): Promise<Transport> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = clock.setTimeout(() => {
      done = true;
      reject(new Error('the connection did not open in time'));
    }, ms);
    opening.then(
      (transport) => {
        if (done) return transport.close(1000, 'too late');
        done = true;
        clock.clearTimeout(timer);
        resolve(transport);
      },
      (error: unknown) => {
        if (done) return;
        done = true;
        clock.clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** The same transport, calling `failed` if it closes before its first message arrives. */
function closedBeforeAnswer(transport: Transport, failed: () => void): Transport {
  let answered = false;
  const wrapped: Transport = {
    send: (data) => transport.send(data),
    close: (code, reason) => transport.close(code, reason),
    onMessage: null,
    onClose: null,
  };
  transport.onMessage = (data) => {
    answered = true;
    wrapped.onMessage?.(data);
  };
  transport.onClose = (info) => {
    if (!answered) failed();
    wrapped.onClose?.(info);
  };
  return wrapped;
}
