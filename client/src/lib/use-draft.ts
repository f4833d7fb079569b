import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { browserDraftStorage, readDraft, saveDraft } from './drafts';

type TSetText = (next: string | ((current: string) => string)) => void;

/**
 * The text of a composer, kept as the draft under `key` on every change (restored when the same
 * conversation opens again, removed when it becomes empty). `kept` is false when storage refused it.
 */
export function useDraft(key: string): { text: string; setText: TSetText; kept: boolean } {
  const [state, setState] = useState(() => ({ key, text: readDraft(browserDraftStorage(), key, Date.now()), kept: true }));
  let current = state;
  if (state.key !== key) {
    // Another conversation in the same composer: its own draft.
    // eslint-disable-next-line react-hooks/purity -- a draft is read when its key first shows (as the initial state above is); it is kept in state, so a second render does not read it again
    current = { key, text: readDraft(browserDraftStorage(), key, Date.now()), kept: true };
    setState(current);
  }
  // What setText reads: the text on screen, or one set since by a setText not yet rendered.
  const latest = useRef(current);
  useLayoutEffect(() => {
    latest.current = current;
  });
  // Bound to its key: a send that finishes after the conversation changed updates the draft it began in.
  const setText = useCallback<TSetText>(
    (next) => {
      const open = latest.current.key === key;
      const before = open ? latest.current.text : readDraft(browserDraftStorage(), key, Date.now());
      const text = typeof next === 'function' ? next(before) : next;
      const kept = saveDraft(browserDraftStorage(), key, text, Date.now());
      if (!open) return;
      latest.current = { key, text, kept };
      setState(latest.current);
    },
    [key],
  );
  return { text: current.text, setText, kept: current.kept };
}
