/**
 * Whether a screen's controls can be tapped: a list of problems, empty when all is well. Measured
 * in the page, engine-neutral like `screen-fit.ts` (Playwright's `page.evaluate(controlLayoutIssues)`,
 * or WebDriver's `executeScript(\`return (${controlLayoutIssues.toString()})()\`)`): it uses
 * nothing from outside its own body, and its helpers are methods.
 *
 * A control is a button, a link, a field, a `<summary>`, or the label that stands for a file input
 * or a checkbox. Every visible one:
 * - is at least 44×44 CSS px (Apple's and WCAG's tap target);
 * - lies at least 8 px from every other control it shares a layer with (no overlap, room between),
 *   measured on what shows of each (clipped by the scroll boxes around it and the viewport). A
 *   control in a floating layer (an absolutely or fixedly placed box: an open menu, "Jump to
 *   latest") is compared only with controls in the same layer;
 * - says what it does without an emoji font: no pictographic character in its text (a drawn icon
 *   with a label instead), and a name (its text or `aria-label`).
 *
 * Left out: the terminal's own surface (xterm's hidden input), and controls a closed `<details>`
 * or `display: none` hides. Rects are CSS pixels; 0.5 px of slack for sub-pixel layout.
 */
export function controlLayoutIssues(): string[] {
  const SLACK = 0.5;
  const MIN = 44;
  const GAP = 8;
  const issues: string[] = [];
  type Box = { left: number; right: number; top: number; bottom: number };
  const at = {
    visible(el: Element): boolean {
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) return false;
      if (el.closest('.visually-hidden')) return false;
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
    box(r: Box): string {
      return `${r.left.toFixed(1)},${r.top.toFixed(1)} ${(r.right - r.left).toFixed(1)}×${(r.bottom - r.top).toFixed(1)}`;
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

  const controls: Element[] = [];
  const selector = 'button, a[href], input, select, textarea, summary, [role="button"]';
  for (const el of Array.from(document.querySelectorAll(selector))) {
    if (el.closest('.xterm')) continue;
    // A file input or a checkbox is tapped through its label.
    const type = el instanceof HTMLInputElement ? el.type : '';
    const target = ['file', 'checkbox', 'radio'].includes(type) ? (el.closest('label') ?? el) : el;
    if (controls.includes(target) || !at.visible(target)) continue;
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
