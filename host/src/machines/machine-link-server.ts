import type { BoxKeyPair, Clock, RandomBytes, Result, Transport } from '@tether/shared-protocol';
import {
  CloseCode,
  HandshakePool,
  LINK_REGISTER_TIMEOUT_MS,
  MACHINE_REGISTER_METHOD,
  RegisterParams,
  acceptMachineLink,
  fail,
} from '@tether/shared-protocol';
import { chooseLinkAead } from '@tether/machine';
import * as v from 'valibot';
import type { HostCounters } from '../stats/host-counters.js';
import type { MachineRegistry } from './machine-registry.js';
import { peerLink } from './machine-link.js';

/** Machine links in their handshake or registration at once (a HandshakePool, as device sockets
 * have): each has LINK_REGISTER_TIMEOUT_MS to register, and a real machine does it within
 * milliseconds. When it is full, a new link evicts the oldest pending one of the address holding
 * the most, so silent sockets from a few addresses never keep a machine from elsewhere out. */
export const MAX_PENDING_MACHINE_LINKS = 16;
/** Of the pool, from one address (an IPv6 /64 counts as one): a few machines behind one NAT
 * dialling at once after the host restarts. One more from that address is refused. */
export const MAX_PENDING_MACHINE_LINKS_PER_ADDRESS = 4;

export interface MachineLinkServerDeps {
  registry: MachineRegistry;
  hostKeys: BoxKeyPair;
  clock: Clock;
  random: RandomBytes;
  stats: HostCounters;
  /** Tests shorten the registration deadline. */
  registerTimeoutMs?: number;
}

/**
 * The host's side of `/machines/ws`: a connection opens a sealed link (the handshake proves the
 * host's key to the machine), then must register with its token, first and only once. A machine
 * may ask nothing else of the host: its link is for the host's requests. Refusals are answered
 * sealed, with a stable code the machine acts on (a refused token stops it for good).
 */
export class MachineLinkServer {
  private readonly pending = new HandshakePool<Transport>(
    MAX_PENDING_MACHINE_LINKS,
    MAX_PENDING_MACHINE_LINKS_PER_ADDRESS,
  );

  constructor(private readonly deps: MachineLinkServerDeps) {}

  /** Whether a new link from `source` would be refused now: a listener asks before upgrading. */
  admits(source: string): boolean {
    return !this.pending.refuses(source);
  }

  /** A connection from `source` (the peer's address) that must open a link and register. */
  accept(transport: Transport, source: string): void {
    const { stats } = this.deps;
    if (this.pending.refuses(source)) {
      stats.add('machine:too-many-handshaking');
      transport.close(CloseCode.Busy, 'busy');
      return;
    }
    const evicted = this.pending.add(transport, source);
    if (evicted) {
      stats.add('machine:handshake-pool-full');
      evicted.close(CloseCode.Busy, 'busy');
    }
    void this.open(transport).finally(() => this.pending.delete(transport));
  }

  private async open(transport: Transport): Promise<void> {
    const { clock, stats, registry } = this.deps;
    const opened = await acceptMachineLink(transport, {
      clock,
      random: this.deps.random,
      aead: chooseLinkAead(),
      hostKeys: this.deps.hostKeys,
      timeoutMs: this.deps.registerTimeoutMs ?? LINK_REGISTER_TIMEOUT_MS,
    });
    if (!opened.ok) {
      stats.add(`machine:${opened.error.code}`);
      return;
    }
    const peer = opened.value;
    await new Promise<void>((settle) => {
      let registered = false;
      const timer = clock.setTimeout(() => {
        stats.add('machine:register-timeout');
        peer.bye('timeout', 'register first, within the time allowed');
        settle();
      }, this.deps.registerTimeoutMs ?? LINK_REGISTER_TIMEOUT_MS);
      peer.onClose(() => {
        clock.clearTimeout(timer);
        settle();
      });
      peer.onRequest = (method, params): Promise<Result<unknown>> => {
        if (registered || method !== MACHINE_REGISTER_METHOD) {
          stats.add('machine:request-refused');
          return Promise.resolve(fail('forbidden', `a machine may not call ${method.slice(0, 100)}`));
        }
        registered = true;
        clock.clearTimeout(timer);
        settle();
        const parsed = v.safeParse(RegisterParams, params);
        if (!parsed.success) {
          stats.add('machine:register-invalid');
          return Promise.resolve(
            this.refuse(
              peer,
              fail('invalid-params', `the registration is not valid: ${parsed.issues[0]?.message ?? ''}`),
            ),
          );
        }
        const result = registry.register(parsed.output, peerLink(peer));
        if (!result.ok) {
          stats.add(`machine:register-${result.error.code}`);
          return Promise.resolve(this.refuse(peer, result));
        }
        stats.add('machine:registered');
        return Promise.resolve(result);
      };
    });
  }

  /** Answers the refusal, then ends the link once the answer is out. */
  private refuse<T>(peer: { close(code?: number, reason?: string): void }, refusal: T): T {
    // After this turn, once LinkPeer has sent the answer (not a timed wait: no clock involved).
    setImmediate(() => peer.close(CloseCode.Normal, 'refused'));
    return refusal;
  }
}
