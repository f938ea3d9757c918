import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Days before expiry at which a Tailscale certificate is renewed (they last 90 days). */
export const RENEW_BEFORE_DAYS = 14;

/**
 * Milliseconds `tailscale status` may take before the host stops waiting and treats Tailscale as
 * silent: 5 s. A local daemon answers in well under a second; start should not hang on a wedged one.
 */
export const TAILSCALE_STATUS_TIMEOUT_MS = 5_000;

/** Milliseconds `tailscale cert` may take: 2 min, since it goes to Let's Encrypt and back. */
const TAILSCALE_CERT_TIMEOUT_MS = 120_000;

function run(
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
      resolve({
        code,
        stdout: String(stdout),
        stderr: String(stderr) || (error?.message ?? ''),
        timedOut: error?.killed === true,
      });
    });
  });
}

export interface TailscaleSelf {
  /** MagicDNS name, without the trailing dot. */
  dnsName: string;
  /** This computer's Tailscale addresses, as Tailscale reports them. */
  addresses: string[];
  /** Whether Tailscale is up (`BackendState` `Running`): the addresses are live only then. */
  running: boolean;
  /** Whether the tailnet has HTTPS certificates enabled (the name is set only then). */
  httpsEnabled: boolean;
}

/** What `tailscale status --json` says about this computer, or why it could not be asked. */
export async function tailscaleSelf(
  binary = 'tailscale',
  timeoutMs = TAILSCALE_STATUS_TIMEOUT_MS,
): Promise<Result<TailscaleSelf>> {
  const result = await run(binary, ['status', '--json'], timeoutMs);
  if (result.timedOut) return fail('unavailable', `tailscale status did not answer within ${timeoutMs} ms`);
  if (result.code === 127 || /ENOENT/.test(result.stderr)) return fail('unavailable', 'tailscale is not installed');
  if (result.code !== 0) return fail('unavailable', `tailscale status failed: ${result.stderr.trim()}`);
  try {
    const status = JSON.parse(result.stdout) as {
      BackendState?: string;
      Self?: { DNSName?: string; TailscaleIPs?: string[] };
      CertDomains?: string[] | null;
    };
    const dnsName = (status.Self?.DNSName ?? '').replace(/\.$/, '');
    return ok({
      dnsName,
      addresses: status.Self?.TailscaleIPs ?? [],
      running: status.BackendState === 'Running',
      httpsEnabled: (status.CertDomains ?? []).length > 0,
    });
  } catch {
    return fail('unavailable', 'tailscale status printed something that is not JSON');
  }
}

/** Runs `tailscale cert` for this computer's name into the data dir; returns the file paths. */
export async function obtainTailscaleCert(
  dataDir: string,
  name: string,
  binary = 'tailscale',
): Promise<Result<{ cert: string; key: string }>> {
  const dir = join(dataDir, 'tls');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const result = await run(binary, ['cert', '--cert-file', cert, '--key-file', key, name], TAILSCALE_CERT_TIMEOUT_MS);
  if (result.code !== 0) {
    return fail(
      'unavailable',
      `tailscale cert failed: ${result.stderr.trim()}. Enable HTTPS certificates for your tailnet (admin console → DNS → HTTPS Certificates).`,
    );
  }
  return ok({ cert, key });
}

/**
 * The addresses Tailscale says are this computer's, for telling its 100.64.0.0/10 addresses from
 * carrier-grade NAT ones: empty, with the reason, when it is absent, stopped or silent.
 */
export async function tailscaleAddresses(
  binary = 'tailscale',
  timeoutMs = TAILSCALE_STATUS_TIMEOUT_MS,
): Promise<{ addresses: string[]; reason: string }> {
  const self = await tailscaleSelf(binary, timeoutMs);
  if (!self.ok) return { addresses: [], reason: `Tailscale could not confirm it (${self.error.message})` };
  if (!self.value.running) return { addresses: [], reason: 'Tailscale is not running, so it is not its address' };
  return { addresses: self.value.addresses, reason: 'Tailscale does not list it among its addresses' };
}
