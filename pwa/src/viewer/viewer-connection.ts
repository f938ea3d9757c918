import type {
  ClientState,
  Clock,
  HostInfo,
  SessionSummary,
  ShareLink,
  WebSocketConstructor,
} from '@tether/shared-protocol';
import { DeviceClient, isSessionEvent, shareLinkHostId, toBase64Url, viewerIdentity } from '@tether/shared-protocol';
import { BlobReader } from '../attach/blob-reader.js';
import { Store } from '../lib/store.js';
import type { TranscriptCachePort } from '../net/cache-port.js';
import type { PathConnect, PathHost } from '../net/relay-path-connect.js';
import { pathConnect } from '../net/relay-path-connect.js';
import { SessionFeed } from '../net/session-feed.js';

/** A viewer keeps nothing on the device it opened the link on: the transcript lives in the page. */
const NOTHING_KEPT: TranscriptCachePort = {
  transcript: () => Promise.resolve(undefined),
  putTranscript: () => Promise.resolve(true),
};

export interface ViewerDeps {
  pageOrigin: string;
  WebSocketImpl: WebSocketConstructor;
  clock: Clock;
}

/**
 * Following one session through a share link: the same sealed client as a paired device (its key
 * derived from the link's secret), the same feed (a watch of the newest events, older ones paged
 * in as the reader scrolls up), the same paths (the host's page directly, else the relay the link
 * names). Nothing is stored; the host decides everything the link may see.
 */
export class ViewerConnection {
  readonly client: DeviceClient;
  readonly status: Store<ClientState>;
  readonly info = new Store<HostInfo | null>(null);
  readonly summary = new Store<SessionSummary | null>(null);
  readonly feed: SessionFeed;
  readonly blobs: BlobReader;
  readonly connect: PathConnect;

  constructor(
    readonly link: ShareLink,
    deps: ViewerDeps,
  ) {
    const relay = link.relay;
    const host: PathHost = {
      apiBase: link.base || deps.pageOrigin,
      hostId: relay ? shareLinkHostId(relay) : '',
      hostSignPublicKey: relay ? toBase64Url(relay.hostSignPublicKey) : '',
      ...(relay ? { relay: { url: relay.url, ticket: toBase64Url(relay.ticket) } } : {}),
    };
    this.connect = pathConnect({ host: () => host, ...deps });
    this.client = new DeviceClient({
      ...viewerIdentity(link),
      connect: this.connect,
      clock: deps.clock,
    });
    this.status = new Store<ClientState>(this.client.state);
    this.feed = new SessionFeed('viewer', link.sessionId, this.client, NOTHING_KEPT, deps.clock);
    this.blobs = new BlobReader(this.client);
    this.client.onState((state) => {
      this.status.set(state);
      if (state.name === 'open') void this.refresh();
    });
    this.client.onWatchError((_id, error) => this.feed.watchFailed(error));
    this.client.onEvent((event) => {
      if (event.type === 'watch.skipped') return this.feed.skipped(event.after, event.to);
      if (!isSessionEvent(event) || event.sessionId !== link.sessionId) return;
      if (event.type === 'session.updated') this.summary.set(event.session);
      this.feed.apply(event);
    });
  }

  start(): void {
    this.client.start();
    void this.feed.open();
  }

  stop(): void {
    this.feed.close();
    this.client.stop();
  }

  private async refresh(): Promise<void> {
    const info = await this.client.call('host.info', {});
    if (info.ok) this.info.set(info.value);
  }
}
