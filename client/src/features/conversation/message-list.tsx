import { useVirtualizer } from '@tanstack/react-virtual';
import { Fragment, useEffect, useImperativeHandle, useLayoutEffect, useRef, useState, type ReactNode, type Ref } from 'react';
import { highlightIn } from '../../lib/highlight';
import type { TOlder } from '../../lib/older-pages';
import { onReaderInput } from '../../lib/on-reader-input';
import { useEndOnMediaLoad } from './use-end-on-media-load';
import { useSeekMessage } from './use-seek-message';

/** A row of the conversation: its stable key (`m<id>` for a message) and how to draw it. */
export type TRow = { key: string; render: (measure: TMeasure) => ReactNode };
/** What a drawn row must carry on its `<li>` so the list knows its height. */
export type TMeasure = { 'data-index': number; ref: (element: HTMLLIElement | null) => void };
export type TMessageListApi = { show: (id: number) => void; toEnd: () => void };

const LOAD_WITHIN_PX = 800; // ask for the earlier page this far before the reader reaches the top

/**
 * A conversation's messages, oldest at the top, drawing only the rows on screen (a thread can hold
 * tens of thousands). Opens at the newest; earlier pages load as the reader scrolls up and arrive
 * above without moving what is on screen; a new message at the end is followed when the reader is
 * at the end. `focusId` (a search hit) loads earlier pages until that message is there, then shows it.
 */
export function MessageList({
  rows,
  older,
  focusId,
  onAtEnd,
  ref,
}: {
  rows: TRow[];
  older: TOlder;
  focusId: number | null;
  /** Told whether the newest message is in view (the thread is marked read only then). */
  onAtEnd: (atEnd: boolean) => void;
  ref?: Ref<TMessageListApi>;
}) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  // With every page loaded, the first row says so.
  const all: TRow[] = older.hasMore
    ? rows
    : [
        {
          key: 'start',
          render: (measure) => (
            <li {...measure} className="thread-start muted">
              Start of the conversation
            </li>
          ),
        },
        ...rows,
      ];
  const virtualizer = useRowVirtualizer({
    count: all.length,
    getScrollElement: () => scrollerRef.current,
    estimateSize: () => 58, // a one-line bubble with its time; measured once drawn
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

  /** Scrolls to the newest and holds it there for a few frames, while rows drawn there get measured; the reader's own scrolling ends the hold. */
  const holdAtEnd = () => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    let frames = 0;
    let held = true;
    const stopListening = onReaderInput(scroller, ['wheel', 'touchstart', 'keydown', 'pointerdown'], () => (held = false));
    const hold = () => {
      if (!held) return;
      scroller.scrollTop = scroller.scrollHeight;
      if (++frames < 12) requestAnimationFrame(hold);
      else stopListening();
    };
    hold();
  };
  useImperativeHandle(ref, () => ({ show: (id) => void show(id), toEnd: holdAtEnd }));

  // Opens at the newest message (unless a search hit is to be shown).
  const opened = useRef(false);
  useLayoutEffect(() => {
    if (opened.current || focusId || !scrollerRef.current) return;
    opened.current = true;
    holdAtEnd();
  });

  // Whether the newest message is in view; a message arriving while the reader is further up is
  // announced by a button rather than by moving the list.
  const [atEnd, setAtEnd] = useState(true);
  const lastKey = all[all.length - 1]?.key;
  const [unseenFrom, setUnseenFrom] = useState<string | null>(null);
  const [seenLastKey, setSeenLastKey] = useState(lastKey);
  if (lastKey !== seenLastKey) {
    setSeenLastKey(lastKey);
    if (!atEnd && unseenFrom === null) setUnseenFrom(lastKey ?? null);
  }
  useEffect(() => onAtEnd(atEnd), [atEnd, onAtEnd]);

  const seeking = useSeekMessage({ focusId, show, older, scrollerRef });

  // Near the top: the earlier page.
  const onScroll = () => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    if (scroller.scrollTop < LOAD_WITHIN_PX && older.hasMore && !older.loading && !older.failed) older.load();
    const nowAtEnd = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 48;
    setAtEnd(nowAtEnd);
    if (nowAtEnd) setUnseenFrom(null);
  };

  useEndOnMediaLoad(scrollerRef, () => virtualizer.scrollToIndex(all.length - 1, { align: 'end' }));

  const virtualRows = virtualizer.getVirtualItems();
  const first = virtualRows[0];
  const last = virtualRows[virtualRows.length - 1];
  return (
    <>
      <OlderBar older={older} seeking={seeking} />
      {/* The scroller holds one list whose padding stands for the rows not drawn above and below. */}
      <div className="messages-box">
        {/* Focusable, so the keyboard scrolls it (the skip link "Skip to conversation" lands here). Not a
        live region: rows are drawn as they scroll into view; arrivals are announced by the thread. */}
        <div
          className="messages"
          id="conversation"
          ref={scrollerRef}
          onScroll={onScroll}
          tabIndex={0}
          role="region"
          aria-label="Message history"
        >
          <ol
            className="message-rows"
            aria-label="Messages"
            aria-busy={older.loading}
            style={{ paddingTop: first?.start ?? 0, paddingBottom: last ? virtualizer.getTotalSize() - last.end : 0 }}
          >
            {virtualRows.map((row) => (
              <Fragment key={all[row.index]!.key}>
                {all[row.index]!.render({ 'data-index': row.index, ref: virtualizer.measureElement })}
              </Fragment>
            ))}
          </ol>
        </div>
        {unseenFrom !== null && !atEnd && (
          <button type="button" className="button small new-below" onClick={holdAtEnd}>
            New message below ↓
          </button>
        )}
      </div>
    </>
  );
}

/**
 * Above the messages while earlier ones exist: loading, failed (with a way to try again), or a
 * button for whoever does not scroll (keyboard, switch access). Outside the scrolled list, so the
 * message on screen, not this bar, is what stays in place when a page arrives above it.
 */
function OlderBar({ older, seeking }: { older: TOlder; seeking: boolean }) {
  if (!older.hasMore && !older.failed) return null;
  if (seeking && !older.failed)
    return (
      <div className="thread-older muted" role="status">
        Finding the message in earlier pages… (scroll to stop)
      </div>
    );
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

/**
 * TanStack Virtual's hook, on its own: React's lint skips a component that calls it (the React
 * Compiler cannot memoise what it returns), so called here the rest of MessageList is still checked.
 */
function useRowVirtualizer(options: Parameters<typeof useVirtualizer<HTMLDivElement, HTMLLIElement>>[0]) {
  // eslint-disable-next-line react-hooks/incompatible-library -- a note for React Compiler, which this app is not built with: nothing memoises the virtualizer's functions
  return useVirtualizer(options);
}
