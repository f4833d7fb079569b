import { useMemo, useState } from 'react';
import { replyNumbersOf } from '../../../../shared/phone';
import type { TThreadItem, TThreadRef, TThreadSummary } from '../../lib/trpc';
import { windowTimeLeft } from './reply-window';

type TClientNumber = { digits: string; primary: boolean };

/** Where a reply goes and whether it may be free text: the number, the numbers to choose from, its 24-hour window. */
export type TReplyTarget = {
  /** The number the reply goes to (null: none known yet). */
  to: string | null;
  /** The numbers a reply may go to (one, or the client's several). */
  numbers: string[];
  choose: (digits: string) => void;
  /** The client's own main number (null for an unlinked number). */
  primary: string | null;
  /** The last message from `to`, which opened its window. */
  lastInboundAt: Date | null;
  windowOpen: boolean;
  /** Whether messages say which number each is from (the conversation has several). */
  showNumbers: boolean;
};

/**
 * The numbers a reply may go to and the default, by the server's own rule (shared/phone.ts): the
 * number that last wrote, else the primary, unless a person chooses another.
 */
export function useReplyTarget(
  threadRef: TThreadRef,
  items: TThreadItem[],
  clientNumbers: TClientNumber[] | undefined,
  summary: TThreadSummary | undefined,
): TReplyTarget {
  const reply = useMemo(() => {
    if ('phone' in threadRef) return { numbers: [threadRef.phone], defaultNumber: threadRef.phone };
    const inboundNewestFirst = items
      .filter((i) => i.direction === 'inbound' && i.peerPhone)
      .map((i) => i.peerPhone!)
      .reverse();
    return replyNumbersOf(
      (clientNumbers ?? []).map((n) => n.digits),
      inboundNewestFirst,
    );
  }, [threadRef, items, clientNumbers]);
  const numbers = reply.numbers;
  const [chosen, setChosen] = useState<string | null>(null);
  const to = chosen && numbers.includes(chosen) ? chosen : reply.defaultNumber;
  // The 24-hour window belongs to a number: the one the reply will go to.
  const lastInboundAt = useMemo(() => {
    const inbound = items
      .filter((i) => i.direction === 'inbound' && i.peerPhone === to)
      .map((i) => (i.providerTimestamp ?? i.createdAt).getTime());
    if (inbound.length) return new Date(Math.max(...inbound));
    // None among the pages loaded: with one number, the conversation's own last inbound (from its summary).
    return numbers.length <= 1 ? (summary?.lastInboundAt ?? null) : null;
  }, [items, to, numbers, summary]);
  return {
    to,
    numbers,
    choose: setChosen,
    primary: clientNumbers?.find((n) => n.primary)?.digits ?? null,
    lastInboundAt,
    windowOpen: windowTimeLeft(lastInboundAt, new Date()) !== null,
    showNumbers: numbers.length > 1 || items.some((i) => i.peerPhone && i.peerPhone !== to),
  };
}
