import type { ComponentChildren } from 'preact';
import { useApp } from './app-context.js';
import { BackIcon } from './icons.js';

interface Props {
  title: ComponentChildren;
  sub?: ComponentChildren;
  /** Where "Back" goes; no back button when absent (a root screen, or the wide layout's list). */
  back?: string;
  children?: ComponentChildren;
}

/**
 * A screen's header: back, title (with a second line), and the screen's actions. Where the actions
 * would squeeze the title (a phone, an iPad's detail pane) they move to a line of their own, so the
 * title keeps the bar's width and its status chip is never cut.
 */
export function TopBar({ title, sub, back, children }: Props) {
  const { navigate } = useApp();
  return (
    <header class="top-bar">
      {back !== undefined && (
        <button type="button" class="link back" onClick={() => navigate(back)} aria-label="Back">
          <BackIcon />
          Back
        </button>
      )}
      <h1>
        <span class="title">{title}</span>
        {sub !== undefined && <span class="sub">{sub}</span>}
      </h1>
      {children !== undefined && <div class="actions">{children}</div>}
    </header>
  );
}
