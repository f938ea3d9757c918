/**
 * Whether what a screen shows fits it, measured in the page: a list of problems, empty when all is
 * well. Engine-neutral, so that any driver can run it: Playwright's `page.evaluate(screenFitIssues)`,
 * or WebDriver's `executeScript(\`return (${screenFitIssues.toString()})()\`)`. It uses nothing from
 * outside its own body and its helpers are methods, not named functions (a bundler that keeps
 * function names wraps those in a helper the page does not have).
 *
 * - Each visible top bar: its back button, title, status chip and actions lie inside it and do not
 *   overlap; the chip is not clipped; the title shows whole, or over at least 40 % of the bar, and
 *   is never cut short while the actions sit beside it (they move to a line of their own).
 * - The transcript: no control outside it lies over the part of its first item on screen (but for
 *   a menu opened on purpose, which covers what is under it until it closes).
 * - The terminal key bar: a hint (`.key-bar-more`) shows on each side past which it has more keys
 *   (none where it has none), and every key can be scrolled fully into view, clear of the hints.
 *
 * Rects are CSS pixels; 0.5 px of slack for sub-pixel layout.
 */
export function screenFitIssues(): string[] {
  const SLACK = 0.5;
  const issues: string[] = [];
  // Helpers as methods: a bundler keeping names wraps `const f = () => …`, but not a method.
  const at = {
    visible(el: Element): boolean {
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) return false;
      // checkVisibility also sees a closed <details> or a display:none ancestor (Chromium, Safari 17.4+).
      // Both spellings of the options: engines took the newer names at different times.
      if ('checkVisibility' in el)
        return el.checkVisibility({
          opacityProperty: true,
          visibilityProperty: true,
          checkOpacity: true,
          checkVisibilityCSS: true,
        });
      const style = getComputedStyle(el);
      return style.visibility !== 'hidden' && Number(style.opacity) > 0;
    },
    name(el: Element): string {
      const label = el.getAttribute('aria-label') ?? (el.textContent ?? '').trim().slice(0, 24);
      const classes = typeof el.className === 'string' && el.className ? `.${el.className.split(' ').join('.')}` : '';
      return `${el.tagName.toLowerCase()}${classes} "${label}"`;
    },
    box(r: DOMRect): string {
      return `${r.left.toFixed(1)},${r.top.toFixed(1)} ${r.width.toFixed(1)}×${r.height.toFixed(1)}`;
    },
    /** In a menu opened on purpose (an open `<details>`'s floating body): it covers what is under it. */
    inOpenMenu(el: Element): boolean {
      for (let a: Element | null = el; a; a = a.parentElement) {
        const position = getComputedStyle(a).position;
        if (position === 'absolute' || position === 'fixed') return a.parentElement?.matches('details[open]') ?? false;
      }
      return false;
    },
    overlap(p: { left: number; right: number; top: number; bottom: number }, q: DOMRect): boolean {
      return (
        Math.min(p.right, q.right) - Math.max(p.left, q.left) > SLACK &&
        Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > SLACK
      );
    },
  };

  for (const bar of Array.from(document.querySelectorAll('.top-bar')).filter((el) => at.visible(el))) {
    const b = bar.getBoundingClientRect();
    const parts: Element[] = [];
    for (const part of Array.from(bar.querySelectorAll(':scope > button, h1 .title, .chip, .actions > *'))) {
      if (at.visible(part)) parts.push(part);
    }
    for (const part of parts) {
      const r = part.getBoundingClientRect();
      if (r.left < b.left - SLACK || r.right > b.right + SLACK || r.top < b.top - SLACK || r.bottom > b.bottom + SLACK)
        issues.push(`top bar: ${at.name(part)} at ${at.box(r)} is not inside the bar at ${at.box(b)}`);
      // Clipped by a scroll or hidden-overflow box between it and the bar (the chip, the title).
      for (let a = part.parentElement; a && a !== bar.parentElement; a = a.parentElement) {
        if (getComputedStyle(a).overflowX === 'visible') continue;
        const c = a.getBoundingClientRect();
        if (r.left < c.left - SLACK || r.right > c.right + SLACK)
          issues.push(`top bar: ${at.name(part)} at ${at.box(r)} is cut off by ${at.name(a)} at ${at.box(c)}`);
      }
    }
    for (let i = 0; i < parts.length; i++) {
      for (let j = i + 1; j < parts.length; j++) {
        const p = parts[i]!.getBoundingClientRect();
        const q = parts[j]!.getBoundingClientRect();
        if (at.overlap(p, q)) issues.push(`top bar: ${at.name(parts[i]!)} overlaps ${at.name(parts[j]!)}`);
      }
    }
    for (const chip of Array.from(bar.querySelectorAll('.chip')).filter((el) => at.visible(el))) {
      if (chip.scrollWidth > chip.clientWidth + 1) issues.push(`top bar: the text of ${at.name(chip)} is cut off`);
    }
    const title = bar.querySelector('h1 .title');
    const actions = bar.querySelector(':scope > .actions');
    if (!title) issues.push('top bar: no title (h1 .title)');
    else {
      const t = title.getBoundingClientRect();
      if (title.scrollWidth > t.width + 1 && t.width < 0.4 * b.width)
        issues.push(
          `top bar: the title shows ${t.width.toFixed(0)} px of ${title.scrollWidth} in a ${b.width.toFixed(0)} px bar`,
        );
      // A title cut short while the actions sit beside it: they belong on a line of their own.
      const a = actions && at.visible(actions) ? actions.getBoundingClientRect() : undefined;
      if (a && title.scrollWidth > t.width + 1 && a.top < t.bottom - SLACK && a.bottom > t.top + SLACK)
        issues.push(
          `top bar: the title shows ${t.width.toFixed(0)} px of ${title.scrollWidth} beside the actions; they belong on their own line`,
        );
    }
  }

  const transcript = document.querySelector('[role="log"][aria-label="Transcript"]');
  const scroller = transcript?.closest('.scroll');
  const first = transcript?.querySelector('[data-item-key]');
  if (transcript && scroller && first && at.visible(first)) {
    const s = scroller.getBoundingClientRect();
    const f = first.getBoundingClientRect();
    const top = Math.max(s.top, f.top);
    const bottom = Math.min(s.bottom, f.bottom);
    const left = Math.max(s.left, f.left);
    const right = Math.min(s.right, f.right);
    for (const control of Array.from(document.querySelectorAll('button, a, input, textarea, select'))) {
      if (transcript.contains(control) || !at.visible(control) || at.inOpenMenu(control)) continue;
      const c = control.getBoundingClientRect();
      if (at.overlap({ left, right, top, bottom }, c))
        issues.push(`transcript: ${at.name(control)} at ${at.box(c)} covers the first item at ${at.box(f)}`);
    }
  }

  for (const keys of Array.from(document.querySelectorAll('.key-bar')).filter((el) => at.visible(el))) {
    const k = keys.getBoundingClientRect();
    const max = keys.scrollWidth - keys.clientWidth;
    const hints = keys.parentElement?.querySelectorAll('.key-bar-more') ?? [];
    const start = Array.from(hints).find((el) => el.getAttribute('data-side') === 'start');
    const end = Array.from(hints).find((el) => el.getAttribute('data-side') === 'end');
    const was = keys.scrollLeft;
    // The hints as they stand (they follow scroll events, which come after this returns).
    const more = { start: keys.scrollLeft > 1, end: keys.scrollLeft < max - 1 };
    for (const [side, hint] of [
      ['start', start],
      ['end', end],
    ] as const) {
      const shown = hint !== undefined && at.visible(hint);
      if (more[side] && !shown) issues.push(`key bar: more keys past its ${side}, and no hint shows it`);
      if (!more[side] && shown) issues.push(`key bar: a hint of more keys past its ${side}, where there are none`);
      if (shown) {
        const e = hint.getBoundingClientRect();
        if (e.right > k.right + SLACK || e.left < k.left - SLACK)
          issues.push(`key bar: the hint at ${at.box(e)} is off the bar at ${at.box(k)}`);
      }
    }
    const startWidth = start ? start.getBoundingClientRect().width : 0;
    const endWidth = end ? end.getBoundingClientRect().width : 0;
    const all = Array.from(keys.querySelectorAll('button'));
    for (const key of all) {
      // The key centred (as far as the bar scrolls), then it must lie clear of the hints shown there.
      const r0 = key.getBoundingClientRect();
      const x = r0.left - k.left + keys.scrollLeft;
      keys.scrollLeft = Math.max(0, Math.min(max, x - (keys.clientWidth - r0.width) / 2));
      const r = key.getBoundingClientRect();
      const from = k.left + keys.clientLeft + (keys.scrollLeft > 1 ? startWidth : 0);
      const to = k.left + keys.clientLeft + keys.clientWidth - (keys.scrollLeft < max - 1 ? endWidth : 0);
      if (r.left < from - SLACK || r.right > to + SLACK)
        issues.push(
          `key bar: ${at.name(key)} cannot be scrolled clear into view (${at.box(r)}, room ${from.toFixed(1)}–${to.toFixed(1)})`,
        );
    }
    keys.scrollLeft = was;
  }
  return issues;
}
