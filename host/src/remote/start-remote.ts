import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { networkInterfaces } from 'node:os';
import type { Interface } from './bind-address.js';
import { chooseBindAddress, inTailscaleRange, interfacesFrom } from './bind-address.js';
import type { TlsMaterial } from './lan-listener.js';
import { loadTls } from './tls.js';
import { RENEW_BEFORE_DAYS, obtainTailscaleCert, tailscaleAddresses, tailscaleSelf } from './tailscale.js';

/** Port the host listens on unless told otherwise. */
export const DEFAULT_PORT = 7420;

export interface ListenOptions {
  /** `auto`, `tailscale`, `lan`, or one address. */
  bind: string;
  port: number;
  tlsCert?: string;
  tlsKey?: string;
  tailscaleCert?: boolean;
  /** The interfaces to choose from; the computer's own by default (tests inject lists). */
  interfaces?: () => Interface[];
  /** The `tailscale` command (tests use a script standing in for it). */
  tailscaleBinary?: string;
  /** How long to wait for `tailscale status` (default TAILSCALE_STATUS_TIMEOUT_MS). */
  tailscaleTimeoutMs?: number;
}

export interface ListenPlan {
  address: string;
  /** `cgnat`: a 100.64.0.0/10 address Tailscale does not list, named with --bind. */
  kind: 'tailscale' | 'cgnat' | 'lan' | 'loopback';
  tls?: TlsMaterial & { validTo: Date };
  /** With --tailscale-cert: gets a fresh certificate when the current one nears expiry. */
  renew?: () => Promise<(TlsMaterial & { validTo: Date }) | undefined>;
}

/**
 * Where to listen; or, when there is nothing suitable, why (the host then runs without a listener
 * and says so); or an error when what was asked for is refused.
 */
export type PlanResult = Result<{ plan: ListenPlan } | { plan: undefined; why: string }>;

/** Decides where and how the remote-control server listens, before anything is opened. */
export async function planListen(options: ListenOptions, dataDir: string): Promise<PlanResult> {
  const interfaces = options.interfaces ?? (() => interfacesFrom(networkInterfaces()));
  if (options.tailscaleCert) {
    if (options.tlsCert || options.tlsKey)
      return invalid('--tailscale-cert and --tls-cert/--tls-key exclude each other');
    const self = await tailscaleSelf(options.tailscaleBinary, options.tailscaleTimeoutMs);
    if (!self.ok) return invalid(`--tailscale-cert: ${self.error.message}`);
    if (!self.value.dnsName)
      return invalid('--tailscale-cert: this computer has no MagicDNS name; enable MagicDNS for your tailnet');
    const bind = chooseBindAddress(
      options.bind === 'auto' ? 'tailscale' : options.bind,
      interfaces(),
      self.value.running ? self.value.addresses : [],
      self.value.running ? undefined : 'Tailscale is not running, so it is not its address',
    );
    if (!bind.ok) return bind.error.code === 'invalid-params' ? invalid(bind.error.message) : none(bind.error.message);
    const obtain = async () => {
      const files = await obtainTailscaleCert(dataDir, self.value.dnsName, options.tailscaleBinary);
      if (!files.ok) return files;
      const tls = loadTls(files.value.cert, files.value.key, self.value.dnsName);
      return tls.ok ? ok({ ...tls.value, name: self.value.dnsName }) : fail('unavailable', tls.error.message);
    };
    const first = await obtain();
    if (!first.ok) return first;
    return ok({
      plan: {
        address: bind.value.address,
        kind: bind.value.kind,
        tls: first.value,
        renew: async () => {
          const next = await obtain();
          return next.ok ? next.value : undefined;
        },
      },
    });
  }
  if (Boolean(options.tlsCert) !== Boolean(options.tlsKey)) return invalid('--tls-cert and --tls-key go together');
  const list = interfaces();
  // Only Tailscale can say whether an address in its ranges is its own; asked only when one is there.
  const ask =
    options.bind === 'lan'
      ? false
      : options.bind === 'auto' || options.bind === 'tailscale'
        ? list.some((i) => !i.internal && inTailscaleRange(i.address))
        : inTailscaleRange(options.bind);
  const tailscale = ask
    ? await tailscaleAddresses(options.tailscaleBinary, options.tailscaleTimeoutMs)
    : { addresses: [], reason: undefined };
  const bind = chooseBindAddress(options.bind, list, tailscale.addresses, tailscale.reason);
  if (!bind.ok) return bind.error.code === 'invalid-params' ? invalid(bind.error.message) : none(bind.error.message);
  const { address, kind } = bind.value;
  if (options.tlsCert && options.tlsKey) {
    const tls = loadTls(options.tlsCert, options.tlsKey, address);
    if (!tls.ok) return invalid(tls.error.message);
    return ok({ plan: { address, kind, tls: tls.value } });
  }
  return ok({ plan: { address, kind } });
}

/** Whether a certificate should be renewed now. */
export function needsRenewal(validTo: Date, now: Date): boolean {
  return validTo.getTime() - now.getTime() < RENEW_BEFORE_DAYS * 24 * 3600 * 1000;
}

function invalid(message: string): Result<never> {
  return fail('invalid-params', message);
}

function none(why: string): PlanResult {
  return ok({ plan: undefined, why });
}
