import type { Attachment, DeviceClient, Result } from '@tether/shared-protocol';
import { fromBase64Url, ok, fail } from '@tether/shared-protocol';

/** Thumbnails kept as blob: URLs; past this the oldest is let go (and its URL revoked). */
const MAX_KEPT = 48;

/**
 * The bytes of a session's attachments, read over the sealed channel (`blobs.read`, a chunk per
 * call) and kept as blob: URLs for <img>: a photo is fetched once per page, never put in HTML.
 */
export class BlobReader {
  private readonly urls = new Map<string, Promise<Result<string>>>();

  constructor(private readonly client: Pick<DeviceClient, 'call' | 'state' | 'onState'>) {}

  /** Whether the computer answers now: a read asked for meanwhile waits until it does. */
  reachable(): boolean {
    return this.client.state.name === 'open';
  }

  /** Hears each change of `reachable()`'s answer (and some repeats of it). */
  onReachChange(listener: (reachable: boolean) => void): () => void {
    return this.client.onState((state) => listener(state.name === 'open'));
  }

  /** A blob: URL for the attachment's bytes, typed as the host kept them. */
  url(sessionId: string, attachment: Attachment): Promise<Result<string>> {
    const key = `${sessionId}/${attachment.id}`;
    let url = this.urls.get(key);
    if (!url) {
      url = this.fetch(sessionId, attachment);
      this.urls.set(key, url);
      // A failed read is tried again next time it is shown.
      void url.then((r) => !r.ok && this.urls.delete(key));
      this.trim();
    }
    return url;
  }

  private async fetch(sessionId: string, attachment: Attachment): Promise<Result<string>> {
    const parts: Uint8Array<ArrayBuffer>[] = [];
    let offset = 0;
    while (offset < attachment.size) {
      const read = await this.client.call('blobs.read', { sessionId, id: attachment.id, offset });
      if (!read.ok) return read;
      const bytes = fromBase64Url(read.value.data);
      if (!bytes || bytes.length === 0) return fail('malformed', 'the computer sent an unreadable part');
      parts.push(new Uint8Array(bytes));
      offset += bytes.length;
    }
    return ok(URL.createObjectURL(new Blob(parts, { type: attachment.type })));
  }

  private trim(): void {
    while (this.urls.size > MAX_KEPT) {
      const [key, url] = this.urls.entries().next().value as [string, Promise<Result<string>>];
      this.urls.delete(key);
      void url.then((r) => r.ok && URL.revokeObjectURL(r.value));
    }
  }
}
