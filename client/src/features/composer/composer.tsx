import { useId, useMemo, useRef, useState, type ClipboardEvent, type FormEvent, type KeyboardEvent } from 'react';
import type { TTemplateValues } from '../../../../shared/templates';
import { threadKeyOfRef, trpc, type TThreadRef } from '../../lib/trpc';
import { useAutoGrow } from '../../lib/use-auto-grow';
import { useCoarsePointer } from '../../lib/use-coarse-pointer';
import { useNarrowScreen } from '../../lib/use-narrow-screen';
import { useToast } from '../../ui/toasts';
import { ScheduledStrip } from '../scheduling/scheduled-strip';
import type { TScheduledSend } from '../scheduling/scheduled-send';
import { SendLaterMenu } from '../scheduling/send-later-menu';
import { SendLaterPicker } from '../scheduling/send-later-picker';
import { useFirmTimeZone } from '../scheduling/use-firm-time-zone';
import { useScheduledActions } from '../scheduling/use-scheduled-actions';
import { ComposerTools, type TRecipient } from './composer-tools';
import { draftKeyOf } from './drafts';
import { composerHint, sendsOnEnter } from './enter-to-send';
import { CAPTION_LIMIT, describeLength, TEXT_LIMIT } from './message-length';
import { TemplateComposer, type TTemplateChoice } from './template-composer';
import { TemplateLater } from './template-later';
import { uploadFile } from './upload-file';
import { useCaseChoice } from './use-case-choice';
import { useComposerFile } from './use-composer-file';
import { useDraft } from './use-draft';
import { useFirmWording } from './use-firm-wording';

/** What the composer calls to send; the conversation gives each send an echo id of its own. */
export type TSendActions = {
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
};

type TProps = TSendActions & {
  threadRef: TThreadRef;
  clientName: string | null;
  /** The file chosen to send (picked, pasted, or dropped anywhere on the thread). */
  file: File | null;
  onFileChange: (file: File | null) => void;
  recipient: TRecipient | null;
  /** The 24-hour window of the number the message goes to. */
  windowOpen: boolean;
  /** When the reply number's 24-hour window closes (null: it never opened): what a scheduled text is checked against. */
  windowClosesAt?: Date | null;
  /** 'template': an approved template (first choice outside the window); 'text': free text. */
  mode: 'template' | 'text';
  onModeChange: (mode: 'template' | 'text') => void;
  /** The case the conversation's recent messages are on: offered when no case was chosen for this message. */
  proposedCaseId?: number;
};

