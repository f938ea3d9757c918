import type { FunctionComponent } from 'preact';
import { createElement } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { TopBar } from './top-bar.js';

/**
 * A screen whose code is fetched the first time it is shown, so the first download holds only what
 * every visit needs. The service worker precaches its file with the rest: offline it loads at once.
 * Until then (and if the fetch fails) a screen of the same name says so.
 */
export function lazyScreen<P extends { back?: string | undefined }>(
  title: string,
  load: () => Promise<FunctionComponent<P>>,
): FunctionComponent<P> {
  let loaded: FunctionComponent<P> | undefined;
  let loading: Promise<FunctionComponent<P>> | undefined;
  return function LazyScreen(props: P) {
    const [screen, setScreen] = useState(() => loaded);
    const [error, setError] = useState<string | undefined>();
    useEffect(() => {
      if (screen) return undefined;
      let shown = true;
      loading ??= load();
      loading.then(
        (component) => {
          loaded = component;
          if (shown) setScreen(() => component);
        },
        (reason: unknown) => {
          loading = undefined;
          if (shown) setError(reason instanceof Error ? reason.message : String(reason));
        },
      );
      return () => {
        shown = false;
      };
    }, [screen]);
    if (screen) return createElement(screen, props);
    return (
      <div class="screen">
        <TopBar title={title} back={props.back} />
        <p class="placeholder" role={error ? 'alert' : 'status'}>
          {error ? `This screen could not be loaded: ${error}` : 'Loading…'}
        </p>
      </div>
    );
  };
}
