import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Days before expiry at which a Tailscale certificate is renewed (they last 90 days). */
export const RENEW_BEFORE_DAYS = 14;

function run(
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) || (error?.message ?? '') });
    });
  });
}

export interface TailscaleSelf {
  /** MagicDNS name, without the trailing dot. */
  dnsName: string;
  addresses: string[];
  /** Whether the tailnet has HTTPS certificates enabled (the name is set only then). */
  httpsEnabled: boolean;
}

/** What `tailscale status --json` says about this computer; undefined when Tailscale is not usable. */
export async function tailscaleSelf(
  binary = 'tailscale',
): Promise<{ ok: true; value: TailscaleSelf } | { ok: false; message: string }> {
  const result = await run(binary, ['status', '--json'], 10_000);
  if (result.code === 127 || /ENOENT/.test(result.stderr)) return { ok: false, message: 'tailscale is not installed' };
  if (result.code !== 0) return { ok: false, message: `tailscale status failed: ${result.stderr.trim()}` };
  try {
    const status = JSON.parse(result.stdout) as {
      Self?: { DNSName?: string; TailscaleIPs?: string[] };
      CertDomains?: string[] | null;
    };
    const dnsName = (status.Self?.DNSName ?? '').replace(/\.$/, '');
    return {
      ok: true,
      value: {
        dnsName,
        addresses: status.Self?.TailscaleIPs ?? [],
        httpsEnabled: (status.CertDomains ?? []).length > 0,
      },
    };
  } catch {
    return { ok: false, message: 'tailscale status printed something that is not JSON' };
  }
}

/** Runs `tailscale cert` for this computer's name into the data dir; returns the file paths. */
export async function obtainTailscaleCert(
  dataDir: string,
  name: string,
  binary = 'tailscale',
): Promise<{ ok: true; cert: string; key: string } | { ok: false; message: string }> {
  const dir = join(dataDir, 'tls');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const result = await run(binary, ['cert', '--cert-file', cert, '--key-file', key, name], 120_000);
  if (result.code !== 0) {
    return {
      ok: false,
      message: `tailscale cert failed: ${result.stderr.trim()}. Enable HTTPS certificates for your tailnet (admin console → DNS → HTTPS Certificates).`,
    };
  }
  return { ok: true, cert, key };
}
