import type {
  Clock,
  ErrorCode,
  MachineCapability,
  ProtocolError,
  RandomBytes,
  Result,
  Transport,
} from '@tether/shared-protocol';
import {
  MACHINE_PROTOCOL_VERSION,
  MACHINE_REGISTER_METHOD,
  Reconnector,
  RegisterResult,
  constantTimeEqual,
  fail,
  ok,
  openMachineLink,
  toBase64Url,
} from '@tether/shared-protocol';
import type { LinkPeer } from '@tether/shared-protocol';
import * as v from 'valibot';
import { chooseLinkAead } from '../link/node-link-aead.js';
import type { MachineExecutor } from './machine-executor.js';

/** Reconnect delays: from 1 s, doubling, up to 30 s, each drawn between half and all of its step. */
export const RECONNECT_BACKOFF = { baseMs: 1000, maxMs: 30_000 };

/** Milliseconds a registered link must last for its end to be an ordinary drop: one that ends
 * sooner, whatever ended it, keeps the backoff growing, so a peer cannot make the machine relink in
 * a tight loop. */
export const LINK_STABLE_MS = 5_000;

/** What the machine serves (and says so when it registers). */
export const MACHINE_SERVES: MachineCapability[] = ['exec', 'files', 'search', 'processes', 'tasks'];

/**
 * Refusals that trying again cannot change: the token is unknown or revoked, the id or name
 * belongs to another machine, the versions differ, the host forgot this machine. They come sealed
 * from the host whose key is pinned, so they can be believed. Nothing else stops the machine: a
 * close code is not sealed, and a host proving another key than the pinned one is not that host.
 */
const FOR_GOOD: ReadonlySet<ErrorCode> = new Set([
  'forbidden',
  'revoked',
  'conflict',
  'version-unsupported',
  'invalid-params',
]);

export type AgentState =
  | { name: 'connecting'; attempt: number }
  | { name: 'linked'; since: number; hostId: string; machineId: string }
  | { name: 'retrying'; at: number; why: string }
  | { name: 'stopped'; why: string; forGood: boolean };

export interface HostKeyPinStore {
  get(hostUrl: string): Uint8Array | undefined;
  set(hostUrl: string, key: Uint8Array): void;
}

export interface MachineAgentOptions {
  /** As the person gave it (`http(s)://host:port`); pins are kept by its origin. */
  hostUrl: string;
  token: string;
  machineId: string;
  name: string;
  roots: readonly string[];
  version: string;
  /** This computer's home folder as a real path, told to the host (RegisterParams.home). */
  home?: string;
  executor: MachineExecutor;
  pins: HostKeyPinStore;
  /** `--host-key`: the host's key as the person read it on the host; replaces any pin. */
  hostKey?: Uint8Array;
  /** Opens a fresh transport to the host's machine endpoint. */
  connect: () => Promise<Transport>;
  clock: Clock;
  random: RandomBytes;
  /** A number in [0, 1) for each backoff delay. */
  jitter: () => number;
  onState?: (state: AgentState) => void;
  /** Things worth telling the person (a host key pinned on first contact). */
  onNotice?: (text: string) => void;
}

/**
 * The machine's link to its host, kept up in the background: dial, handshake (checking the host's
 * proven key against the pin), register with the token, serve until the link drops, then dial
 * again after a jittered backoff (RECONNECT_BACKOFF; a link that lasted under LINK_STABLE_MS keeps
 * it growing). It stops for good, saying why, only on a sealed refusal from the pinned host: the
 * token or registration refused, or revoked on a live link. A host that proves another key than the
 * one pinned is refused (the token is never sent to it) and dialled again later, as is one whose
 * link closes during the handshake with any code. Background tasks keep running across drops
 * (they belong to the executor).
 */
export class MachineAgent {
  private stopped: { why: string; forGood: boolean } | undefined;
  private peer: LinkPeer | undefined;
  private readonly reconnector: Reconnector;
  private state_: AgentState = { name: 'connecting', attempt: 0 };

  constructor(private readonly options: MachineAgentOptions) {
    this.reconnector = new Reconnector({
      clock: options.clock,
      jitter: options.jitter,
      backoff: RECONNECT_BACKOFF,
      stableMs: LINK_STABLE_MS,
    });
  }

  get state(): AgentState {
    return this.state_;
  }

  /** Runs until stopped (by `stop()` or for good); resolves with the final state. */
  async run(): Promise<Extract<AgentState, { name: 'stopped' }>> {
    while (!this.stopped) {
      this.setState({ name: 'connecting', attempt: this.reconnector.dialling() });
      const outcome = await this.once();
      if (this.stopped) break;
      if (outcome.forGood) {
        this.stopped = { why: outcome.why, forGood: true };
        break;
      }
      let due!: () => void;
      const waited = new Promise<void>((resolve) => (due = resolve));
      const plan = this.reconnector.retry(due);
      if (!plan) break;
      this.setState({ name: 'retrying', at: plan.retryAt, why: outcome.why });
      await waited;
    }
    this.reconnector.stop();
    const final = {
      name: 'stopped' as const,
      why: this.stopped?.why ?? 'stopped',
      forGood: this.stopped?.forGood ?? false,
    };
    this.setState(final);
    return final;
  }

