import type { ComponentChildren } from 'preact';
import { useApp } from './app-context.js';

interface Props {
  title: ComponentChildren;
  sub?: ComponentChildren;
  /** Where "Back" goes; no back button when absent (a root screen, or the wide layout's list). */
  back?: string;
  children?: ComponentChildren;
}

/** A screen's header: back, title (with a second line), and the screen's actions. */
export function TopBar({ title, sub, back, children }: Props) {
  const { navigate } = useApp();
  return (
    <header class="top-bar">
      {back !== undefined && (
        <button type="button" class="link" onClick={() => navigate(back)} aria-label="Back">
          ‹ Back
        </button>
      )}
      <h1>
        {title}
        {sub !== undefined && <span class="sub">{sub}</span>}
      </h1>
      {children}
    </header>
  );
}
