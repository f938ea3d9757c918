import type { FunctionComponent } from 'preact';
import { createElement } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * A part of a screen whose code is fetched the first time it is shown (a picker, a panel): until
 * then it shows `pending`, and says so if the fetch fails. The service worker precaches its file
 * with the rest, so offline it loads at once.
 */
export function lazyPart<P extends object>(load: () => Promise<FunctionComponent<P>>): FunctionComponent<P> {
  let loaded: FunctionComponent<P> | undefined;
  let loading: Promise<FunctionComponent<P>> | undefined;
  return function LazyPart(props: P) {
    const [part, setPart] = useState(() => loaded);
    const [error, setError] = useState<string | undefined>();
    useEffect(() => {
      if (part) return undefined;
      let shown = true;
      loading ??= load();
      loading.then(
        (component) => {
          loaded = component;
          if (shown) setPart(() => component);
        },
        (reason: unknown) => {
          loading = undefined;
          if (shown) setError(reason instanceof Error ? reason.message : String(reason));
        },
      );
      return () => {
        shown = false;
      };
    }, [part]);
    if (part) return createElement(part, props);
    return error ? (
      <p class="error-text" role="alert">
        This could not be loaded: {error}
      </p>
    ) : null;
  };
}
