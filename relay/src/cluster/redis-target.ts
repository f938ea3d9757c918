import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';

/**
 * Where a node's Redis is, from `--redis`:
 *
 *   redis://[user:password@]host:port[/db]     one Redis (rediss:// for TLS)
 *   redis+sentinel://[user:password@]host:port[,host:port…]/<master name>
 *                                              the master a set of Sentinels names, followed
 *                                              through failovers; the credentials are the data
 *                                              nodes' (the Sentinels are asked without any)
 *
 * Redis Cluster is not a target: see docs/relay.md ("Redis Sentinel and Redis Cluster").
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'sentinel';
      name: string;
      sentinels: { host: string; port: number }[];
      username?: string;
      password?: string;
    };

/** Sentinels one target may list: three are enough to find the master; a few more for spares. */
const MAX_SENTINELS = 16;
const SENTINEL_PORT = 26379;

export function parseRedisTarget(value: string): Result<RedisTarget> {
  if (/^rediss?:\/\//.test(value)) {
    let host = '';
    try {
      host = new URL(value).hostname;
    } catch {
      // refused below
    }
    return host ? ok({ kind: 'single', url: value }) : fail('bad-request', '--redis: not a Redis URL with a host');
  }
  const sentinel = /^redis\+sentinel:\/\/(?:([^@/]*)@)?([^/@]+)\/([^/?#]+)$/.exec(value);
  if (!sentinel) {
    return fail(
      'bad-request',
      '--redis takes redis://host:port, rediss://host:port or redis+sentinel://host:port[,host:port…]/<master name>',
    );
  }
  const [, auth, hosts, name] = sentinel;
  const list = hosts!.split(',');
  if (list.length > MAX_SENTINELS) return fail('bad-request', `--redis: at most ${MAX_SENTINELS} Sentinels`);
  const sentinels: { host: string; port: number }[] = [];
  for (const entry of list) {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry);
    const port = m?.[2] === undefined ? SENTINEL_PORT : Number(m[2]);
    if (!m || port < 1 || port > 65535) return fail('bad-request', `--redis: "${entry}" is not a Sentinel host:port`);
    sentinels.push({ host: m[1]!.replace(/^\[|\]$/g, ''), port });
  }
  const colon = auth?.indexOf(':') ?? -1;
  const decoded = decode([
    name!,
    auth === undefined ? '' : colon < 0 ? auth : auth.slice(0, colon),
    colon < 0 ? undefined : auth!.slice(colon + 1),
  ]);
  if (!decoded) return fail('bad-request', '--redis: a malformed %-escape');
  const [master, user, password] = decoded;
  const target: RedisTarget = { kind: 'sentinel', name: master!, sentinels };
  if (user) target.username = user;
  if (password !== undefined) target.password = password;
  return ok(target);
}

/** Each part %-decoded; undefined if one has a malformed escape. */
function decode(parts: (string | undefined)[]): (string | undefined)[] | undefined {
  try {
    return parts.map((p) => (p === undefined ? undefined : decodeURIComponent(p)));
  } catch {
    return undefined;
  }
}
