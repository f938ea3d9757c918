import type { Clock, TimerHandle } from '../clock.js';
import { CloseCode } from '../close-codes.js';
import type { DeviceChannel } from './device-channel.js';

export interface KeepaliveOptions {
  /** Between pings (ms). */
  intervalMs: number;
  /** How long a ping may go unanswered (ms) before the channel is closed as dead. */
  pongTimeoutMs: number;
  /** The number a ping carries. */
  nextNumber: () => number;
}

/**
 * Pings the host on an open channel and closes it (`PingTimeout`) when nothing comes back in
 * time. Any message counts as an answer (`heard`), not only the pong: on a long catch-up a slow
 * phone works through thousands of events, and the pong waits behind them.
 */
export class Keepalive {
  private channel: DeviceChannel | undefined;
  private pingTimer: TimerHandle | undefined;
  private pongTimer: TimerHandle | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly options: KeepaliveOptions,
  ) {}

  start(channel: DeviceChannel): void {
    this.channel = channel;
    this.schedule();
  }

  /** Pings now, unless a ping is already waiting for its answer. */
  ping(): void {
    const channel = this.channel;
    if (!channel || this.pongTimer !== undefined) return;
    channel.send({ t: 'ping', n: this.options.nextNumber() });
    this.pongTimer = this.clock.setTimeout(() => {
      this.pongTimer = undefined;
      if (this.channel === channel) channel.close(CloseCode.PingTimeout, 'no pong from the host');
    }, this.options.pongTimeoutMs);
  }

  /** A message came from the host: the channel is alive. */
  heard(): void {
    if (this.pongTimer === undefined) return;
    this.clock.clearTimeout(this.pongTimer);
    this.pongTimer = undefined;
  }

  stop(): void {
    this.channel = undefined;
    for (const timer of [this.pingTimer, this.pongTimer]) {
      if (timer !== undefined) this.clock.clearTimeout(timer);
    }
    this.pingTimer = this.pongTimer = undefined;
  }

  private schedule(): void {
    this.pingTimer = this.clock.setTimeout(() => {
      this.pingTimer = undefined;
      this.ping();
      this.schedule();
    }, this.options.intervalMs);
  }
}
