import { useVirtualizer } from '@tanstack/react-virtual';
import { Fragment, useEffect, useImperativeHandle, useLayoutEffect, useRef, type ReactNode, type Ref } from 'react';
import { highlightIn } from '../lib/highlight';
import type { TOlder } from '../lib/older-pages';

/** A row of the conversation: its stable key (`m<id>` for a message) and how to draw it. */
export type TRow = { key: string; render: (measure: TMeasure) => ReactNode };
/** What a drawn row must carry on its `<li>` so the list knows its height. */
export type TMeasure = { 'data-index': number; ref: (element: HTMLLIElement | null) => void };
export type TMessageListApi = { show: (id: number) => void };

const LOAD_WITHIN_PX = 800; // ask for the earlier page this far before the reader reaches the top

/**
 * A conversation's messages, oldest at the top, drawing only the rows on screen (a thread can hold
 * tens of thousands). Opens at the newest; earlier pages load as the reader scrolls up and arrive
 * above without moving what is on screen; a new message at the end is followed when the reader is
 * at the end. `focusId` (a search hit) loads earlier pages until that message is there, then shows it.
 */
export function MessageList({ rows, older, focusId, ref }: { rows: TRow[]; older: TOlder; focusId: number | null; ref?: Ref<TMessageListApi> }) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const all = rows;
  const virtualizer = useVirtualizer({
    count: all.length,
    getScrollElement: () => scrollerRef.current,
    estimateSize: () => 76,
    getItemKey: (index) => all[index]!.key,
    overscan: 6,
    gap: 7, // the list's 0.45rem between rows
    paddingStart: 16,
    paddingEnd: 16,
    anchorTo: 'end', // rows added above keep the ones on screen where they are
    followOnAppend: true, // a new message at the end stays in view when the reader was at the end
    scrollEndThreshold: 48,
  });

  const show = (id: number) => {
    const index = all.findIndex((row) => row.key === `m${id}`);
    if (index < 0) return false;
    virtualizer.scrollToIndex(index, { align: 'center' });
    // Drawn once scrolled to: then marked and focused like any shown message.
    requestAnimationFrame(() => requestAnimationFrame(() => highlightIn(scrollerRef.current, id)));
    return true;
  };
  useImperativeHandle(ref, () => ({ show: (id) => void show(id) }));

  // Opens at the newest message (unless a search hit is to be shown): held at the end for the first
  // few frames, while the rows drawn there are measured and the estimates give way to real heights.
  const opened = useRef(false);
  useLayoutEffect(() => {
    const scroller = scrollerRef.current;
    if (opened.current || focusId || !scroller) return;
    opened.current = true;
    let frames = 0;
    let held = true;
    const release = () => (held = false); // the reader took over
    const holdAtEnd = () => {
      if (!held) return;
      scroller.scrollTop = scroller.scrollHeight;
      if (++frames < 12) requestAnimationFrame(holdAtEnd);
    };
    for (const type of ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const) scroller.addEventListener(type, release, { once: true, passive: true });
    holdAtEnd();
  });

  // A search hit: earlier pages until it is loaded, then brought into view once.
  const shownFocus = useRef<number | null>(null);
  useEffect(() => {
    if (!focusId || shownFocus.current === focusId) return;
    if (show(focusId)) shownFocus.current = focusId;
    else if (older.hasMore && !older.loading && !older.failed) older.load();
  });

  // Near the top: the earlier page.
  const onScroll = () => {
    const top = scrollerRef.current?.scrollTop ?? Infinity;
    if (top < LOAD_WITHIN_PX && older.hasMore && !older.loading && !older.failed) older.load();
  };

  // A photo or video that loads after the thread opened makes its row taller: stay at the end if
  // the reader was there.
  useEffect(() => {
    const list = scrollerRef.current;
    if (!list) return;
    const keepAtEnd = (event: Event) => {
      if (!(event.target instanceof HTMLImageElement || event.target instanceof HTMLVideoElement)) return;
      const fromEnd = list.scrollHeight - list.scrollTop - list.clientHeight;
      if (fromEnd <= event.target.offsetHeight + 120) virtualizer.scrollToIndex(all.length - 1, { align: 'end' });
    };
    list.addEventListener('load', keepAtEnd, true);
    list.addEventListener('loadedmetadata', keepAtEnd, true);
    return () => {
      list.removeEventListener('load', keepAtEnd, true);
      list.removeEventListener('loadedmetadata', keepAtEnd, true);
    };
  });

  const virtualRows = virtualizer.getVirtualItems();
  const first = virtualRows[0];
  const last = virtualRows[virtualRows.length - 1];
  return (
    <>
    <OlderBar older={older} />
    {/* The scroller holds one list whose padding stands for the rows not drawn above and below. */}
    <div className="messages" ref={scrollerRef} onScroll={onScroll}>
      <ol
        className="message-rows"
        aria-label="Messages"
        aria-live="polite"
        aria-busy={older.loading}
        style={{ paddingTop: first?.start ?? 0, paddingBottom: last ? virtualizer.getTotalSize() - last.end : 0 }}
      >
        {virtualRows.map((row) => (
          <Fragment key={all[row.index]!.key}>{all[row.index]!.render({ 'data-index': row.index, ref: virtualizer.measureElement })}</Fragment>
        ))}
      </ol>
    </div>
    </>
  );
}

/**
 * Above the messages while earlier ones exist: loading, failed (with a way to try again), or a
 * button for whoever does not scroll (keyboard, switch access). Outside the scrolled list, so the
 * message on screen, not this bar, is what stays in place when a page arrives above it.
 */
function OlderBar({ older }: { older: TOlder }) {
  if (!older.hasMore && !older.failed) return null;
  return (
    <div className="thread-older muted" role="status">
      {older.failed ? (
        <>
          <span className="form-error">Could not load earlier messages.</span>{' '}
          <button type="button" className="button ghost small" onClick={older.load}>
            Try again
          </button>
        </>
      ) : (
        <button type="button" className="button ghost small" onClick={older.load} disabled={older.loading}>
          {older.loading ? 'Loading earlier messages…' : 'Load earlier messages'}
        </button>
      )}
    </div>
  );
}
