import {
  useEffect,
  useEffectEvent,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ClipboardEvent,
  type FormEvent,
  type KeyboardEvent,
} from 'react';
import { useSearch } from 'wouter';
import { renderTemplate, type TTemplateValues } from '../../../shared/templates';
import { draftKeyOf } from '../lib/drafts';
import { composerHint, sendsOnEnter } from '../lib/enter-to-send';
import { usePhoneFormatter } from '../lib/format';
import { CAPTION_LIMIT, describeLength, TEXT_LIMIT } from '../lib/message-length';
import { threadKeyOfRef, trpc, type TThreadRef } from '../lib/trpc';
import { checkUploadSize } from '../lib/upload-file';
import { useAutoGrow } from '../lib/use-auto-grow';
import { useCoarsePointer } from '../lib/use-coarse-pointer';
import { useDraft } from '../lib/use-draft';
import { useNarrowScreen } from '../lib/use-narrow-screen';
import { noteUploadStarted, useUploading } from '../lib/unsent-work';
import { insertWording, locateWording, removeWording, replaceWording, type TInsertion } from '../lib/wording-insertion';
import { FilePicker } from './file-picker';
import { TemplateComposer, type TTemplateChoice } from './template-composer';

/** The number a message goes to: always shown, a choice when the conversation has several. */
type TRecipient = { value: string; options: string[]; onChange: (digits: string) => void; note?: string | null };

type TProps = {
  threadRef: TThreadRef;
  clientName: string | null;
  /** Keeps the message to send (it is sent as soon as it can be; a refusal puts its text back in the draft). */
  onSend: (body: string, caseId: number | undefined) => Promise<boolean>;
  onSendTemplate: (choice: TTemplateChoice, caseId: number | undefined) => Promise<boolean>;
  /** Uploads the file (reporting progress) and sends it with the caption; false keeps both here. */
  onSendFile: (
    file: File,
    caption: string,
    caseId: number | undefined,
    onProgress: (fraction: number) => void,
  ) => Promise<{ ok: true } | { ok: false; error: string | null }>;
  /** The file chosen to send (picked, pasted, or dropped anywhere on the thread). */
  file: File | null;
  onFileChange: (file: File | null) => void;
  recipient: TRecipient | null;
  /** The 24-hour window of the number the message goes to. */
  windowOpen: boolean;
  /** 'template': an approved template (first choice outside the window); 'text': free text. */
  mode: 'template' | 'text';
  onModeChange: (mode: 'template' | 'text') => void;
  /** The case the conversation's recent messages are on: offered when no case was chosen for this message. */
  proposedCaseId?: number;
};

/** The file a caption was written for, kept with the draft: a reload must not leave a caption that would go alone. */
type TFileNote = { name: string; size: number };

function parseFileNote(text: string): TFileNote | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<TFileNote>;
    return typeof value.name === 'string' && typeof value.size === 'number' ? { name: value.name, size: value.size } : null;
  } catch {
    return null;
  }
}

/**
 * Recipient number, optional case, then free text or an approved provider template — first outside
 * the 24-hour window, where free text is sent only on purpose. The text is kept as a draft per
 * conversation; on a desktop Enter sends (Shift+Enter adds a line), on a touch device Enter adds a
 * line and the button sends. Firm wording goes in at the cursor, follows the case chosen until it
 * is edited, and can be undone.
 */
