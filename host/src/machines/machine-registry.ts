import type { Clock, HostEvent, MachineDetail, MachineInfo, RegisterParams, Result } from '@tether/shared-protocol';
import { MACHINE_PROTOCOL_VERSION, fail, ok } from '@tether/shared-protocol';
import { MachineChannel } from './machine-channel.js';
import type { MachineLink } from './machine-link.js';
import type { MachineRecord, MachineStore } from './machine-store.js';
import type { RunHooks } from './remote-machine-context.js';
import { RemoteMachineContext } from './remote-machine-context.js';
import { RemoteTerminals } from './remote-terminals.js';
import type { TokenStore } from './token-store.js';

export interface MachineRegistryDeps {
  store: MachineStore;
  tokens: TokenStore;
  clock: Clock;
  hostId: string;
  newId: (prefix: string) => string;
  /** Milliseconds a session's call waits for an offline machine (the setting; 15 min by default). */
  waitMs: number;
  /** `machine.status` for every device that watches the host. */
  publish: (event: HostEvent) => void;
  /** Sessions placed on a machine, by its name (for the person's list). */
  sessionsOn?: (name: string) => number;
}

/**
 * The machines this host knows (persisted) and their live links (in memory). A machine id is
 * bound to the token that first registered it; another token may take it only once that one is
 * revoked. A forgotten machine may not come back with the same token. Every status change is
 * published to the devices.
 */
export class MachineRegistry {
  private readonly channels = new Map<string, MachineChannel>();

  constructor(private readonly deps: MachineRegistryDeps) {}

  /** A machine's first sealed message: checked, recorded, and its link put in service. */
  register(params: RegisterParams, link: MachineLink): Result<{ machineId: string; hostId: string; name: string }> {
    const { store, tokens, clock } = this.deps;
    if (params.protocolVersion !== MACHINE_PROTOCOL_VERSION) {
      return fail(
        'version-unsupported',
        `the machine speaks machine protocol ${params.protocolVersion}; this host speaks ${MACHINE_PROTOCOL_VERSION}`,
      );
    }
    const checked = tokens.check(params.token);
    if (!checked.ok) {
      return checked.why === 'revoked'
        ? fail('revoked', `the machine token ${checked.name ?? ''} was revoked on the host`.replace('  ', ' '))
        : fail('forbidden', 'the host does not know this machine token');
    }
    const token = checked.token;
    const existing = store.get(params.machineId);
    if (existing && existing.tokenId !== token.id && tokens.get(existing.tokenId)?.revoked === false) {
      return fail('conflict', `machine ${params.machineId} is bound to another token on this host`);
    }
    if (store.wasForgotten(params.machineId, token.id)) {
      return fail('revoked', 'this machine was forgotten on the host: share it again with a new token');
    }
    const named = store.byName(params.name);
    if (named && named.id !== params.machineId) {
      return fail('conflict', `the name ${params.name} belongs to another machine on this host; choose another --name`);
    }
    const now = clock.now();
    const record: MachineRecord = {
      id: params.machineId,
      name: params.name,
      tokenId: token.id,
      roots: params.roots,
      capabilities: params.capabilities,
      version: params.version,
      createdAt: existing?.createdAt ?? now,
      lastSeenAt: now,
    };
    store.save(record);
    tokens.touch(token.id, now);
    const channel = this.channel(record);
    channel.name = record.name;
    channel.home = params.home;
    link.onClose(() => {
      if (this.channels.get(record.id) !== channel || channel.online) return;
      store.touch(record.id, clock.now());
      this.announce(record.id);
    });
    channel.attach(link);
    this.announce(record.id);
    return ok({ machineId: record.id, hostId: this.deps.hostId, name: record.name });
  }

  list(): MachineInfo[] {
    return this.deps.store.list().map((record) => this.info(record));
  }

  details(): MachineDetail[] {
    return this.deps.store.list().map((record) => ({
      ...this.info(record),
      tokenId: record.tokenId,
      capabilities: record.capabilities,
      version: record.version,
      sessions: this.deps.sessionsOn?.(record.name) ?? 0,
    }));
  }

  byName(name: string): MachineInfo | undefined {
    const record = this.deps.store.byName(name);
    return record && this.info(record);
  }

  /**
   * The execution context of the machine called `name`: bound to a run (waiting for the machine
   * when it is offline) or not (answering at once); undefined for a machine this host does not know.
   */
  context(name: string, hooks?: RunHooks): RemoteMachineContext | undefined {
    const record = this.deps.store.byName(name);
    return record && new RemoteMachineContext(this.channel(record), this.deps.newId, hooks);
  }

  /**
   * Where terminals open on the machine called `name`: `not-found` for a machine this host does
   * not know, `unavailable` while it is offline (a terminal needs its link; it does not wait).
   */
  terminals(name: string): Result<RemoteTerminals> {
    const record = this.deps.store.byName(name);
    if (!record) return fail('not-found', `no machine ${name}; \`tether machines\` lists them`);
    const channel = this.channel(record);
    if (!channel.online) return fail('unavailable', `${record.name} is offline`);
    return ok(new RemoteTerminals(channel, this.deps.clock, this.deps.newId));
  }

  /** Forgets a machine: its link is dropped, its token may not bring it back. */
  forget(id: string): Result<Record<string, never>> {
    const record = this.deps.store.get(id) ?? this.deps.store.byName(id);
    if (!record) return fail('not-found', `no machine ${id}`);
    this.deps.store.forget(record.id, this.deps.clock.now());
    const channel = this.channels.get(record.id);
    this.channels.delete(record.id);
    channel?.drop('revoked', 'this machine was forgotten on the host');
    channel?.close();
    this.deps.publish({ type: 'machine.status', machine: { ...this.info(record), status: 'offline' } });
    return ok({});
  }

  /** A token was revoked: the machines linked with it are dropped at once. */
  dropToken(tokenId: string, tokenName: string): number {
    let dropped = 0;
    for (const record of this.deps.store.list()) {
      if (record.tokenId !== tokenId) continue;
      if (this.channels.get(record.id)?.drop('revoked', `the machine token ${tokenName} was revoked on the host`))
        dropped++;
    }
    return dropped;
  }

  isOnline(name: string): boolean {
    const record = this.deps.store.byName(name);
    return record !== undefined && this.channels.get(record.id)?.online === true;
  }

  /** The host is stopping: waiting calls fail, links close. */
  close(): void {
    for (const channel of this.channels.values()) {
      channel.drop('unavailable', 'the host is stopping');
      channel.close();
    }
  }

  private channel(record: MachineRecord): MachineChannel {
    let channel = this.channels.get(record.id);
    if (!channel) {
      channel = new MachineChannel(record.id, record.name, this.deps.clock, this.deps.waitMs);
      this.channels.set(record.id, channel);
    }
    return channel;
  }

  private info(record: MachineRecord): MachineInfo {
    const online = this.channels.get(record.id)?.online === true;
    return {
      id: record.id,
      name: record.name,
      status: online ? 'online' : 'offline',
      roots: record.roots,
      lastSeenAt: online ? this.deps.clock.now() : record.lastSeenAt,
    };
  }

  private announce(id: string): void {
    const record = this.deps.store.get(id);
    if (record) this.deps.publish({ type: 'machine.status', machine: this.info(record) });
  }
}
