import { useEffect, useEffectEvent, useRef, useState } from 'react';
import type { TThreadItem } from '../../lib/trpc';

/**
 * A message arriving while the conversation is open, as a sentence for a live region — once per
 * newest message, not per render (the list itself is not a live region: its rows are drawn as they
 * scroll into view). The newest when the conversation loaded is not new.
 */
export function useArrivalAnnouncement(items: TThreadItem[] | undefined, speakerOf: (item: TThreadItem) => string): string | undefined {
  const newest = items?.at(-1);
  const loaded = items !== undefined;
  const [announced, setAnnounced] = useState<{ id: number; text: string } | null>(null);
  const firstNewest = useRef<number | null | undefined>(undefined);
  const announceNewest = useEffectEvent(() => {
    if (!loaded) return;
    if (firstNewest.current === undefined) {
      firstNewest.current = newest?.id ?? null;
      return;
    }
    if (!newest || newest.direction !== 'inbound' || newest.id === firstNewest.current || newest.id === announced?.id) return;
    setAnnounced({ id: newest.id, text: `New message from ${speakerOf(newest)}: ${newest.body || 'a file'}` });
  });
  useEffect(() => announceNewest(), [newest?.id, loaded]);
  return announced?.text;
}
