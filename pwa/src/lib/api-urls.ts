/**
 * Where a host's endpoints are. The app never assumes a fixed place: a paired host keeps the
 * origin its pairing link came from (`apiBase`), which is the page's own origin when the host
 * serves the app, and `/rc/…` is relative to it.
 */

/** The API base for a pairing link: the link's own origin, else the page's (a bare `#pair=…`). */
export function apiBaseFor(linkBase: string, pageOrigin: string): string {
  return (linkBase || pageOrigin).replace(/\/+$/, '');
}

export function pairUrl(apiBase: string): string {
  return `${apiBase}/rc/pair`;
}

export function webSocketUrl(apiBase: string): string {
  return `${apiBase.replace(/^http(s?):/, 'ws$1:')}/rc/ws`;
}

/** True when calls to `apiBase` stay on the page's origin (the only kind the page's CSP allows). */
export function sameOrigin(apiBase: string, pageOrigin: string): boolean {
  try {
    return new URL(apiBase).origin === pageOrigin;
  } catch {
    return false;
  }
}
