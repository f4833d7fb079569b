import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type RefObject, type SyntheticEvent } from 'react';
import { matchPeople, mentionedIn, mentionTokenAt } from './mention-token';
import type { TPersonRef } from './use-ownership-actions';

/**
 * "@" completion in a text box: typing "@" and letters lists the people who match; ↑/↓ choose,
 * Enter, Tab or a click puts "@Full Name " in the text, Escape closes the list. The ids of the
 * people chosen (and still named in the text) are what the note mentions.
 */
export function useMentionCompletion({
  text,
  setText,
  textarea,
  people,
}: {
  text: string;
  setText: (text: string) => void;
  textarea: RefObject<HTMLTextAreaElement | null>;
  people: TPersonRef[];
}) {
  const listId = useId();
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const [picked, setPicked] = useState<TPersonRef[]>([]);
  const token = mentionTokenAt(text, caret);
  const matches = token && token.start !== dismissedAt ? matchPeople(people, token.query) : [];
  const open = matches.length > 0;
  const current = open ? matches[Math.min(active, matches.length - 1)] : undefined;
  // Where the caret goes once the picked name is in the box: put there in the same commit as the
  // text, before the browser takes the next key (a later frame would let a fast key land first).
  const caretAfterPick = useRef<number | null>(null);
  useLayoutEffect(() => {
    const at = caretAfterPick.current;
    if (at === null || !textarea.current) return;
    caretAfterPick.current = null;
    textarea.current.focus();
    textarea.current.setSelectionRange(at, at);
  });

  const pick = (person: TPersonRef) => {
    if (!token) return;
    const inserted = `@${person.name} `;
    const next = text.slice(0, token.start) + inserted + text.slice(caret);
    const at = token.start + inserted.length;
    setText(next);
    setCaret(at);
    setActive(0);
    setPicked((now) => (now.some((p) => p.id === person.id) ? now : [...now, person]));
    caretAfterPick.current = at;
  };

  /** Keys the list takes while it is open; true when it took the key (the box must not act on it too). */
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || !token) return false;
    const n = matches.length;
    const at = Math.min(active, n - 1);
    if (event.key === 'ArrowDown') setActive((at + 1) % n);
    else if (event.key === 'ArrowUp') setActive((at - 1 + n) % n);
    else if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') pick(matches[at]!);
    else if (event.key === 'Escape') {
      setDismissedAt(token.start);
      // Escape closes the list only; the page's own Escape (leave the box) waits for the next one.
      event.stopPropagation();
    } else return false;
    event.preventDefault();
    return true;
  };

  /** The caret moved (typing, arrows, a click): the "@name" under it is what is completed. */
  const onCaret = (event: SyntheticEvent<HTMLTextAreaElement>) => {
    const at = event.currentTarget.selectionStart;
    if (at !== caret) {
      setCaret(at);
      setActive(0);
    }
  };

  return {
    open,
    matches,
    current,
    listId,
    optionId: (person: TPersonRef) => `${listId}-${person.id}`,
    pick,
    onKeyDown,
    onCaret,
    /** The ids to send as the note's mentions. */
    mentions: () => mentionedIn(text, picked),
    reset: () => {
      setPicked([]);
      setDismissedAt(null);
    },
  };
}
