import { useEffect, useEffectEvent, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { trpc } from '../../lib/trpc';
import {
  fillWording,
  insertWording,
  locateWording,
  removeWording,
  replaceWording,
  type TInsertion,
  type TWordingValues,
} from './wording-insertion';

/**
 * Firm wording in the message box: chosen, then inserted at the cursor on purpose (moving through
 * the list inserts nothing); the inserted text follows `values` (the case chosen, the client's and
 * the firm's details) until a person edits it by hand, and Undo takes it out.
 */
export function useFirmWording({
  body,
  setBody,
  textarea,
  values,
}: {
  body: string;
  setBody: (text: string) => void;
  textarea: RefObject<HTMLTextAreaElement | null>;
  values: TWordingValues;
}) {
  // The directors edit the list (Settings › Firm wording): read again when a person goes to choose from it.
  const list = trpc.wording.list.useQuery(undefined, { staleTime: 60_000 });
  const [wordingId, setWordingId] = useState('');
  // The firm wording inserted last, while it stands as inserted.
  const [insertion, setInsertion] = useState<TInsertion | null>(null);
  const findWording = (id: string) => list.data?.find((w) => String(w.id) === id);
  const renderWording = (id: string) => {
    const wording = findWording(id);
    return wording ? fillWording(wording.body, values).text : null;
  };
  // Where the caret goes once the text it belongs to is on screen.
  const caretAfterRender = useRef<number | null>(null);
  useLayoutEffect(() => {
    const at = caretAfterRender.current;
    if (at === null || !textarea.current) return;
    caretAfterRender.current = null;
    textarea.current.focus();
    textarea.current.setSelectionRange(at, at);
  }, [body, textarea]);
  // A case (or the client's or firm's details) chosen after the wording: its values follow, until
  // a person edits the inserted text by hand.
  const followValues = useEffectEvent(() => {
    if (!insertion) return;
    const text = renderWording(insertion.templateId);
    if (text === null || text === insertion.text) return;
    const replaced = replaceWording(body, insertion, text);
    setInsertion(replaced?.insertion ?? null);
    if (replaced) setBody(replaced.body);
  });
  // eslint-disable-next-line react-hooks/set-state-in-effect -- the values also change as the server's answers arrive or change (the case list, the client's name, the firm's details), which no event handler sees
  useEffect(() => followValues(), [values]);
  const inserted = insertion && findWording(insertion.templateId);
  return {
    list: list.data,
    /** The picker was opened: the directors may have changed the list since it was read. */
    refresh: () => void (list.isStale && list.refetch()),
    wordingId,
    setWordingId,
    insertion,
    insertedName: inserted?.title,
    /** Names the inserted wording asks for that are not known here (an unlinked number, an erased client): left out. */
    missingNames: inserted ? fillWording(inserted.body, values).missing : [],
    insertChosen: () => {
      const text = renderWording(wordingId);
      if (text === null) return;
      const caret = textarea.current?.selectionEnd ?? body.length;
      const inserted = insertWording(body, caret, text, wordingId);
      caretAfterRender.current = inserted.caret;
      setBody(inserted.body);
      setInsertion(inserted.insertion);
      setWordingId('');
    },
    undo: () => {
      const removed = insertion && removeWording(body, insertion);
      setInsertion(null);
      if (!removed) return;
      caretAfterRender.current = removed.caret;
      setBody(removed.body);
    },
    /** The person typed: inserted wording they edited is theirs now. */
    onType: (text: string) => {
      setBody(text);
      if (!insertion) return;
      const at = locateWording(text, insertion);
      setInsertion(at === null ? null : { ...insertion, start: at });
    },
    /** The text went (or was cleared): nothing inserted stands any more. */
    forget: () => setInsertion(null),
  };
}

export type TFirmWording = ReturnType<typeof useFirmWording>;
