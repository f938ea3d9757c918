import type { Result } from '@tether/shared-protocol';
import type { DeviceRecord } from '../store/device-store.js';

/** What a method handler may ask of the live connection a request came on. */
export interface ConnectionPort {
  /** Follows a session: replays after `after`, then live events. */
  watch(sessionId: string, after: number): Result<void>;
  unwatch(sessionId: string): void;
  /** True once the connection ended (a report kept about it is then stale). */
  readonly isClosed: boolean;
}

/** Who is calling: the device, and its live connection unless the call came as a one-shot. */
export interface Caller {
  device: DeviceRecord;
  connection?: ConnectionPort;
}