/**
 * Recipient number, optional case, then free text or an approved provider template — first outside
 * the 24-hour window, where free text is sent only on purpose. The text is kept as a draft per
 * conversation; on a desktop Enter sends (Shift+Enter adds a line), on a touch device Enter adds a
 * line and the button sends. Firm wording goes in at the cursor, follows the case chosen until it
 * is edited, and can be undone. In a client's conversation, "Send later" (the clock beside Send)
 * schedules the text, the file or the template for a time on the firm's clock instead, and the
 * conversation's scheduled sends are listed above (README "Scheduled sends").
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
  windowClosesAt = null,
  mode,
  onModeChange,
  proposedCaseId,
}: TProps) {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  const draftKey = draftKeyOf(me.data?.id ?? 0, threadKeyOfRef(threadRef));
  const draft = useDraft(draftKey);
  const body = draft.text;
  const setBody = draft.setText;
  const textarea = useRef<HTMLTextAreaElement>(null);
  useAutoGrow(textarea, body);
  const touch = useCoarsePointer();
  const clientId = 'clientId' in threadRef ? threadRef.clientId : null;
  const filing = useCaseChoice(draftKey, clientId, proposedCaseId);
  const caseId = filing.caseId;
  const settings = trpc.settings.chat.useQuery(undefined, { staleTime: Infinity });
  const attachment = useComposerFile(draftKey, file, onFileChange);
  const fileNote = attachment.note;
  const length = describeLength(body, file || fileNote ? CAPTION_LIMIT : TEXT_LIMIT);
  const lengthId = useId();
  const firstName = clientName?.split(' ')[0];
  const selectedCase = filing.selectedCase;
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
  const wording = useFirmWording({ body, setBody, textarea, values });
  const insertion = wording.insertion;
  const progress = attachment.progress;
  const toast = useToast();
  const firmZone = useFirmTimeZone();
  const zone = firmZone.zone;
  const scheduling = useScheduledActions();
  // "Pick a date and time…" open (text and files); for a template, the time its Send will schedule it for.
  const [picking, setPicking] = useState(false);
  const [templateLaterAt, setTemplateLaterAt] = useState<Date | null>(null);
  const [schedulingFile, setSchedulingFile] = useState(false);

  // An image pasted into the text (a screenshot) is attached.
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = [...event.clipboardData.files][0];
    if (!pasted) return;
    event.preventDefault();
    attachment.choose(pasted.name ? pasted : new File([pasted], 'pasted-image.png', { type: pasted.type }));
  };
  /** `only`: clear the text only while it is still this (what was scheduled), keeping anything typed since. */
  const clearSent = (only?: string) => {
    setBody((current) => (only === undefined || current.trim() === only ? '' : current));
    wording.forget();
    filing.noteSent();
  };

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (progress !== null || length.state === 'over') return; // refused, with the reason shown under the text
    if (file) {
      const sent = await attachment.send(file, (chosen, onProgress) => onSendFile(chosen, body.trim(), caseId, onProgress));
      if (sent) clearSent();
      return;
    }
    if (fileNote) return; // a caption whose file is not here: never sent alone (said beside it)
    const text = body.trim();
    if (!text) return;
    // Kept in the outbox from here on; a refusal by the server puts the text back (use-outbox-runner.ts).
    clearSent();
    await onSend(text, caseId);
  };
  /**
   * Schedules what is in the composer (the file with its caption, else the text) for `sendAt`;
   * cleared as after a send once the server took it. Returns the server's refusal (said in a notice
   * too, and in the picker when it asked), or null.
   */
  const scheduleAt = async (sendAt: Date): Promise<string | null> => {
    if (clientId === null || !zone) return null;
    if (progress !== null || length.state === 'over' || scheduling.pending) return null;
    const target = { clientId, to: recipient?.value, caseId, sendAt };
    const window = { closesAt: windowClosesAt, name: clientName ?? 'This number' };
    if (file) {
      let refused: string | null = null;
      setSchedulingFile(true);
      const done = await attachment
        .send(file, async (chosen, onProgress) => {
          const uploaded = await uploadFile(chosen, onProgress).catch((error: Error) => error);
          if (uploaded instanceof Error) return { ok: false, error: (refused = uploaded.message) };
          refused = await scheduling.schedule({ ...target, body: body.trim(), attachmentId: uploaded.attachmentId }, zone, window);
          return refused === null ? { ok: true } : { ok: false, error: refused };
        })
        .finally(() => setSchedulingFile(false));
      if (done) clearSent();
      return refused;
    }
    if (fileNote) return null; // a caption whose file is not here: never scheduled alone (said beside it)
    const text = body.trim();
    if (!text) return null;
    const refused = await scheduling.schedule({ ...target, body: text }, zone, window);
    // Cleared as after a send — unless more was typed while the server answered: that stays.
    if (refused === null) clearSent(text);
    return refused;
  };
  // A preset's refusal is said in a notice (a file's, beside the file); the picker says its own.
  const scheduleFromMenu = (sendAt: Date) => {
    const withFile = file !== null;
    void scheduleAt(sendAt).then((refused) => {
      if (refused && !withFile) toast('error', refused);
      textarea.current?.focus();
    });
  };
  /** A text that was not sent goes back into the message box (after what is there), to be edited and sent by hand. */
  const editAndSend = (item: TScheduledSend) => {
    setBody((current) => (current.trim() ? `${current.trimEnd()}\n${item.body ?? ''}` : (item.body ?? '')));
    textarea.current?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (sendsOnEnter({ key: event.key, shiftKey: event.shiftKey, isComposing: event.nativeEvent.isComposing }, touch)) {
      event.preventDefault();
      void submit();
    }
  };
  const narrow = useNarrowScreen();
  const [templateOpen, setTemplateOpen] = useState(false);
  const strip = clientId !== null && <ScheduledStrip clientId={clientId} onEditAndSend={editAndSend} />;
  const sendDisabled =
    (!body.trim() && !file) || progress !== null || attachment.tooLarge !== null || length.state === 'over' || (!file && fileNote !== null);

  const tools = (
    <ComposerTools
      threadRef={threadRef}
      recipient={recipient}
      mode={mode}
      wording={wording}
      filing={clientId !== null ? filing : null}
      file={file}
      attachment={attachment}
    />
  );

  if (mode === 'template') {
    // On a small screen the form would take the whole conversation: it waits behind one line.
    if (narrow && !templateOpen) {
      return (
        <>
          {strip}
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
        </>
      );
    }
    return (
      <>
        {strip}
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
              if (templateLaterAt && clientId !== null && zone) {
                const refused = await scheduling.schedule(
                  { clientId, to: recipient?.value, caseId, sendAt: templateLaterAt, template: choice },
                  zone,
                );
                if (refused !== null) {
                  toast('error', refused);
                  return false;
                }
                setTemplateLaterAt(null);
                filing.noteSent();
                return true;
              }
              const sent = await onSendTemplate(choice, caseId);
              if (sent) filing.noteSent();
              return sent;
            }}
            onWriteFreeText={() => onModeChange('text')}
          />
          {clientId !== null && (
            <TemplateLater
              zone={zone}
              zoneError={firmZone.error}
              at={templateLaterAt}
              onAt={setTemplateLaterAt}
              picking={picking}
              onPicking={setPicking}
              replyOption={scheduling.replyOption}
            />
          )}
        </div>
      </>
    );
  }

  return (
    <>
      {strip}
      <form className="composer" onSubmit={(event) => void submit(event)} aria-label="Write a message">
        {tools}
        {attachment.lost && fileNote && (
          <p className="file-lost" role="note">
            <span>
              <strong>{fileNote.name}</strong> — not sent: attach again
            </span>
            <button type="button" className="link-button" onClick={attachment.forgetNote}>
              Send the text without it
            </button>
          </p>
        )}
        {!file && fileNote && attachment.uploadingElsewhere && (
          <p className="file-lost" role="status">
            <strong>{fileNote.name}</strong> is still uploading; it is sent when done.
          </p>
        )}
        {insertion && (
          <p className="wording-note">
            <span role="status">{wording.insertedName ? `“${wording.insertedName}” inserted` : 'Wording inserted'}</span>
            {' · '}
            <button type="button" className="link-button" onClick={wording.undo}>
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
            onChange={(e) => wording.onType(e.target.value)}
            onKeyDown={onKeyDown}
            onPaste={onPaste}
            aria-invalid={length.state === 'over' || undefined}
            aria-describedby={length.state === 'quiet' ? undefined : lengthId}
          />
          <span className="send-buttons">
            <button type="submit" className="button primary" disabled={sendDisabled}>
              {progress !== null ? (schedulingFile ? 'Scheduling…' : 'Sending…') : file ? 'Send file' : 'Send'}
            </button>
            {clientId !== null && (
              <SendLaterMenu
                zone={zone}
                error={firmZone.error}
                disabled={sendDisabled || scheduling.pending}
                onPreset={scheduleFromMenu}
                onPickOwn={() => setPicking(true)}
                replyOption={scheduling.replyOption}
              />
            )}
          </span>
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
      {/* Its own form, after the composer's (a form may not hold another). */}
      {picking && zone && (
        <div className="composer-later">
          <SendLaterPicker
            zone={zone}
            title={file ? 'Send the file later' : 'Send later'}
            action="Schedule"
            replyOption={scheduling.replyOption}
            onPick={async (at) => {
              const refused = await scheduleAt(at);
              if (refused === null) {
                setPicking(false);
                textarea.current?.focus();
              }
              return refused;
            }}
            onCancel={() => {
              setPicking(false);
              textarea.current?.focus();
            }}
          />
        </div>
      )}
    </>
  );
}
