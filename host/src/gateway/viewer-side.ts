import type { SessionEvent } from '@tether/shared-protocol';
import type { Caller } from '../rpc/caller.js';
import type { Dispatch } from '../rpc/dispatch.js';
import type { DeviceRecord } from '../store/device-store.js';
import type { ShareLinkRecord } from '../store/share-store.js';

/** What a connection needs to serve a share link's viewer. */
export interface ViewerSide {
  /** The link a hello names, whatever its state (one that ended is told so, sealed). */
  lookup: (id: string) => ShareLinkRecord | undefined;
  /** The viewer's own dispatch: its methods, its one session (share/viewer-handlers.ts). */
  dispatch: Dispatch<Caller>;
  /** What the viewer is sent of an event, encoded (masked; photos only when the link has them). */
  frame: (event: SessionEvent, includePhotos: boolean) => Uint8Array;
}

/** A link's viewer as a connection's `device`: the link's id and key, and no scope at all. */
export function viewerAsDevice(link: ShareLinkRecord): DeviceRecord {
  return {
    id: link.id,
    label: link.name === '' ? 'share link' : `share link · ${link.name}`,
    scopes: [],
    fingerprint: '',
    createdAt: link.createdAt,
    lastSeenAt: link.lastSeenAt,
    revoked: false,
    publicKey: link.publicKey,
  };
}
