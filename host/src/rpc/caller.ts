import type { Result, SessionEvent } from '@tether/shared-protocol';
import type { StreamHost } from '../streams/stream-host.js';
import type { DeviceRecord } from '../store/device-store.js';
import type { ShareLinkRecord } from '../store/share-store.js';

/** What a method handler may ask of the live connection a request came on. */
export interface ConnectionPort extends StreamHost {
  /** Follows a session: replays after `after` (at most the newest `tail` events), then live events. */
  watch(sessionId: string, after: number, tail?: number): Result<void>;
  unwatch(sessionId: string): void;
  /** The device takes batches from now on (`channel.batch`): the most messages one batch holds. */
  acceptBatches(): number;
  /** True once the connection ended (a report kept about it is then stale). */
  readonly isClosed: boolean;
}

/** Who is calling: the device, and its live connection unless the call came as a one-shot. */
export interface Caller {
  device: DeviceRecord;
  connection?: ConnectionPort;
  /** Set when the caller is a share link's viewer (`device` then stands for it, with no scope). */
  viewer?: ShareLinkRecord;
}

/** The control socket's connection a `tether …` command came on, as its handlers use it. */
export interface ControlCaller extends StreamHost {
  /** Sessions it follows (a command's `--follow`). */
  readonly following: Set<string>;
  /** Sends a session event; false once the connection can take no more. */
  sendEvent(event: SessionEvent, replay?: boolean): boolean;
  /** Resolves once what it was sent has gone out. */
  drained(): Promise<void>;
  readonly isClosed: boolean;
}
