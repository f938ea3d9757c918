import { expect } from '@playwright/test';
import type { LeaveStep, ReadStep } from './reader-place.js';

/**
 * Reading a long transcript back up to its first message a flick at a time, in any engine: `flick`
 * runs `readUp` (reader-place.ts) in the page however the driver does, and every flick is checked
 * the same way. The place holds (the item followed stays within `MAX_DRIFT_PX` of where the scroll
 * put it, and stays drawn), history comes at most a page per flick, and the step shown only goes
 * back, by no more than a flick's worth.
 */

/**
 * Pixels an item may move by itself after a flick: under a pixel, since WebKit scrolls by whole
 * pixels (a move to hold the place can leave up to one), and half a pixel of sub-pixel layout.
 */
export const MAX_DRIFT_PX = 1.5;
/** Steps one flick may move the reader through at most (a step is a line and a tool row). */
export const MAX_STEPS_PER_FLICK = 20;
/** Flicks after which reading back has surely gone wrong (a 1,000-step run takes about 700). */
const MAX_FLICKS = 5000;

export interface Reading {
  flicks: number;
  /** History pages read on the way. */
  pages: number;
  worstDrift: number;
  worstShifts: number;
  /** The step shown last, at the top (null if none ever showed). */
  lastStep: number | null;
}

/** Flicks up until the top is on screen with no gap left; `label` names the reading in failures. */
export async function readBack(flick: () => Promise<ReadStep>, label: string): Promise<Reading> {
  const reading: Reading = { flicks: 0, pages: 0, worstDrift: 0, worstShifts: 0, lastStep: null };
  let previous: ReadStep | undefined;
  for (;;) {
    const r = await flick();
    const what = `${label}, flick ${reading.flicks}: ${JSON.stringify(r)}`;
    expect(r.lost, what).toBe(false);
    expect(r.drift, what).toBeLessThanOrEqual(MAX_DRIFT_PX);
    // History comes a page at a time, as the reader nears it.
    expect(r.loads, what).toBeLessThanOrEqual(1);
    // And each while watched: none came in between two flicks.
    if (previous) expect(r.itemsBefore, `${what}: items came in between flicks`).toBe(previous.itemsAfter);
    previous = r;
    if (r.step !== null && reading.lastStep !== null) {
      expect(r.step, what).toBeLessThanOrEqual(reading.lastStep);
      expect(reading.lastStep - r.step, what).toBeLessThanOrEqual(MAX_STEPS_PER_FLICK);
    }
    reading.lastStep = r.step ?? reading.lastStep;
    reading.flicks++;
    reading.pages += r.loads;
    reading.worstDrift = Math.max(reading.worstDrift, r.drift);
    reading.worstShifts = Math.max(reading.worstShifts, r.shifts);
    if (r.atTop && r.gaps === 0) return reading;
    expect(reading.flicks, `${label}: never reached the first message`).toBeLessThan(MAX_FLICKS);
  }
}

/**
 * Leaves the bottom of a running session `times` times: `jump` follows the bottom again, `leave`
 * runs `leaveBottom` (reader-place.ts) in the page. Each time the item in view must stay where the
 * scroll put it while output streams in below: the app neither scrolls back to the bottom nor
 * moves the place.
 */
export async function leaveBottomRepeatedly(
  jump: () => Promise<void>,
  leave: () => Promise<LeaveStep>,
  times: number,
  label: string,
): Promise<LeaveStep[]> {
  const steps: LeaveStep[] = [];
  for (let i = 0; i < times; i++) {
    await jump();
    const r = await leave();
    const what = `${label}, time ${i}: ${JSON.stringify(r)}`;
    expect(r.key, what).not.toBeNull();
    expect(r.lost, what).toBe(false);
    expect(r.drift, what).toBeLessThanOrEqual(MAX_DRIFT_PX);
    expect(r.fromBottom, what).toBeGreaterThanOrEqual(r.scrolled - MAX_DRIFT_PX);
    steps.push(r);
  }
  return steps;
}
