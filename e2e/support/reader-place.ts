/** What one scroll up the transcript did to the reader's place (`readUp`). */
export interface ReadStep {
  /** The item followed: the first (not a gap) whose top was on screen before the scroll. */
  key: string | null;
  /** Pixels the screen actually scrolled (less than asked at the top). */
  scrolled: number;
  /** The most (px) the item was ever away from where the scroll alone put it, frame by frame. */
  drift: number;
  /** Frames in which it moved by itself by more than 1 px. */
  shifts: number;
  /** It left the DOM: the window was drawn somewhere else. */
  lost: boolean;
  frames: number;
  /** Times the transcript's item count changed meanwhile: history pages read. */
  loads: number;
  /** The transcript's item count before the scroll, and once still. */
  itemsBefore: number;
  itemsAfter: number;
  /** N of the first "Step N of M" line on screen once still, if one shows. */
  step: number | null;
  gaps: number;
  atTop: boolean;
  /** The first move by itself (for a failure's message): when, and the scroll and spacer then. */
  firstMove: { frame: number; from: number; to: number; scrollTop: number; spacer: number; firstKey: string } | null;
}

/**
 * Runs in the page (any engine: Playwright's `page.evaluate(readUp, args)`, or WebDriver's
 * `executeAsyncScript`): scrolls the transcript up by `by` px at once, as a flick would, then
 * watches the first item that was on screen, frame by frame, until nothing has moved, loaded or
 * changed size for `quietFrames` frames (or `maxMs` passed). Whatever the app does meanwhile (a
 * history page inserted above, items drawn anew and measured), that item must stay where the scroll
 * put it. Helpers are methods: a bundler keeping names would wrap named inner functions in a
 * helper the page does not have.
 */
export function readUp(args: { by: number; quietFrames: number; maxMs: number }): Promise<ReadStep> {
  const el = document.querySelector<HTMLElement>('.transcript-wrap .scroll')!;
  const log = el.querySelector<HTMLElement>('[role="log"]')!;
  const at = {
    screenTop(): number {
      return el.getBoundingClientRect().top;
    },
    firstOnScreen(): HTMLElement | null {
      const top = at.screenTop();
      for (const slot of Array.from(log.querySelectorAll<HTMLElement>('[data-item-key]'))) {
        if (slot.hasAttribute('data-gap')) continue;
        const r = slot.getBoundingClientRect();
        if (r.top >= top && r.top < top + el.clientHeight) return slot;
      }
      return null;
    },
    topOf(key: string): number | null {
      const slot = log.querySelector(`[data-item-key="${CSS.escape(key)}"]`);
      return slot ? slot.getBoundingClientRect().top - at.screenTop() : null;
    },
    gapDue(): boolean {
      if (log.dataset['loadingOlder'] === 'true') return false;
      // A gap whose page failed offers to try again: nothing is due.
      return Array.from(log.querySelectorAll('[data-item-key][data-gap]')).some(
        (gap) => !/could not be loaded/.test(gap.textContent ?? ''),
      );
    },
    step(): number | null {
      const top = at.screenTop();
      for (const msg of Array.from(log.querySelectorAll('.msg.assistant'))) {
        const r = msg.getBoundingClientRect();
        if (r.bottom <= top || r.top >= top + el.clientHeight) continue;
        const match = /Step (\d+) of/.exec(msg.textContent ?? '');
        if (match) return Number(match[1]);
      }
      return null;
    },
  };
  const first = at.firstOnScreen();
  const key = first?.dataset['itemKey'] ?? null;
  const t0 = key !== null ? at.topOf(key)! : 0;
  const was = el.scrollTop;
  el.scrollTop = was - args.by;
  const scrolled = was - el.scrollTop;
  const expected = t0 + scrolled;
  const started = performance.now();
  const result: ReadStep = {
    key,
    scrolled,
    drift: 0,
    shifts: 0,
    lost: false,
    frames: 0,
    loads: 0,
    itemsBefore: Number(log.dataset['items']),
    itemsAfter: 0,
    step: null,
    gaps: 0,
    atTop: false,
    firstMove: null,
  };
  const last = { top: expected, items: log.dataset['items'], height: el.scrollHeight, quiet: 0 };
  return new Promise((resolve) => {
    const watch = {
      frame(): void {
        result.frames++;
        const top = key !== null ? at.topOf(key) : expected;
        if (top === null) result.lost = true;
        else {
          result.drift = Math.max(result.drift, Math.abs(top - expected));
          if (Math.abs(top - last.top) > 1) {
            result.shifts++;
            result.firstMove ??= {
              frame: result.frames,
              from: last.top,
              to: top,
              scrollTop: el.scrollTop,
              spacer: (log.firstElementChild as HTMLElement | null)?.offsetHeight ?? -1,
              firstKey: log.querySelector<HTMLElement>('[data-item-key]')?.dataset['itemKey'] ?? '',
            };
          }
        }
        const items = log.dataset['items'];
        if (items !== last.items) result.loads++;
        const still =
          top !== null &&
          Math.abs(top - last.top) < 0.5 &&
          items === last.items &&
          el.scrollHeight === last.height &&
          log.dataset['loadingOlder'] !== 'true' &&
          // A gap drawn and not loading is a page about to be read (the app reads one as soon as
          // it is drawn): on a busy machine that can start more than a few frames later.
          !at.gapDue();
        last.quiet = still ? last.quiet + 1 : 0;
        last.top = top ?? last.top;
        last.items = items;
        last.height = el.scrollHeight;
        if ((last.quiet >= args.quietFrames || performance.now() - started > args.maxMs) && result.frames > 2) {
          result.step = at.step();
          result.itemsAfter = Number(log.dataset['items']);
          result.gaps = Number(log.dataset['gaps']);
          result.atTop = el.scrollTop <= 0;
          resolve(result);
        } else requestAnimationFrame(() => watch.frame());
      },
    };
    requestAnimationFrame(() => watch.frame());
  });
}

