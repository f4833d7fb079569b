import { useId, useRef, useState, type FormEvent } from 'react';
import { threadKeyOfRef, trpc, type TThreadRef } from '../../lib/trpc';
import { useAutoGrow } from '../../lib/use-auto-grow';
import { ScheduledStrip, type TScheduledSend } from '../scheduling';
import { ComposerLength, ComposerNotices } from './composer-notices';
import { ComposerTools, type TRecipient } from './composer-tools';
import { draftKeyOf } from './drafts';
import { MessageBox } from './message-box';
import { CAPTION_LIMIT, describeLength, TEXT_LIMIT } from './message-length';
import { SendButtons, SendLaterPanel } from './send-controls';
import type { TTemplateChoice } from './template-composer';
import { TemplateMode } from './template-mode';
import { useCaseChoice } from './use-case-choice';
import { useComposerFile } from './use-composer-file';
import { useDraft } from './use-draft';
import { useFillValues } from './use-fill-values';
import { useFirmWording } from './use-firm-wording';
import { useSendLater } from './use-send-later';

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
 * conversation's scheduled sends are listed above (server/messaging/README.md "Scheduled sends").
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
  const clientId = 'clientId' in threadRef ? threadRef.clientId : null;
  const filing = useCaseChoice(draftKey, clientId, proposedCaseId);
  const caseId = filing.caseId;
  const attachment = useComposerFile(draftKey, file, onFileChange);
  const fileNote = attachment.note;
  const length = describeLength(body, file || fileNote ? CAPTION_LIMIT : TEXT_LIMIT);
  const lengthId = useId();
  const fill = useFillValues(clientName, filing.selectedCase);
  const wording = useFirmWording({ body, setBody, textarea, values: fill.values });
  const progress = attachment.progress;
  // On a small screen the template form waits behind one line until opened (kept across modes).
  const [templateOpen, setTemplateOpen] = useState(false);

  /** `only`: clear the text only while it is still this (what was scheduled), keeping anything typed since. */
  const clearSent = (only?: string) => {
    setBody((current) => (only === undefined || current.trim() === only ? '' : current));
    wording.forget();
    filing.noteSent();
  };
  const later = useSendLater({
    clientId,
    clientName,
    recipient,
    caseId,
    windowClosesAt,
    body,
    file,
    attachment,
    blocked: progress !== null || length.state === 'over',
    clearSent,
    textarea,
  });

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
  /** A text that was not sent goes back into the message box (after what is there), to be edited and sent by hand. */
  const editAndSend = (item: TScheduledSend) => {
    setBody((current) => (current.trim() ? `${current.trimEnd()}\n${item.body ?? ''}` : (item.body ?? '')));
    textarea.current?.focus();
  };
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

  return (
    <>
      {clientId !== null && <ScheduledStrip clientId={clientId} onEditAndSend={editAndSend} />}
      {mode === 'template' ? (
        <TemplateMode
          tools={tools}
          open={templateOpen}
          onOpenChange={setTemplateOpen}
          windowOpen={windowOpen}
          firmNumberId={recipient?.from?.value ?? null}
          context={fill.context}
          onSend={async (choice) => {
            const sent = await later.sendTemplate(choice, () => onSendTemplate(choice, caseId));
            if (sent) filing.noteSent();
            return sent;
          }}
          onWriteFreeText={() => onModeChange('text')}
          later={clientId !== null ? later : null}
        />
      ) : (
        <>
          <form className="composer" onSubmit={(event) => void submit(event)} aria-label="Write a message">
            {tools}
            <ComposerNotices file={file} attachment={attachment} wording={wording} />
            <div className="composer-row">
              <MessageBox
                textareaRef={textarea}
                value={body}
                caption={file !== null || fileNote !== null}
                length={length}
                lengthId={lengthId}
                onType={wording.onType}
                onEnter={() => void submit()}
                onPasteFile={attachment.choose}
              />
              <SendButtons
                label={progress !== null ? (later.schedulingFile ? 'Scheduling…' : 'Sending…') : file ? 'Send file' : 'Send'}
                disabled={sendDisabled}
                later={clientId !== null ? later : null}
              />
            </div>
            <ComposerLength length={length} lengthId={lengthId} kept={draft.kept} />
          </form>
          <SendLaterPanel later={later} withFile={file !== null} onClose={() => textarea.current?.focus()} />
        </>
      )}
    </>
  );
}
