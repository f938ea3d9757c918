import { fail, ok } from '@tether/shared-protocol';
import { networkInterfaces } from 'node:os';
import type { Interface } from './bind-address.js';
import { chooseBindAddress, interfacesFrom } from './bind-address.js';
import type { TlsMaterial } from './lan-listener.js';
import { loadTls } from './tls.js';
import { RENEW_BEFORE_DAYS, obtainTailscaleCert, tailscaleSelf } from './tailscale.js';

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
  tailscaleBinary?: string;
}

export interface ListenPlan {
  address: string;
  kind: 'tailscale' | 'lan' | 'loopback';
  tls?: TlsMaterial & { validTo: Date };
  /** With --tailscale-cert: gets a fresh certificate when the current one nears expiry. */
  renew?: () => Promise<(TlsMaterial & { validTo: Date }) | undefined>;
}

export type PlanResult =
  | { ok: true; value: ListenPlan }
  /** Nothing suitable: the host runs without remote control and says why. */
  | { ok: true; value: undefined; message: string }
  | { ok: false; error: { code: 'invalid-params' | 'unavailable'; message: string } };

/** Decides where and how the remote-control server listens, before anything is opened. */
export async function planListen(options: ListenOptions, dataDir: string): Promise<PlanResult> {
  const interfaces = options.interfaces ?? (() => interfacesFrom(networkInterfaces()));
  if (options.tailscaleCert) {
    if (options.tlsCert || options.tlsKey)
      return invalid('--tailscale-cert and --tls-cert/--tls-key exclude each other');
    const self = await tailscaleSelf(options.tailscaleBinary);
    if (!self.ok) return invalid(`--tailscale-cert: ${self.message}`);
    if (!self.value.dnsName)
      return invalid('--tailscale-cert: this computer has no MagicDNS name; enable MagicDNS for your tailnet');
    const bind = chooseBindAddress(options.bind === 'auto' ? 'tailscale' : options.bind, interfaces());
    if (!bind.ok)
      return bind.reason === 'refused' ? invalid(bind.message) : { ok: true, value: undefined, message: bind.message };
    const obtain = async () => {
      const files = await obtainTailscaleCert(dataDir, self.value.dnsName, options.tailscaleBinary);
      if (!files.ok) return fail('unavailable', files.message);
      const tls = loadTls(files.cert, files.key, self.value.dnsName);
      return tls.ok ? ok({ ...tls.value, name: self.value.dnsName }) : fail('unavailable', tls.message);
    };
    const first = await obtain();
    if (!first.ok) return { ok: false, error: { code: 'unavailable', message: first.error.message } };
    return {
      ok: true,
      value: {
        address: bind.address,
        kind: bind.kind,
        tls: first.value,
        renew: async () => {
          const next = await obtain();
          return next.ok ? next.value : undefined;
        },
      },
    };
  }
  if (Boolean(options.tlsCert) !== Boolean(options.tlsKey)) return invalid('--tls-cert and --tls-key go together');
  const bind = chooseBindAddress(options.bind, interfaces());
  if (!bind.ok)
    return bind.reason === 'refused' ? invalid(bind.message) : { ok: true, value: undefined, message: bind.message };
  if (options.tlsCert && options.tlsKey) {
    const tls = loadTls(options.tlsCert, options.tlsKey, bind.address);
    if (!tls.ok) return invalid(tls.message);
    return { ok: true, value: { address: bind.address, kind: bind.kind, tls: tls.value } };
  }
  return { ok: true, value: { address: bind.address, kind: bind.kind } };
}

/** Whether a certificate should be renewed now. */
export function needsRenewal(validTo: Date, now: Date): boolean {
  return validTo.getTime() - now.getTime() < RENEW_BEFORE_DAYS * 24 * 3600 * 1000;
}

function invalid(message: string): { ok: false; error: { code: 'invalid-params'; message: string } } {
  return { ok: false, error: { code: 'invalid-params', message } };
}
