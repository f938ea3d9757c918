import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { AppModel } from '../app/app-model.js';
import type { Reach } from '../app/reachability.js';
import type { Store } from '../lib/store.js';
import type { AppServices } from './app-context.js';
import { AppContext } from './app-context.js';
import { ApprovalScreen } from './approval-screen.js';
import { Banners } from './banners.js';
import { HostsScreen } from './hosts-screen.js';
import { AddHostScreen, NewSessionScreen, PairScreen, ShareScreen, TerminalScreen } from './lazy-screens.js';
import { SessionScreen } from './lazy-session-screen.js';
import { markOnce } from './perf-marks.js';
import type { Route } from '../lib/route.js';
import { formatRoute, parentRoute, parseRoute } from '../lib/route.js';
import { SessionsScreen } from './sessions-screen.js';
import { WIDE_QUERY, useMedia } from './use-media.js';
import { useStore } from './use-store.js';
import { WaitingScreen } from './waiting-screen.js';

/**
 * The app shell. Phones get one screen at a time, stacked (each with Back); from 768 px wide the
 * list (computers, or a computer's sessions) stays on the left and the chosen screen opens on the
 * right.
 */
export function App({ app, online, reach }: { app: AppModel; online: Store<boolean>; reach: Store<Reach> }) {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  const wide = useMedia(WIDE_QUERY);
  const hosts = useStore(app.hosts);

  const navigate = useCallback((hash: string, options: { replace?: boolean } = {}) => {
    if (options.replace) history.replaceState(null, '', hash);
    else if (location.hash !== hash) history.pushState(null, '', hash);
    setRoute(parseRoute(hash));
  }, []);

  // Navigation uses pushState (no hashchange): the model learns the screen from here.
  useEffect(() => app.screen.set(route), [app, route]);

  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', changed);
    window.addEventListener('popstate', changed);
    markOnce('tether:shell-shown');
    return () => {
      window.removeEventListener('hashchange', changed);
      window.removeEventListener('popstate', changed);
    };
  }, []);

  // A computer that refused this device for good: leave its screens for "pair again".
  const routeHost = 'hostId' in route && route.name !== 'add' ? route.hostId : undefined;
  const refused = routeHost !== undefined && hosts.find((h) => h.hostId === routeHost)?.refused !== undefined;
  useEffect(() => {
    if (refused && routeHost) navigate(formatRoute({ name: 'add', hostId: routeHost }), { replace: true });
  }, [refused, routeHost, navigate]);

  const services = useMemo<AppServices>(() => ({ app, online, reach, navigate }), [app, online, reach, navigate]);
  return (
    <AppContext.Provider value={services}>
      <Banners />
      {/* The page's one main landmark: every screen, in either layout, is inside it. */}
      <main class={`layout ${wide ? 'wide' : 'narrow'}`}>
        {wide ? <WideLayout route={route} /> : <NarrowLayout route={route} />}
      </main>
    </AppContext.Provider>
  );
}

function NarrowLayout({ route }: { route: Route }) {
  const back = formatRoute(parentRoute(route));
  return <Pane kind="detail">{screenFor(route, back)}</Pane>;
}

function WideLayout({ route }: { route: Route }) {
  const hostId = 'hostId' in route && route.name !== 'add' ? route.hostId : undefined;
  const list = hostId ? (
    <SessionsScreen
      hostId={hostId}
      currentSessionId={route.name === 'session' || route.name === 'share' ? route.sessionId : undefined}
    />
  ) : (
    <HostsScreen />
  );
  const detail =
    route.name === 'home' || route.name === 'host' ? (
      <p class="placeholder">
        {route.name === 'home' ? 'Choose a computer.' : 'Choose a session, or start a new one.'}
      </p>
    ) : (
      screenFor(route, route.name === 'new' || route.name === 'share' ? formatRoute(parentRoute(route)) : undefined)
    );
  return (
    <>
      <Pane kind="list">{list}</Pane>
      <Pane kind="detail">{detail}</Pane>
    </>
  );
}

function Pane({ kind, children }: { kind: 'list' | 'detail'; children: ComponentChildren }) {
  return (
    <div class={`pane ${kind}`} data-pane={kind}>
      {children}
    </div>
  );
}

function screenFor(route: Route, back: string | undefined): ComponentChildren {
  switch (route.name) {
    case 'home':
      return <HostsScreen />;
    case 'add':
      return <AddHostScreen key={route.hostId ?? ''} hostId={route.hostId} back={back} />;
    case 'pair':
      return <PairScreen back={back} />;
    case 'waiting':
      return <WaitingScreen back={back} />;
    case 'host':
      return <SessionsScreen key={route.hostId} hostId={route.hostId} back={back} />;
    case 'new':
      return <NewSessionScreen key={route.hostId} hostId={route.hostId} back={back} />;
    case 'session':
      return (
        <SessionScreen
          key={`${route.hostId}/${route.sessionId}`}
          hostId={route.hostId}
          sessionId={route.sessionId}
          back={back}
        />
      );
    case 'share':
      return (
        <ShareScreen
          key={`${route.hostId}/${route.sessionId}`}
          hostId={route.hostId}
          sessionId={route.sessionId}
          back={back}
        />
      );
    case 'approval':
      return (
        <ApprovalScreen
          key={`${route.hostId}/${route.approvalId}`}
          hostId={route.hostId}
          approvalId={route.approvalId}
          back={back}
        />
      );
    case 'terminal':
      return (
        <TerminalScreen
          key={`${route.hostId}/${route.terminalId}`}
          hostId={route.hostId}
          terminalId={route.terminalId}
          back={back}
        />
      );
  }
}
