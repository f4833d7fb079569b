import { useMemo, useState } from 'react';
import { replyNumbersOf } from '../../../../shared/phone';
import type { TThreadItem, TThreadRef, TThreadSummary } from '../../lib/trpc';
import { windowTimeLeft } from './reply-window';

type TClientNumber = { digits: string; primary: boolean };
/** One of the firm's numbers, as `numbers.list` gives it. */
export type TFirmNumberChoice = { id: number; label: string; phone: string; active: boolean };

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
  /** The firm's number the reply goes from (null: not known yet), the active ones to choose from, and the choice. */
  from: number | null;
  fromOptions: TFirmNumberChoice[];
  chooseFrom: (id: number) => void;
  /** The label of `from` when the firm has had several numbers (what the window notice names); else null. */
  fromLabel: string | null;
  /** The thread holds history imported from a phone's export (which opens no window). */
  importedHistory: boolean;
};

/**
 * The numbers a reply may go to and the default, by the server's own rule (shared/phone.ts): the
 * number that last wrote, else the primary, unless a person chooses another.
 */
export function useReplyTarget(
  threadRef: TThreadRef,
  threadItems: TThreadItem[],
  clientNumbers: TClientNumber[] | undefined,
  summary: TThreadSummary | undefined,
  firmNumbers: TFirmNumberChoice[] | undefined,
): TReplyTarget {
  // What the provider carried: a chat imported from a phone's export opens no window and names no number that last wrote.
  const items = useMemo(() => threadItems.filter((i) => i.status !== 'imported'), [threadItems]);
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
  // The firm's number: the one chosen, else the one `to` last wrote to (the server's own default), else the main one.
  const fromOptions = useMemo(() => (firmNumbers ?? []).filter((n) => n.active), [firmNumbers]);
  const [chosenFrom, setChosenFrom] = useState<number | null>(null);
  const from = useMemo(() => {
    if (chosenFrom !== null && fromOptions.some((n) => n.id === chosenFrom)) return chosenFrom;
    const wroteTo = items.filter((i) => i.direction === 'inbound' && i.peerPhone === to).at(-1)?.firmNumberId;
    return fromOptions.find((n) => n.id === wroteTo)?.id ?? fromOptions[0]?.id ?? null;
  }, [chosenFrom, fromOptions, items, to]);
  // The firm has had more than one number (a deactivated one's messages count as its, not the main number's).
  const severalFirmNumbers = (firmNumbers?.length ?? 0) > 1;
  // The 24-hour window belongs to a pair of numbers: the client's the reply goes to, the firm's it goes from.
  const lastInboundAt = useMemo(() => {
    const inbound = items
      .filter((i) => i.direction === 'inbound' && i.peerPhone === to && (!severalFirmNumbers || i.firmNumberId === from))
      .map((i) => (i.providerTimestamp ?? i.createdAt).getTime());
    if (inbound.length) return new Date(Math.max(...inbound));
    // None among the pages loaded: with one number each side, the conversation's own last inbound (from its summary).
    return numbers.length <= 1 && !severalFirmNumbers ? (summary?.lastInboundAt ?? null) : null;
  }, [items, to, numbers, summary, from, severalFirmNumbers]);
  return {
    importedHistory: items.length < threadItems.length,
    to,
    numbers,
    choose: setChosen,
    primary: clientNumbers?.find((n) => n.primary)?.digits ?? null,
    lastInboundAt,
    windowOpen: windowTimeLeft(lastInboundAt, new Date()) !== null,
    showNumbers: numbers.length > 1 || items.some((i) => i.peerPhone && i.peerPhone !== to),
    from,
    fromOptions,
    chooseFrom: setChosenFrom,
    fromLabel: severalFirmNumbers ? (fromOptions.find((n) => n.id === from)?.label ?? null) : null,
  };
}
