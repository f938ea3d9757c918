import { lazyScreen } from './lazy-screen.js';

// Screens not every visit needs, each in a file of its own (see lazy-screen.tsx).

export const TerminalScreen = lazyScreen('Terminal', () =>
  import('./terminal-screen.js').then((m) => m.TerminalScreen),
);
export const PairScreen = lazyScreen('Pairing', () => import('./pair-screen.js').then((m) => m.PairScreen));
export const AddHostScreen = lazyScreen('Add a computer', () =>
  import('./add-host-screen.js').then((m) => m.AddHostScreen),
);
export const NewSessionScreen = lazyScreen('New session', () =>
  import('./new-session-screen.js').then((m) => m.NewSessionScreen),
);
export const ShareScreen = lazyScreen('Share', () => import('./share-screen.js').then((m) => m.ShareScreen));