/** What scrolling up from the bottom of a session that is still running did (`leaveBottom`). */
export interface LeaveStep {
  /** The item followed: the first (not a gap) whose top was on screen before the scroll. */
  key: string | null;
  /** Pixels the screen scrolled up. */
  scrolled: number;
  /** The most (px) the item was ever away from where the scroll alone put it, frame by frame. */
  drift: number;
  /** It left the DOM. */
  lost: boolean;
  /** Pixels between the screen's bottom and the transcript's end at the last frame watched. */
  fromBottom: number;
}

/**
 * Runs in the page (any engine): with the transcript following a run at its bottom, scrolls up by
 * `by` px in an animation frame, as a flick can land between two renders of new output, then
 * watches the first item on screen for `frames` frames while the run goes on below. The app must
 * not take the screen back to the bottom, nor move the item: the reader has left the bottom.
 */
export function leaveBottom(args: { by: number; frames: number }): Promise<LeaveStep> {
  const el = document.querySelector<HTMLElement>('.transcript-wrap .scroll')!;
  const log = el.querySelector<HTMLElement>('[role="log"]')!;
  const at = {
    topOf(key: string): number | null {
      const slot = log.querySelector(`[data-item-key="${CSS.escape(key)}"]`);
      return slot ? slot.getBoundingClientRect().top - el.getBoundingClientRect().top : null;
    },
    firstOnScreen(): string | null {
      const top = el.getBoundingClientRect().top;
      for (const slot of Array.from(log.querySelectorAll<HTMLElement>('[data-item-key]'))) {
        if (slot.hasAttribute('data-gap')) continue;
        const r = slot.getBoundingClientRect();
        if (r.top >= top && r.top < top + el.clientHeight) return slot.dataset['itemKey'] ?? null;
      }
      return null;
    },
  };
  return new Promise((resolve) => {
    requestAnimationFrame(() => {
      const key = at.firstOnScreen();
      const t0 = key !== null ? at.topOf(key)! : 0;
      const was = el.scrollTop;
      el.scrollTop = was - args.by;
      const scrolled = was - el.scrollTop;
      const expected = t0 + scrolled;
      const result: LeaveStep = { key, scrolled, drift: 0, lost: false, fromBottom: 0 };
      let frames = 0;
      const watch = {
        frame(): void {
          const top = key !== null ? at.topOf(key) : expected;
          if (top === null) result.lost = true;
          else result.drift = Math.max(result.drift, Math.abs(top - expected));
          if (++frames < args.frames) return void requestAnimationFrame(() => watch.frame());
          result.fromBottom = el.scrollHeight - el.clientHeight - el.scrollTop;
          resolve(result);
        },
      };
      requestAnimationFrame(() => watch.frame());
    });
  });
}
