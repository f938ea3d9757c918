/** Runs `run` at the next animation frame. */
export type FrameScheduler = (run: () => void) => void;

let queued: (() => void)[] = [];

/**
 * One animation-frame callback for all the work of a frame (every feed's folded events, every
 * host's session list), so their store changes land together and the screen renders once per
 * frame, not once per change. Each caller asks at most once per frame, so the queue holds one
 * entry per feed and host. Where there are no frames (tests, workers), a microtask.
 */
export const nextFrame: FrameScheduler = (run) => {
  queued.push(run);
  if (queued.length > 1) return;
  const flush = () => {
    const batch = queued;
    queued = [];
    for (const work of batch) work();
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(flush);
  else queueMicrotask(flush);
};
