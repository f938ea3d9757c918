import { lazyScreen } from './lazy-screen.js';

// A session's screen (transcript, Markdown, run glance, changes) is not the first screen of a
// visit: the app fetches it once the first screen is drawn (main.tsx), so opening one waits on
// nothing. A file apart from lazy-screens.ts, which the session screen itself imports (its terminal).
export const loadSessionScreen = () => import('./session-screen.js').then((m) => m.SessionScreen);
export const SessionScreen = lazyScreen('Session', loadSessionScreen);
