import { useEffect, useState } from 'preact/hooks';

/** Tablets and wider: sessions and the open session side by side. */
export const WIDE_QUERY = '(min-width: 768px)';

export function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const changed = () => setMatches(list.matches);
    list.addEventListener('change', changed);
    changed();
    return () => list.removeEventListener('change', changed);
  }, [query]);
  return matches;
}
