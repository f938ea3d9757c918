import type { PairPage } from '@tether/shared-protocol';
import { visibleText } from '@tether/shared-protocol';

/**
 * The page a pair request came from, in words for the person at the computer, and how the host
 * knows it. The origin came over the network (a browser's `Origin` header) or from configuration;
 * either way it is shown as hostile text, every hidden character made visible.
 */
export function describePairPage(page: PairPage): string {
  switch (page.from) {
    case 'host':
      return `The phone loaded the app from this computer, ${shown(page.origin)} (its browser says so).`;
    case 'other':
      return (
        `The phone loaded the app from ${shown(page.origin)}, not from this computer (its browser says so).\n` +
        'Whoever runs that site decides what the app does on the phone.'
      );
    case 'relay':
      return page.app === true
        ? `The phone loaded the app from the relay at ${shown(page.origin)}: the request came through it.\n` +
            'Whoever runs that relay decides what the app does on the phone.'
        : `The request came through the relay at ${shown(page.origin)}, which serves no app: no page of it sent this,\n` +
            'so a program holding the pairing link sent it (which page showed that link, the relay cannot know).';
    case 'none':
      return 'The request names no page: a program holding the pairing link sent it, not a browser.';
  }
}

/** The same, in a few words for a table: `this computer http://…`, `relay https://…`. */
export function pairPageShort(page: PairPage): string {
  switch (page.from) {
    case 'host':
      return `this computer ${shown(page.origin)}`;
    case 'other':
      return `site ${shown(page.origin)}`;
    case 'relay':
      return page.app === true ? `relay ${shown(page.origin)}` : `a program, via relay ${shown(page.origin)}`;
    case 'none':
      return 'no page (a program)';
  }
}

/**
 * Whether the app came from a page someone other than this host serves (a relay's that serves the
 * app, another site's): allowed without choosing, the device gets less, and the person may give it
 * more only by saying they run that page themselves. Through a relay that serves no app no page
 * sent the request, so there is no page to vouch for.
 */
export function servedElsewhere(page: PairPage): page is Extract<PairPage, { from: 'relay' | 'other' }> {
  return (page.from === 'relay' && page.app === true) || page.from === 'other';
}

/** An origin as a terminal may show it: hidden characters marked, never shortened (the person
 * decides on it; it is at most 300 characters by the schema and the relay URL's own check). */
function shown(origin: string): string {
  return visibleText(origin);
}
