import { useSyncExternalStore } from 'react';

// A phone's screen (narrow, or short as a phone held sideways): a conversation has room for either
// its history or a long form, so forms there wait behind one line until asked for.
const NARROW = '(max-width: 760px), (max-height: 560px)';

function subscribe(onChange: () => void): () => void {
  if (typeof window === 'undefined' || !window.matchMedia) return () => {};
  const query = window.matchMedia(NARROW);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

const isNarrow = () => typeof window !== 'undefined' && !!window.matchMedia && window.matchMedia(NARROW).matches;

/** Whether the screen is a phone's, kept up to date as the window changes. */
export function useNarrowScreen(): boolean {
  return useSyncExternalStore(subscribe, isNarrow, () => false);
}
