import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TlsMaterial } from './lan-listener.js';

export type TlsLoad = Result<TlsMaterial & { validTo: Date; names: string[] }>;

/** Names a certificate is for: its DNS and IP subject alternative names. */
export function certificateNames(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(',')
    .map((s) => s.trim())
    .flatMap((entry) => {
      const [kind, value] = entry.split(':', 2).map((x) => x.trim()) as [string, string | undefined];
      return (kind === 'DNS' || kind === 'IP Address') && value ? [value.toLowerCase()] : [];
    });
}

/**
 * Reads a certificate and key (PEM), checks that they belong together and that the certificate
 * is in date, and picks the name phones should use: the bound address when the certificate names
 * it, else its first DNS name.
 */
export function loadTls(certPath: string, keyPath: string, address: string, now = new Date()): TlsLoad {
  let certPem: Buffer;
  let keyPem: Buffer;
  try {
    certPem = readFileSync(certPath);
    keyPem = readFileSync(keyPath);
  } catch (error) {
    return fail(
      'invalid-params',
      `cannot read the TLS files: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem)))
      return fail('invalid-params', `${keyPath} is not the key of ${certPath}`);
  } catch (error) {
    return fail(
      'invalid-params',
      `invalid certificate or key: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const validTo = new Date(cert.validTo);
  if (validTo.getTime() < now.getTime())
    return fail('invalid-params', `${certPath} expired on ${validTo.toISOString()}`);
  const names = certificateNames(cert);
  const name = names.includes(address.toLowerCase()) ? address : names.find((n) => !/^[\d.:]+$/.test(n));
  return ok({ cert: certPem, key: keyPem, ...(name ? { name } : {}), validTo, names });
}
