/**
 * Whether what a screen shows fits it and its controls can be tapped, measured in the page: a list
 * of problems, empty when all is well. Engine-neutral, so that any driver can run it: Playwright's
 * `page.evaluate(screenFitIssues)`, or WebDriver's
 * `executeScript(\`return (${screenFitIssues.toString()})()\`)`. It uses nothing from
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
 * - Every visible control (a button, a link, a field, a `<summary>`, or the label that stands for a
 *   file input or a checkbox):
 *   - is at least 44×44 CSS px (Apple's and WCAG's tap target);
 *   - lies at least 8 px from every other control it shares a layer with (no overlap, room between),
 *     measured on what shows of each (clipped by the scroll boxes around it and the viewport). A
 *     control in a floating layer (an absolutely or fixedly placed box: an open menu, "Jump to
 *     latest") is compared only with controls in the same layer;
 *   - says what it does without an emoji font: no pictographic character in its text (a drawn icon
 *     with a label instead), and a name (its text or `aria-label`).
 *
 *   Left out: the terminal's own surface (xterm's hidden input), and controls a closed `<details>`
 *   or `display: none` hides.
 *
 * Rects are CSS pixels; 0.5 px of slack for sub-pixel layout.
 */
export function screenFitIssues(): string[] {
  const MIN = 44;
  const GAP = 8;
  const SLACK = 0.5;
  const issues: string[] = [];
  type Box = { left: number; right: number; top: number; bottom: number };
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
    /** Visible, and not only to a screen reader. */
    tappable(el: Element): boolean {
      return at.visible(el) && !el.closest('.visually-hidden');
    },
    box(r: Box): string {
      return `${r.left.toFixed(1)},${r.top.toFixed(1)} ${(r.right - r.left).toFixed(1)}×${(r.bottom - r.top).toFixed(1)}`;
    },
    /** In a menu opened on purpose (an open `<details>`'s floating body): it covers what is under it. */
    inOpenMenu(el: Element): boolean {
      for (let a: Element | null = el; a; a = a.parentElement) {
        const position = getComputedStyle(a).position;
        if (position === 'absolute' || position === 'fixed') return a.parentElement?.matches('details[open]') ?? false;
      }
      return false;
    },
    overlap(p: Box, q: Box): boolean {
      return (
        Math.min(p.right, q.right) - Math.max(p.left, q.left) > SLACK &&
        Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > SLACK
      );
    },
    /** What shows of the element: its rect cut by every box around it that clips, and the viewport. */
    shown(el: Element): Box | undefined {
      const r = el.getBoundingClientRect();
      const s: Box = {
        left: Math.max(r.left, 0),
        top: Math.max(r.top, 0),
        right: Math.min(r.right, innerWidth),
        bottom: Math.min(r.bottom, innerHeight),
      };
      for (let a = el.parentElement; a; a = a.parentElement) {
        const style = getComputedStyle(a);
        if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
        const c = a.getBoundingClientRect();
        s.left = Math.max(s.left, c.left);
        s.top = Math.max(s.top, c.top);
        s.right = Math.min(s.right, c.right);
        s.bottom = Math.min(s.bottom, c.bottom);
      }
      return s.right - s.left > SLACK && s.bottom - s.top > SLACK ? s : undefined;
    },
    /** The floating box the element is drawn in (absolute or fixed), or the page itself. */
    layer(el: Element): Element | null {
      for (let a: Element | null = el; a; a = a.parentElement) {
        const position = getComputedStyle(a).position;
        if (position === 'absolute' || position === 'fixed') return a;
      }
      return null;
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

  const controls: Element[] = [];
  const selector = 'button, a[href], input, select, textarea, summary, [role="button"]';
  for (const el of Array.from(document.querySelectorAll(selector))) {
    if (el.closest('.xterm')) continue;
    // A file input or a checkbox is tapped through its label.
    const type = el instanceof HTMLInputElement ? el.type : '';
    const target = ['file', 'checkbox', 'radio'].includes(type) ? (el.closest('label') ?? el) : el;
    if (controls.includes(target) || !at.tappable(target)) continue;
    controls.push(target);
  }

  for (const el of controls) {
    const r = el.getBoundingClientRect();
    if (r.width < MIN - SLACK || r.height < MIN - SLACK)
      issues.push(`${at.name(el)} is ${r.width.toFixed(1)}×${r.height.toFixed(1)}, under ${MIN}×${MIN}`);
    const text = el.textContent ?? '';
    if (/\p{Extended_Pictographic}/u.test(text))
      issues.push(`${at.name(el)} depends on an emoji font: draw its icon instead`);
    const named = text.trim() !== '' || (el.getAttribute('aria-label') ?? '').trim() !== '';
    if (
      !named &&
      !(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement)
    )
      issues.push(`${at.name(el)} has no name`);
  }

  const shown = controls.map((el) => ({ el, box: at.shown(el), layer: at.layer(el) }));
  for (let i = 0; i < shown.length; i++) {
    const a = shown[i]!;
    if (!a.box) continue;
    for (let j = i + 1; j < shown.length; j++) {
      const b = shown[j]!;
      if (!b.box || a.layer !== b.layer || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const dx = Math.max(a.box.left, b.box.left) - Math.min(a.box.right, b.box.right);
      const dy = Math.max(a.box.top, b.box.top) - Math.min(a.box.bottom, b.box.bottom);
      if (dx < -SLACK && dy < -SLACK)
        issues.push(`${at.name(a.el)} at ${at.box(a.box)} overlaps ${at.name(b.el)} at ${at.box(b.box)}`);
      else if (Math.max(dx, dy) < GAP - SLACK)
        issues.push(
          `${at.name(a.el)} at ${at.box(a.box)} is ${Math.max(dx, dy).toFixed(1)} px from ${at.name(b.el)} at ${at.box(b.box)}`,
        );
    }
  }
  return issues;
}
