import { useMediaQuery } from './use-media-query';

// A phone or tablet: the main pointer is a finger. There Enter starts a new line (the on-screen
// keyboard has no Shift+Enter) and the Send button sends.
const COARSE = '(pointer: coarse)';

/** Whether the main pointer is coarse (touch), kept up to date if it changes. */
export function useCoarsePointer(): boolean {
  return useMediaQuery(COARSE);
}