  /** Stops dialling and closes the link (background tasks are the executor's to stop). */
  stop(why = 'stopped'): void {
    this.stopped ??= { why, forGood: false };
    this.peer?.close(1000, 'the machine is stopping');
    // A wait for the next dial ends at once; the loop then sees the stop.
    this.reconnector.wake();
  }

  private setState(state: AgentState): void {
    this.state_ = state;
    this.options.onState?.(state);
  }

  /** One link: how it ended, whether it got as far as registering, and whether to stop. */
  private async once(): Promise<{ why: string; linked: boolean; forGood: boolean }> {
    const { options } = this;
    let transport: Transport;
    try {
      transport = await options.connect();
    } catch (error) {
      return {
        why: `cannot reach the host: ${error instanceof Error ? error.message : String(error)}`,
        linked: false,
        forGood: false,
      };
    }
    if (this.stopped) {
      transport.close(1000, 'stopping');
      return { why: 'stopped', linked: false, forGood: false };
    }
    let keyRefusal: string | undefined;
    const opened = await openMachineLink(transport, {
      clock: options.clock,
      random: options.random,
      aead: chooseLinkAead(),
      checkHostKey: (key) => {
        const refused = this.checkHostKey(key);
        if (refused) keyRefusal = refused;
        return refused ? fail('handshake-failed', refused) : ok(undefined);
      },
    });
    if (!opened.ok) {
      // Before the sealed registration nothing is final: the token went nowhere, and the next
      // dial may reach the pinned host.
      return { why: keyRefusal ?? `the handshake failed: ${opened.error.message}`, linked: false, forGood: false };
    }
    const peer = opened.value.peer;
    this.peer = peer;
    const ended = new Promise<ProtocolError>((resolve) => peer.onClose(resolve));
    // Served from the start: the host may send its first calls (waiting ones) as it answers.
    peer.onRequest = (method, params) => options.executor.handle(method, params);
    peer.onEvent = (event) => options.executor.event(event);
    const registered = await this.register(peer);
    if (!registered.ok) {
      peer.close(1000, registered.error.code);
      return {
        why: `the host refused this machine: ${registered.error.message}`,
        linked: false,
        forGood: FOR_GOOD.has(registered.error.code),
      };
    }
    const since = options.clock.now();
    this.reconnector.opened();
    options.executor.attach((event) => peer.notify(event).ok);
    this.setState({ name: 'linked', since, hostId: registered.value.hostId, machineId: registered.value.machineId });
    const error = await ended;
    options.executor.detach();
    this.peer = undefined;
    return {
      why: `the link dropped: ${error.message}`,
      linked: true,
      // Only a sealed goodbye says `revoked`; a forged close code cannot stop the machine.
      forGood: error.code === 'revoked' || error.code === 'forbidden',
    };
  }

  private async register(peer: LinkPeer): Promise<Result<v.InferOutput<typeof RegisterResult>>> {
    const { options } = this;
    const reply = await peer.request(MACHINE_REGISTER_METHOD, {
      token: options.token,
      machineId: options.machineId,
      name: options.name,
      roots: [...options.roots],
      capabilities: MACHINE_SERVES,
      protocolVersion: MACHINE_PROTOCOL_VERSION,
      version: options.version,
      ...(options.home !== undefined ? { home: options.home } : {}),
    });
    if (!reply.ok) return reply;
    const parsed = v.safeParse(RegisterResult, reply.value);
    return parsed.success
      ? ok(parsed.output)
      : fail('malformed', 'the host answered the registration with something else');
  }

  /** Undefined when the key is the expected one (pinning it on first contact); else why not. */
  private checkHostKey(key: Uint8Array): string | undefined {
    const { hostUrl, hostKey, pins } = this.options;
    const shown = toBase64Url(key);
    if (hostKey) {
      if (!constantTimeEqual(hostKey, key)) {
        return `the host at ${hostUrl} proves the key ${shown}, not the --host-key ${toBase64Url(hostKey)} given: refusing it`;
      }
      const pinned = pins.get(hostUrl);
      if (!pinned || !constantTimeEqual(pinned, key)) pins.set(hostUrl, key);
      return undefined;
    }
    const pinned = pins.get(hostUrl);
    if (!pinned) {
      pins.set(hostUrl, key);
      this.options.onNotice?.(
        `first contact with ${hostUrl}: pinned its key ${shown}; a host with another key will be refused`,
      );
      return undefined;
    }
    if (constantTimeEqual(pinned, key)) return undefined;
    return (
      `the host at ${hostUrl} now proves a different key (${shown}) than the one pinned (${toBase64Url(pinned)}): ` +
      `refusing it. If the host was set up again, check its key with \`tether token create\` there and run again with --host-key`
    );
  }
}