export function Composer({
  threadRef,
  clientName,
  onSend,
  onSendTemplate,
  onSendFile,
  file,
  onFileChange,
  recipient,
  windowOpen,
  mode,
  onModeChange,
  proposedCaseId,
}: TProps) {
  const formatNumber = usePhoneFormatter();
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  const draftKey = draftKeyOf(me.data?.id ?? 0, threadKeyOfRef(threadRef));
  const draft = useDraft(draftKey);
  const body = draft.text;
  const setBody = draft.setText;
  // The firm wording inserted last, while it stands as inserted (it follows the case; Undo takes it out).
  const [insertion, setInsertion] = useState<TInsertion | null>(null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  useAutoGrow(textarea, body);
  const touch = useCoarsePointer();
  // The case chosen is part of the draft: a text naming a case is not sent off that case's file.
  // '' = none chosen (the case the conversation's recent messages are on is offered), 'none' = no
  // case on purpose, else a case id. A choice lasts for one message unless it is pinned: a client
  // with two open matters must not have every later message filed on the first one picked.
  const { text: caseText, setText: setCaseText } = useDraft(`${draftKey}:case`);
  const { text: pinText, setText: setPinText } = useDraft(`${draftKey}:case-pin`);
  const pinned = pinText === '1';
  const clientId = 'clientId' in threadRef ? threadRef.clientId : null;
  const templates = trpc.chat.templates.useQuery(undefined, { staleTime: Infinity });
  const settings = trpc.settings.chat.useQuery(undefined, { staleTime: Infinity });
  const cases = trpc.cases.listForClient.useQuery({ clientId: clientId ?? 0 }, { enabled: clientId !== null });
  const proposed = cases.data?.some((c) => c.id === proposedCaseId && c.status === 'open') ? proposedCaseId : undefined;
  const caseId = caseText === 'none' ? undefined : Number(caseText) || proposed;
  const caseIsProposed = caseText === '' && proposed !== undefined;
  const setCaseId = (id: number | undefined) => setCaseText(id ? String(id) : 'none');
  const afterSend = () => {
    if (!pinned) setCaseText('');
  };
  const selectedCase = cases.data?.find((c) => c.id === caseId);
  // Opened from a case (its page's Message: ?case=id): that case is chosen, once, when it is this client's.
  const askedCase = Number(new URLSearchParams(useSearch()).get('case')) || undefined;
  const askedApplied = useRef(false);
  useEffect(() => {
    if (askedApplied.current || !askedCase || !cases.data?.some((c) => c.id === askedCase)) return;
    askedApplied.current = true;
    setCaseText(String(askedCase));
  }, [askedCase, cases.data, setCaseText]);
  // The file this caption belongs to, while one is chosen: after a reload (or coming back to the
  // conversation) the file itself is gone, and the caption must not be sent without it.
  const fileNoteDraft = useDraft(`${draftKey}:file`);
  const setFileNote = fileNoteDraft.setText;
  const fileNote = parseFileNote(fileNoteDraft.text);
  const uploadingElsewhere = useUploading(draftKey);
  useEffect(() => {
    if (file) setFileNote(JSON.stringify({ name: file.name, size: file.size } satisfies TFileNote));
  }, [file, setFileNote]);
  const fileLost = !file && fileNote !== null && !uploadingElsewhere;
  const length = describeLength(body, file || fileNote ? CAPTION_LIMIT : TEXT_LIMIT);
  const lengthId = useId();
  const caseNoteId = useId();

  const [progress, setProgress] = useState<number | null>(null);
  // Over its limit: said before anything is uploaded. Refused by the server: its sentence, until
  // another file is chosen.
  const tooLarge = file ? checkUploadSize(file) : null;
  const [uploadError, setUploadError] = useState<{ file: File; message: string } | null>(null);
  const fileError = tooLarge ?? (uploadError && uploadError.file === file ? uploadError.message : null);
  const chooseFile = (chosen: File | null) => {
    setUploadError(null);
    if (!chosen) setFileNote('');
    onFileChange(chosen);
  };
  const sendFile = async (chosen: File) => {
    if (checkUploadSize(chosen)) return;
    setUploadError(null);
    setProgress(0);
    // Leaving the page now would lose the upload: it asks first (unsent-work.ts).
    const uploaded = noteUploadStarted(draftKey, chosen.name);
    const result = await onSendFile(chosen, body.trim(), caseId, setProgress).finally(uploaded);
    setProgress(null);
    if (result.ok) {
      onFileChange(null);
      setFileNote('');
      setBody('');
      setInsertion(null);
      afterSend();
    } else if (result.error) {
      setUploadError({ file: chosen, message: result.error }); // the file and the caption stay, to send again
    }
  };
  // An image pasted into the text (a screenshot) is attached.
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = [...event.clipboardData.files][0];
    if (!pasted) return;
    event.preventDefault();
    chooseFile(pasted.name ? pasted : new File([pasted], 'pasted-image.png', { type: pasted.type }));
  };

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (progress !== null || length.state === 'over') return; // refused, with the reason shown under the text
    if (file) return void (await sendFile(file));
    if (fileNote) return; // a caption whose file is not here: never sent alone (said beside it)
    const text = body.trim();
    if (!text) return;
    setBody('');
    setInsertion(null);
    // Kept in the outbox from here on; a refusal by the server puts the text back (use-outbox-runner.ts).
    afterSend();
    await onSend(text, caseId);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (sendsOnEnter({ key: event.key, shiftKey: event.shiftKey, isComposing: event.nativeEvent.isComposing }, touch)) {
      event.preventDefault();
      void submit();
    }
  };

  // Firm wording: chosen, then inserted on purpose (moving through the list inserts nothing).
  const [wordingId, setWordingId] = useState('');
  const firstName = clientName?.split(' ')[0];
  const values = useMemo<TTemplateValues>(
    () => ({
      client_name: firstName,
      case_reference: selectedCase?.reference,
      case_title: selectedCase?.title,
      firm_name: settings.data?.firmName,
      firm_phone: settings.data?.firmPhone,
    }),
    [firstName, selectedCase?.reference, selectedCase?.title, settings.data?.firmName, settings.data?.firmPhone],
  );
  const renderWording = (id: string) => {
    const template = templates.data?.find((t) => t.id === id);
    return template ? renderTemplate(template.body, values) : null;
  };
  // Where the caret goes once the text it belongs to is on screen.
  const caretAfterRender = useRef<number | null>(null);
  useLayoutEffect(() => {
    const at = caretAfterRender.current;
    if (at === null || !textarea.current) return;
    caretAfterRender.current = null;
    textarea.current.focus();
    textarea.current.setSelectionRange(at, at);
  }, [body]);
  const insertChosenWording = () => {
    const text = renderWording(wordingId);
    if (text === null) return;
    const caret = textarea.current?.selectionEnd ?? body.length;
    const inserted = insertWording(body, caret, text, wordingId);
    caretAfterRender.current = inserted.caret;
    setBody(inserted.body);
    setInsertion(inserted.insertion);
    setWordingId('');
  };
  const undoWording = () => {
    const removed = insertion && removeWording(body, insertion);
    setInsertion(null);
    if (!removed) return;
    caretAfterRender.current = removed.caret;
    setBody(removed.body);
  };
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
  const onType = (text: string) => {
    setBody(text);
    if (!insertion) return;
    const at = locateWording(text, insertion);
    setInsertion(at === null ? null : { ...insertion, start: at }); // edited by hand: it is the person's text now
  };
  const insertedName = insertion && templates.data?.find((t) => t.id === insertion.templateId)?.name;
  const narrow = useNarrowScreen();
  const [templateOpen, setTemplateOpen] = useState(false);

  const tools = (
    <div className="composer-tools">
      {recipient &&
        (recipient.options.length > 1 ? (
          <label className="compact-field">
            <span>To</span>
            <select value={recipient.value} onChange={(e) => recipient.onChange(e.target.value)} aria-label="Send to number">
              {recipient.options.map((digits) => (
                <option key={digits} value={digits}>
                  {formatNumber(digits)}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="compact-field" data-testid="send-to">
            To <strong>{formatNumber(recipient.value)}</strong>
          </span>
        ))}
      {recipient?.note && <span className="recipient-note">{recipient.note}</span>}
      {mode === 'text' && (
        <span className="wording-picker">
          <label className="compact-field">
            <span>Wording</span>
            <select value={wordingId} onChange={(e) => setWordingId(e.target.value)} aria-label="Firm wording">
              <option value="">Choose firm wording…</option>
              {templates.data?.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="button small ghost"
            onClick={insertChosenWording}
            disabled={!wordingId}
            aria-label="Insert wording"
          >
            Insert
          </button>
        </span>
      )}
      {clientId !== null && (
        <label className="compact-field case-field">
          <span>Case</span>
          <select
            value={caseId ?? ''}
            onChange={(e) => setCaseId(e.target.value ? Number(e.target.value) : undefined)}
            aria-label="File on case"
            aria-describedby={caseIsProposed ? caseNoteId : undefined}
          >
            <option value="">No case</option>
            {cases.data?.map((c) => (
              <option key={c.id} value={c.id}>
                {c.reference} — {c.title}
                {c.status === 'closed' ? ' (closed)' : ''}
              </option>
            ))}
          </select>
          {caseIsProposed && (
            <span className="case-note" id={caseNoteId}>
              as the last messages
            </span>
          )}
        </label>
      )}
      {clientId !== null && caseId !== undefined && (
        <label className="compact-field case-pin" title="Keep this case for the next messages too">
          <input
            type="checkbox"
            checked={pinned}
            onChange={(e) => setPinText(e.target.checked ? '1' : '')}
            aria-label="Keep for next messages"
          />
          <span>Keep</span>
        </label>
      )}
      {mode === 'text' && (
        <FilePicker file={file} onChoose={chooseFile} onClear={() => chooseFile(null)} progress={progress} error={fileError} />
      )}
    </div>
  );

  if (mode === 'template') {
    // On a small screen the form would take the whole conversation: it waits behind one line.
    if (narrow && !templateOpen) {
      return (
        <div className="composer">
          <div className="template-summary">
            <button type="button" className="button primary small" aria-expanded={false} onClick={() => setTemplateOpen(true)}>
              Send a template…
            </button>
            <button type="button" className="link-button" onClick={() => onModeChange('text')}>
              {windowOpen ? 'Write a message instead' : 'Write free text anyway'}
            </button>
          </div>
        </div>
      );
    }
    return (
      <div className="composer">
        {narrow && (
          <button type="button" className="link-button template-hide" aria-expanded={true} onClick={() => setTemplateOpen(false)}>
            Hide the template form
          </button>
        )}
        {tools}
        <TemplateComposer
          windowOpen={windowOpen}
          context={{
            firstName: firstName ?? null,
            caseReference: selectedCase?.reference ?? null,
            firmName: settings.data?.firmName ?? null,
          }}
          onSend={async (choice) => {
            const sent = await onSendTemplate(choice, caseId);
            if (sent) afterSend();
            return sent;
          }}
          onWriteFreeText={() => onModeChange('text')}
        />
      </div>
    );
  }

  return (
    <form className="composer" onSubmit={(event) => void submit(event)} aria-label="Write a message">
      {tools}
      {fileLost && fileNote && (
        <p className="file-lost" role="note">
          <span>
            <strong>{fileNote.name}</strong> — not sent: attach again
          </span>
          <button type="button" className="link-button" onClick={() => setFileNote('')}>
            Send the text without it
          </button>
        </p>
      )}
      {!file && fileNote && uploadingElsewhere && (
        <p className="file-lost" role="status">
          <strong>{fileNote.name}</strong> is still uploading; it is sent when done.
        </p>
      )}
      {insertion && (
        <p className="wording-note">
          <span role="status">{insertedName ? `“${insertedName}” inserted` : 'Wording inserted'}</span>
          {' · '}
          <button type="button" className="link-button" onClick={undoWording}>
            Undo
          </button>
        </p>
      )}
      <div className="composer-row">
        <label className="visually-hidden" htmlFor="composer-text">
          {file || fileNote ? 'Caption' : 'Message'}
        </label>
        {/* No maxLength: a long paste is kept whole and refused with the reason, never cut short. */}
        <textarea
          ref={textarea}
          id="composer-text"
          rows={1}
          placeholder={composerHint({ touch, caption: file !== null || fileNote !== null })}
          enterKeyHint={touch ? 'enter' : 'send'}
          value={body}
          onChange={(e) => onType(e.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          aria-invalid={length.state === 'over' || undefined}
          aria-describedby={length.state === 'quiet' ? undefined : lengthId}
        />
        <button
          type="submit"
          className="button primary"
          disabled={
            (!body.trim() && !file) || progress !== null || tooLarge !== null || length.state === 'over' || (!file && fileNote !== null)
          }
        >
          {progress !== null ? 'Sending…' : file ? 'Send file' : 'Send'}
        </button>
      </div>
      {length.state !== 'quiet' && (
        <div className={`composer-length ${length.state}`}>
          {length.refusal && (
            <p className="form-error" role="alert">
              {length.refusal}
            </p>
          )}
          <p id={lengthId} className="composer-count">
            {length.counter}
          </p>
        </div>
      )}
      {!draft.kept && (
        <p className="muted composer-count">This draft is not kept on this device: the browser's storage is full or turned off.</p>
      )}
    </form>
  );
}
