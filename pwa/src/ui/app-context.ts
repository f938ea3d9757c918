import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { AppModel } from '../app/app-model.js';
import type { Reach } from '../app/reachability.js';
import type { Store } from '../lib/store.js';

export interface AppServices {
  app: AppModel;
  /** What the browser says of the network: a hint only (see app/reachability.ts). */
  online: Store<boolean>;
  /** Whether any computer answers: what the offline banner shows. */
  reach: Store<Reach>;
  /** Goes to a screen (sets the fragment). */
  navigate: (hash: string, options?: { replace?: boolean }) => void;
}

export const AppContext = createContext<AppServices | null>(null);

export function useApp(): AppServices {
  const services = useContext(AppContext);
  if (!services) throw new Error('useApp outside AppContext'); // a wiring bug, not an input
  return services;
}
