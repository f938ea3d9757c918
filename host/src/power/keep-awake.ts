import type { Clock, KeepAwakeStatus, TimerHandle } from '@tether/shared-protocol';
import type { InhibitorCommand, InhibitorSpawner, RunningInhibitor } from './sleep-inhibitor.js';

/**
 * Keeps the computer awake while the host works: a sleep inhibitor is held while a run is active
 * (running, or waiting for an answer the phone may give) or a device has a terminal attached, and
 * let go once neither is so. A missing or failing inhibitor is reported (`tether status`), never
 * a failure of the host; it is not tried again until the host restarts.
 */

/** What it does now (shared-protocol's `KeepAwakeSchema`: the devices are told it too). */
export type { KeepAwakeStatus };

/** What keeps the computer busy now. */
export interface Busy {
  activeRuns: number;
  attachedTerminals: number;
}

export interface KeepAwakeDeps {
  /** False with `--no-keep-awake`. */
  enabled: boolean;
  /** The inhibitor for this platform, or why there is none. */
  command: InhibitorCommand | string;
  spawner: InhibitorSpawner;
  busy: () => Busy;
  clock: Clock;
  /** How often (ms) the host looks at what is busy; a run that ends is let go within this. */
  checkEveryMs?: number;
  /** Hears each change of state (to tell the devices). */
  onChange?: (status: KeepAwakeStatus) => void;
}

/** Milliseconds between looks: short against a computer's idle-sleep timeout (minutes). */
export const KEEP_AWAKE_CHECK_MS = 5000;

export class KeepAwake {
  private state: KeepAwakeStatus;
  private held: RunningInhibitor | undefined;
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(private readonly deps: KeepAwakeDeps) {
    const now = deps.clock.now();
    const tool = typeof deps.command === 'string' ? null : deps.command.tool;
    this.state = !deps.enabled
      ? { state: 'off', tool, since: now, message: 'turned off (--no-keep-awake)' }
      : typeof deps.command === 'string'
        ? { state: 'unavailable', tool, since: now, message: deps.command }
        : { state: 'idle', tool, since: now, message: 'nothing running' };
  }

  status(): KeepAwakeStatus {
    return { ...this.state };
  }

  /** Starts looking; also looks at once. */
  start(): void {
    if (this.state.state === 'off' || this.state.state === 'unavailable') return;
    this.check();
  }

  /** Looks at what is busy now, and holds or lets go. Called on a timer, and when things change. */
  check(): void {
    if (this.stopped || this.state.state === 'off' || this.state.state === 'unavailable') return;
    const busy = this.deps.busy();
    const wanted = busy.activeRuns > 0 || busy.attachedTerminals > 0;
    if (wanted && !this.held) this.hold(busy);
    else if (!wanted && this.held) this.release();
    this.schedule();
  }

  /**
   * A session's status changed: looks again only when it may change the answer (a run started
   * while nothing is held, or one stopped while something is), so a run's every step costs nothing.
   */
  sessionStatus(status: string): void {
    const active = status === 'running' || status === 'waiting';
    if (active !== (this.held !== undefined)) this.check();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.held?.stop();
    this.held = undefined;
  }

  private hold(busy: Busy): void {
    const command = this.deps.command as InhibitorCommand;
    const held = this.deps.spawner(command);
    this.held = held;
    this.set('holding', describe(busy));
    held.onEnd((why) => {
      if (this.held !== held) return;
      this.held = undefined;
      this.set('unavailable', why);
    });
  }

  private release(): void {
    this.held?.stop();
    this.held = undefined;
    this.set('idle', 'nothing running');
  }

  private set(state: KeepAwakeStatus['state'], message: string): void {
    this.state = { state, tool: this.state.tool, since: this.deps.clock.now(), message };
    this.deps.onChange?.(this.status());
  }

  private schedule(): void {
    if (this.timer !== undefined || this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      this.check();
    }, this.deps.checkEveryMs ?? KEEP_AWAKE_CHECK_MS);
  }
}

function describe(busy: Busy): string {
  const parts = [
    busy.activeRuns > 0 ? `${busy.activeRuns} run${busy.activeRuns === 1 ? '' : 's'} active` : '',
    busy.attachedTerminals > 0
      ? `${busy.attachedTerminals} terminal${busy.attachedTerminals === 1 ? '' : 's'} attached`
      : '',
  ];
  return parts.filter((p) => p !== '').join(', ');
}
