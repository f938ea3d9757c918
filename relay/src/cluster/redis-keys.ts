import { createHash } from 'node:crypto';

/**
 * The backplane's keys and channels in Redis, and the scripts that take, keep and give up a host:
 *
 *   key     tether:relay:host:{<tag>}  = "<nodeId> <generation>", PX presence TTL, refreshed
 *                                        while the link lives
 *   key     tether:relay:gen:{<tag>}   = the host's last generation, PX a day, raised by each claim
 *   key     tether:relay:node:<nodeId>    = 1, or its mesh address (host:port), PX node TTL, this
 *                                        node's heartbeat
 *   channel tether:relay:to:<nodeId>       messages for one node
 *   channel tether:relay:all               claims, for every node
 */

const PREFIX = 'tether:relay:';
/** A host's name in Redis's keys: 22 characters of base64url of a SHA-256 of its id. */
export function hostTag(hostId: string): string {
  return createHash('sha256').update(`tether relay presence\u0000${hostId}`).digest('base64url').slice(0, 22);
}
export const hostKey = (hostId: string) => `${PREFIX}host:{${hostTag(hostId)}}`;
export const genKey = (hostId: string) => `${PREFIX}gen:{${hostTag(hostId)}}`;
export const nodeKey = (nodeId: string) => `${PREFIX}node:${nodeId}`;
export const nodeChannel = (nodeId: string) => `${PREFIX}to:${nodeId}`;
export const ALL = `${PREFIX}all`;

/** Milliseconds a host's generation is kept after its last claim or refresh: a day, far longer
 * than any claim it orders lives without a refresh (the presence TTL). */
export const GENERATION_TTL_MS = 86_400_000;

/**
 * Takes the host: its next generation, and this node as holder at it. With ARGV[3] = 'if-free' (a
 * claim whose first answer never came back, retried), only when nobody holds it: 0 otherwise, but
 * when the holder is this node at the host's latest generation, that generation. That claim is
 * this node's own, run by Redis after the node stopped waiting for it (Redis stalled): it is
 * adopted, never taken for a rival's.
 * KEYS: host, gen. ARGV: nodeId, presence TTL, mode, generation TTL.
 */
export const CLAIM = `
if ARGV[3] == 'if-free' then
  local v = redis.call('GET', KEYS[1])
  if v then
    local last = redis.call('GET', KEYS[2])
    if last and v == ARGV[1] .. ' ' .. last then
      redis.call('PEXPIRE', KEYS[2], ARGV[4])
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      return tonumber(last)
    end
    return 0
  end
end
local gen = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. gen, 'PX', ARGV[2])
return gen`;

/**
 * Refreshes a claim only while it is still ours (node and generation); re-creates it if it expired
 * (Redis restarted empty, or was away longer than the TTL) unless a later generation was taken
 * meanwhile; 0 if another claim holds it or came after it.
 * KEYS: host, gen. ARGV: nodeId, generation, presence TTL, generation TTL.
 */
export const REFRESH = `
local mine = ARGV[1] .. ' ' .. ARGV[2]
local v = redis.call('GET', KEYS[1])
if v == mine then
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  return redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
if v then return 0 end
if tonumber(redis.call('GET', KEYS[2]) or '0') > tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[4])
redis.call('SET', KEYS[1], mine, 'PX', ARGV[3])
return 1`;

/** Deletes a claim only if it is still ours: at ARGV[2]'s generation, or at any when it is ''. */
export const RELEASE = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
if v == ARGV[1] .. ' ' .. ARGV[2] or (ARGV[2] == '' and string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. ' ') then
  return redis.call('DEL', KEYS[1])
end
return 0`;
