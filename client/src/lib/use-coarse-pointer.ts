import { useSyncExternalStore } from 'react';

// A phone or tablet: the main pointer is a finger. There Enter starts a new line (the on-screen
// keyboard has no Shift+Enter) and the Send button sends.
const COARSE = '(pointer: coarse)';

function subscribe(onChange: () => void): () => void {
  if (typeof window === 'undefined' || !window.matchMedia) return () => {};
  const query = window.matchMedia(COARSE);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

const isCoarse = () => typeof window !== 'undefined' && !!window.matchMedia && window.matchMedia(COARSE).matches;

/** Whether the main pointer is coarse (touch), kept up to date if it changes. */
export function useCoarsePointer(): boolean {
  return useSyncExternalStore(subscribe, isCoarse, () => false);
}
