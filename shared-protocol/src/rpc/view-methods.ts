import type { MethodName } from './methods.js';

/**
 * What a share link's viewer (scope `view:<session>`, share.ts) may call, and the field of each
 * call's params that names the session: it must name the link's own session, or the call is
 * `forbidden`. Every other method is `forbidden` to a viewer, whatever its scope in METHODS says
 * (`null`, any device, included). `blobs.read` only when the link was made with photos.
 */
export const VIEW_METHODS: Readonly<Partial<Record<MethodName, 'id' | 'sessionId' | null>>> = {
  'host.info': null,
  'sessions.watch': 'id',
  'sessions.unwatch': 'id',
  'sessions.history': 'id',
  'blobs.read': 'sessionId',
};
