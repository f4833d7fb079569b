import { useEffect, type RefObject } from 'react';

/**
 * A photo or video that loads after the thread opened makes its row taller: the list stays at the
 * end (`toLast`) if the reader was there.
 */
export function useEndOnMediaLoad(scrollerRef: RefObject<HTMLDivElement | null>, toLast: () => void): void {
  useEffect(() => {
    const list = scrollerRef.current;
    if (!list) return;
    const keepAtEnd = (event: Event) => {
      if (!(event.target instanceof HTMLImageElement || event.target instanceof HTMLVideoElement)) return;
      const fromEnd = list.scrollHeight - list.scrollTop - list.clientHeight;
      if (fromEnd <= event.target.offsetHeight + 120) toLast();
    };
    list.addEventListener('load', keepAtEnd, true);
    list.addEventListener('loadedmetadata', keepAtEnd, true);
    return () => {
      list.removeEventListener('load', keepAtEnd, true);
      list.removeEventListener('loadedmetadata', keepAtEnd, true);
    };
  });
}
