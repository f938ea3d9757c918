import type { RelayLinkStatus } from '@tether/shared-protocol';
import {
  RELAY_CLOCK_SKEW_MS,
  decodeRelayFrame,
  isRelayUrl,
  relayHostLinkUrl,
  relayOrigin,
} from '@tether/shared-protocol';
import { WebSocket } from 'ws';

export interface RelayCheck {
  level: 'ok' | 'warning' | 'problem' | 'info';
  what: string;
  fix?: string;
}

/** Milliseconds each probe of the relay may take. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * `tether doctor`'s relay checks: the URL, whether the relay answers (`GET /healthz`) and with a
 * certificate this computer trusts, its clock and the origin it names (from a challenge on
 * `WS /relay/host`, left unanswered), and whether the running host is linked.
 */
export async function checkRelay(url: string, linked: RelayLinkStatus | undefined): Promise<RelayCheck[]> {
  if (!isRelayUrl(url) || !relayHostLinkUrl(url)) {
    return [
      {
        level: 'problem',
        what: `${url} is not a relay URL`,
        fix: "give the relay's https:// URL (plain http:// only for a relay on this computer)",
      },
    ];
  }
  const checks: RelayCheck[] = [];
  const base = url.replace(/\/+$/, '');
  const https = base.startsWith('https:');
  try {
    const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const health = (await response.json().catch(() => undefined)) as { status?: unknown } | undefined;
    const clusterDown = response.ok && health?.status === 'ok' && (await clusterIsDown(base));
    checks.push(
      response.ok && health?.status === 'ok'
        ? {
            level: 'ok',
            what: `the relay at ${base} answers${https ? ' over HTTPS with a certificate this computer trusts' : ''}${clusterDown ? ', but its cluster (Redis) is down' : ''}`,
          }
        : { level: 'problem', what: `${base}/healthz answered ${response.status}: is this a Tether relay?` },
    );
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const tls = cause?.code !== undefined && /CERT|SSL|TLS|SELF_SIGNED/i.test(cause.code);
    checks.push({
      level: 'problem',
      what: `the relay at ${base} cannot be reached: ${cause?.message ?? (error as Error).message}`,
      fix: tls
        ? "the relay's certificate is not trusted here: give it one from a public authority (phones need that too)"
        : 'check the URL, this computer’s network, and that the relay runs',
    });
    return checks;
  }
  if (!https) {
    checks.push({
      level: 'info',
      what: 'the relay is plain HTTP on loopback: fine on this computer, but phones need an https:// relay',
    });
  }
  const challenge = await readChallenge(relayHostLinkUrl(base)!);
  if (typeof challenge === 'string') {
    checks.push({ level: 'problem', what: `the relay's host link did not answer as a relay does: ${challenge}` });
  } else {
    const expected = relayOrigin(base);
    checks.push(
      challenge.origin === expected
        ? { level: 'ok', what: `the relay names itself ${challenge.origin}, the origin this URL leads to` }
        : {
            level: 'problem',
            what: `the relay names itself ${challenge.origin}, not ${expected ?? base}: a host would refuse to link`,
            fix: "use the relay's public URL, or set its --public-url to this one",
          },
    );
    const skew = challenge.time - Date.now();
    const seconds = Math.round(Math.abs(skew) / 1000);
    checks.push(
      Math.abs(skew) <= RELAY_CLOCK_SKEW_MS / 2
        ? { level: 'ok', what: `the relay's clock and this one agree (within ${seconds} s)` }
        : {
            level: Math.abs(skew) > RELAY_CLOCK_SKEW_MS ? 'problem' : 'warning',
            what: `the relay's clock is ${seconds} s ${skew > 0 ? 'ahead of' : 'behind'} this computer's (links and tickets allow ${RELAY_CLOCK_SKEW_MS / 1000} s)`,
            fix: 'turn on automatic time (NTP) here and on the relay',
          },
    );
  }
  if (linked) {
    checks.push(
      linked.state === 'linked'
        ? {
            level: 'ok',
            what: `the running host is linked to the relay (${linked.connections} connections through it)`,
          }
        : { level: 'warning', what: `the running host is not linked: ${linked.message}` },
    );
  }
  return checks;
}

/**
 * Whether the relay's metrics say its Redis cluster is down. `/healthz` says only that the node
 * answers; the rest is on `/metrics`, which an operator may keep to their monitoring: unreadable
 * metrics are not a problem.
 */
async function clusterIsDown(base: string): Promise<boolean> {
  try {
    const response = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (!response.ok) return false;
    return /^tether_relay_cluster_up 0$/m.test(await response.text());
  } catch {
    return false;
  }
}

/** Opens the host-link endpoint and reads the relay's challenge, without answering it. */
function readChallenge(url: string): Promise<{ origin: string; time: number } | string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { handshakeTimeout: PROBE_TIMEOUT_MS, maxPayload: 1024 });
    const timer = setTimeout(() => done('no challenge in time'), PROBE_TIMEOUT_MS);
    const done = (result: { origin: string; time: number } | string) => {
      clearTimeout(timer);
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      resolve(result);
    };
    ws.on('message', (data: Buffer) => {
      const frame = decodeRelayFrame(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      done(
        frame.ok && frame.value.type === 'challenge'
          ? { origin: frame.value.origin, time: frame.value.time }
          : 'its first message is not a challenge',
      );
    });
    ws.on('unexpected-response', (_request, response) => done(`HTTP ${response.statusCode}`));
    ws.on('error', (error) => done(error.message));
    ws.on('close', (code) => done(`closed (${code})`));
  });
}
