import { useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { trpc, type TThreadRef } from '../../lib/trpc';
import { useAutoGrow } from '../../lib/use-auto-grow';
import { useCoarsePointer } from '../../lib/use-coarse-pointer';
import { describeLength, sendsOnEnter, TEXT_LIMIT } from '../composer';
import { useMentionCompletion } from './use-mention-completion';
import type { TPersonRef } from './use-ownership-actions';

type TProps = {
  threadRef: TThreadRef;
  /** Kept by the conversation, so switching to Reply and back loses nothing. */
  text: string;
  onTextChange: (text: string) => void;
  /** The case the conversation's recent messages are on: the note is filed there unless changed. */
  proposedCaseId?: number;
  onAdded: () => void;
};

/**
 * An internal note for colleagues: stored on the conversation (and the client's and case's
 * timelines), never sent to the client. "@" completes the names of the people who may see the
 * conversation; those chosen are told. Enter adds it on a desktop (Shift+Enter for a new line).
 */
export function NoteComposer({ threadRef, text, onTextChange, proposedCaseId, onAdded }: TProps) {
  const textarea = useRef<HTMLTextAreaElement>(null);
  useAutoGrow(textarea, text);
  const touch = useCoarsePointer();
  const people = trpc.inbox.people.useQuery(threadRef);
  const clientId = 'clientId' in threadRef ? threadRef.clientId : null;
  const cases = trpc.cases.listForClient.useQuery({ clientId: clientId ?? 0 }, { enabled: clientId !== null });
  const [chosenCase, setChosenCase] = useState<string | null>(null);
  const proposed = cases.data?.some((c) => c.id === proposedCaseId && c.status === 'open') ? String(proposedCaseId) : '';
  const caseValue = chosenCase ?? proposed;
  const mention = useMentionCompletion({ text, setText: onTextChange, textarea, people: people.data ?? [] });
  const length = describeLength(text, TEXT_LIMIT);
  const errorId = useId();
  const addNote = trpc.chat.addNote.useMutation({
    onSuccess: () => {
      onTextChange('');
      mention.reset();
      onAdded();
    },
  });

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const body = text.trim();
    if (!body || addNote.isPending || length.state === 'over') return;
    const mentions = mention.mentions();
    const caseId = caseValue ? Number(caseValue) : undefined;
    addNote.mutate(
      clientId !== null
        ? { clientId, body, mentions, ...(caseId ? { caseId } : {}) }
        : { phone: 'phone' in threadRef ? threadRef.phone : '', body, mentions },
    );
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (mention.onKeyDown(event)) return;
    if (sendsOnEnter({ key: event.key, shiftKey: event.shiftKey, isComposing: event.nativeEvent.isComposing }, touch)) {
      event.preventDefault();
      submit();
    }
  };

  return (
    <form className="composer note-composer" onSubmit={submit} aria-label="Write an internal note">
      <p className="note-composer-hint">
        Only people at the firm see this note; the client never does. Type <kbd>@</kbd> to mention a colleague.
      </p>
      {clientId !== null && cases.data && cases.data.length > 0 && (
        <div className="composer-tools">
          <label className="compact-field case-field">
            <span>Case</span>
            <select value={caseValue} onChange={(e) => setChosenCase(e.target.value)} aria-label="File the note on case">
              <option value="">No case</option>
              {cases.data.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.reference} — {c.title}
                  {c.status === 'closed' ? ' (closed)' : ''}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      <div className="composer-row mention-anchor">
        <label className="visually-hidden" htmlFor="composer-text">
          Note for colleagues
        </label>
        <textarea
          ref={textarea}
          id="composer-text"
          rows={1}
          placeholder={touch ? 'Write a note for colleagues' : 'Write a note for colleagues — @ to mention, Enter to add'}
          value={text}
          onChange={(e) => {
            onTextChange(e.target.value);
            mention.onCaret(e);
            if (addNote.isError) addNote.reset();
          }}
          onSelect={mention.onCaret}
          onKeyDown={onKeyDown}
          aria-autocomplete="list"
          aria-controls={mention.open ? mention.listId : undefined}
          aria-activedescendant={mention.current ? mention.optionId(mention.current) : undefined}
          aria-invalid={length.state === 'over' || undefined}
          aria-describedby={addNote.error ? errorId : undefined}
        />
        <button type="submit" className="button note-button" disabled={!text.trim() || addNote.isPending || length.state === 'over'}>
          {addNote.isPending ? 'Adding…' : 'Add note'}
        </button>
        {mention.open && (
          <ul className="mention-list" id={mention.listId} role="listbox" aria-label="People to mention">
            {mention.matches.map((person: TPersonRef) => (
              <li
                key={person.id}
                id={mention.optionId(person)}
                role="option"
                aria-selected={person.id === mention.current?.id}
                className={person.id === mention.current?.id ? 'active' : undefined}
                // Pressed, not clicked: the text box keeps the focus (and the caret) meanwhile.
                onMouseDown={(event) => {
                  event.preventDefault();
                  mention.pick(person);
                }}
              >
                {person.name}
              </li>
            ))}
          </ul>
        )}
      </div>
      {length.state !== 'quiet' && (
        <p className={`composer-count ${length.state === 'over' ? 'form-error' : ''}`} role={length.state === 'over' ? 'alert' : undefined}>
          {length.state === 'over' ? 'A note can be at most 4,096 characters.' : length.counter}
        </p>
      )}
      {addNote.error && (
        <p id={errorId} className="form-error" role="alert">
          {addNote.error.message}
        </p>
      )}
    </form>
  );
}
