import { useMediaQuery } from './use-media-query';

// A phone's screen (narrow, or short as a phone held sideways): a conversation has room for either
// its history or a long form, so forms there wait behind one line until asked for.
const NARROW = '(max-width: 760px), (max-height: 560px)';

/** Whether the screen is a phone's, kept up to date as the window changes. */
export function useNarrowScreen(): boolean {
  return useMediaQuery(NARROW);
}
