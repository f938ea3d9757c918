import type { Component, FunctionComponent, VNode } from 'preact';
import { createElement } from 'preact';

/**
 * `component`, drawn again only when a prop changed (compared with `Object.is`, one level deep):
 * what `memo` of preact/compat does, without the rest of compat in the app's first download.
 */
export function memo<P extends object>(component: FunctionComponent<P>): FunctionComponent<P> {
  function changed(this: Component<P>, next: P): boolean {
    const now = this.props as Record<string, unknown>;
    const after = next as Record<string, unknown>;
    for (const key in now) if (key !== 'children' && !(key in after)) return true;
    for (const key in after) if (key !== 'children' && !Object.is(now[key], after[key])) return true;
    return false;
  }
  function Memo(this: Component<P>, props: P): VNode<P> {
    this.shouldComponentUpdate = changed;
    return createElement(component, props);
  }
  Memo.displayName = `Memo(${component.displayName ?? component.name})`;
  return Memo;
}
