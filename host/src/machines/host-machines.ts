import type { Clock, HostEvent, HostIdentity } from '@tether/shared-protocol';
import { DEFAULT_MACHINE_WAIT_MINUTES, secureRandom, toBase64Url } from '@tether/shared-protocol';
import type { HostCounters } from '../stats/host-counters.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import { MachineLinkServer } from './machine-link-server.js';
import { MachineRegistry } from './machine-registry.js';
import { MachineStore } from './machine-store.js';
import { TokenStore } from './token-store.js';

/** What the machine and token methods need: the registry, the tokens and the host's key. */
export interface MachineDeps {
  registry: MachineRegistry;
  tokens: TokenStore;
  /** The host's box key, base64url: what a machine pins (`--host-key`). */
  hostKey: string;
  clock: { now(): number };
}

export interface HostMachinesOptions {
  db: Db;
  identity: HostIdentity;
  clock: Clock;
  /** Milliseconds a session's call waits for an offline machine; DEFAULT_MACHINE_WAIT_MINUTES by default. */
  waitMs?: number;
  /** Where `machine.status` goes (to the devices). */
  publish: (event: HostEvent) => void;
  sessionsOn: (name: string) => number;
}

/** Everything the host keeps about machines: tokens, the registry, and the `/machines/ws` server. */
export class HostMachines {
  readonly tokens: TokenStore;
  readonly registry: MachineRegistry;
  private server: MachineLinkServer | undefined;

  constructor(private readonly options: HostMachinesOptions) {
    this.tokens = new TokenStore(options.db);
    this.registry = new MachineRegistry({
      store: new MachineStore(options.db),
      tokens: this.tokens,
      clock: options.clock,
      hostId: options.identity.hostId,
      newId,
      waitMs: options.waitMs ?? DEFAULT_MACHINE_WAIT_MINUTES * 60_000,
      publish: (event) => options.publish(event),
      sessionsOn: (name) => options.sessionsOn(name),
    });
  }

  /** The handler for machine connections, counting what it refuses in `stats`. */
  linkServer(stats: HostCounters): MachineLinkServer {
    this.server ??= new MachineLinkServer({
      registry: this.registry,
      hostKeys: this.options.identity.box,
      clock: this.options.clock,
      random: secureRandom,
      stats,
    });
    return this.server;
  }

  handlerDeps(): MachineDeps {
    return {
      registry: this.registry,
      tokens: this.tokens,
      hostKey: toBase64Url(this.options.identity.box.publicKey),
      clock: this.options.clock,
    };
  }

  close(): void {
    this.registry.close();
  }
}
