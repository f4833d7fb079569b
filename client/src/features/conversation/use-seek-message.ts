import { useEffect, useEffectEvent, useState, type RefObject } from 'react';
import { onReaderInput } from '../../lib/on-reader-input';
import type { TOlder } from '../../lib/older-pages';

/**
 * A search hit (`focusId`): earlier pages until it is loaded, then brought into view once (`show`
 * says whether it was there). The reader scrolling meanwhile calls the search off. Returns whether
 * it is still being sought.
 */
export function useSeekMessage({
  focusId,
  show,
  older,
  scrollerRef,
}: {
  focusId: number | null;
  show: (id: number) => boolean;
  older: TOlder;
  scrollerRef: RefObject<HTMLDivElement | null>;
}): boolean {
  const [shownFocus, setShownFocus] = useState<number | null>(null);
  const seeking = Boolean(focusId && shownFocus !== focusId);
  useEffect(() => {
    const scroller = scrollerRef.current;
    if (!focusId || !seeking || !scroller) return;
    return onReaderInput(scroller, ['wheel', 'touchstart', 'keydown'], () => setShownFocus(focusId));
  }, [focusId, seeking, scrollerRef]);
  // Tried after every render while seeking: a page that arrived may hold the message. show()
  // scrolls the virtualizer, outside React; the state records that it has, once per search hit.
  const seekFocus = useEffectEvent(() => {
    if (!focusId || !seeking) return;
    if (show(focusId)) setShownFocus(focusId);
    else if (older.hasMore && !older.loading && !older.failed) older.load();
  });
  // eslint-disable-next-line react-hooks/set-state-in-effect -- it records what show() did outside React (see above), once per search hit
  useEffect(() => seekFocus());
  return seeking;
}
