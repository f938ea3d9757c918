/**
 * Screens are addressed by the URL fragment (`#/h/<host>/s/<session>`), never by the path: the
 * same static build works wherever it is served (the host's `/`, a relay's sub-path) and a reload
 * needs no server-side routing. `#pair=…` is not a route but a pairing link, taken on load.
 */
export type Route =
  | { name: 'home' }
  | { name: 'add'; hostId?: string }
  | { name: 'pair' }
  | { name: 'waiting' }
  | { name: 'host'; hostId: string }
  | { name: 'new'; hostId: string }
  | { name: 'session'; hostId: string; sessionId: string }
  | { name: 'terminal'; hostId: string; terminalId: string }
  | { name: 'share'; hostId: string; sessionId: string }

  /** One approval's card: where a tapped notification opens (shared-protocol's pushFragment). */
  | { name: 'approval'; hostId: string; approvalId: string };

export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((p) => p !== '')
    .map((p) => safeDecode(p));
  const [first, hostId, third, sessionId, fifth] = parts;
  if (first === 'add') return hostId ? { name: 'add', hostId } : { name: 'add' };
  if (first === 'pair') return { name: 'pair' };
  if (first === 'waiting') return { name: 'waiting' };
  if (first === 'h' && hostId) {
    if (third === 'new') return { name: 'new', hostId };
    if (third === 's' && sessionId && fifth === 'share') return { name: 'share', hostId, sessionId };
    if (third === 's' && sessionId) return { name: 'session', hostId, sessionId };
    if (third === 't' && sessionId) return { name: 'terminal', hostId, terminalId: sessionId };
    if (third === 'a' && sessionId) return { name: 'approval', hostId, approvalId: sessionId };
    return { name: 'host', hostId };
  }
  return { name: 'home' };
}

export function formatRoute(route: Route): string {
  const enc = encodeURIComponent;
  switch (route.name) {
    case 'home':
      return '#/';
    case 'add':
      return route.hostId ? `#/add/${enc(route.hostId)}` : '#/add';
    case 'pair':
      return '#/pair';
    case 'waiting':
      return '#/waiting';
    case 'host':
      return `#/h/${enc(route.hostId)}`;
    case 'new':
      return `#/h/${enc(route.hostId)}/new`;
    case 'session':
      return `#/h/${enc(route.hostId)}/s/${enc(route.sessionId)}`;
    case 'terminal':
      return `#/h/${enc(route.hostId)}/t/${enc(route.terminalId)}`;
    case 'share':
      return `#/h/${enc(route.hostId)}/s/${enc(route.sessionId)}/share`;
    case 'approval':
      return `#/h/${enc(route.hostId)}/a/${enc(route.approvalId)}`;
  }
}

/** The screen "back" leads to on a phone, where screens stack. */
export function parentRoute(route: Route): Route {
  switch (route.name) {
    case 'share':
      return { name: 'session', hostId: route.hostId, sessionId: route.sessionId };
    case 'new':
    case 'session':
    case 'terminal':
    case 'approval':
      return { name: 'host', hostId: route.hostId };
    default:
      return { name: 'home' };
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
