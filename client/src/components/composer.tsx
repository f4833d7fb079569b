import { useState, type ClipboardEvent, type FormEvent, type KeyboardEvent } from 'react';
import { renderTemplate } from '../../../shared/templates';
import { usePhoneFormatter } from '../lib/format';
import { trpc, type TThreadRef } from '../lib/trpc';
import { checkUploadSize } from '../lib/upload-file';
import { FilePicker } from './file-picker';
import { TemplateComposer, type TTemplateChoice } from './template-composer';

/** The number a message goes to: always shown, a choice when the conversation has several. */
type TRecipient = { value: string; options: string[]; onChange: (digits: string) => void; note?: string | null };

type TProps = {
  threadRef: TThreadRef;
  clientName: string | null;
  onSend: (body: string, caseId: number | undefined) => Promise<boolean>;
  onSendTemplate: (choice: TTemplateChoice, caseId: number | undefined) => Promise<boolean>;
  /** Uploads the file (reporting progress) and sends it with the caption; false keeps both here. */
  onSendFile: (file: File, caption: string, caseId: number | undefined, onProgress: (fraction: number) => void) => Promise<{ ok: true } | { ok: false; error: string | null }>;
  /** The file chosen to send (picked, pasted, or dropped anywhere on the thread). */
  file: File | null;
  onFileChange: (file: File | null) => void;
  recipient: TRecipient | null;
  /** The 24-hour window of the number the message goes to. */
  windowOpen: boolean;
  /** 'template': an approved template (first choice outside the window); 'text': free text. */
  mode: 'template' | 'text';
  onModeChange: (mode: 'template' | 'text') => void;
};

/**
 * Recipient number, optional case, then free text (Enter sends, Shift+Enter adds a line; firm
 * wording can be inserted) or an approved provider template — first outside the 24-hour window,
 * where free text is sent only on purpose.
 */
export function Composer({ threadRef, clientName, onSend, onSendTemplate, onSendFile, file, onFileChange, recipient, windowOpen, mode, onModeChange }: TProps) {
  const formatNumber = usePhoneFormatter();
  const [body, setBody] = useState('');
  const [caseId, setCaseId] = useState<number | undefined>(undefined);
  const clientId = 'clientId' in threadRef ? threadRef.clientId : null;
  const templates = trpc.chat.templates.useQuery(undefined, { staleTime: Infinity });
  const settings = trpc.settings.chat.useQuery(undefined, { staleTime: Infinity });
  const cases = trpc.cases.listForClient.useQuery({ clientId: clientId ?? 0 }, { enabled: clientId !== null });
  const selectedCase = cases.data?.find((c) => c.id === caseId);

  const [progress, setProgress] = useState<number | null>(null);
  // Over its limit: said before anything is uploaded. Refused by the server: its sentence, until
  // another file is chosen.
  const tooLarge = file ? checkUploadSize(file) : null;
  const [uploadError, setUploadError] = useState<{ file: File; message: string } | null>(null);
  const fileError = tooLarge ?? (uploadError && uploadError.file === file ? uploadError.message : null);
  const chooseFile = (chosen: File | null) => {
    setUploadError(null);
    onFileChange(chosen);
  };
  const sendFile = async (chosen: File) => {
    if (checkUploadSize(chosen)) return;
    setUploadError(null);
    setProgress(0);
    const result = await onSendFile(chosen, body.trim(), caseId, setProgress);
    setProgress(null);
    if (result.ok) {
      onFileChange(null);
      setBody('');
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
    if (progress !== null) return;
    if (file) return void (await sendFile(file));
    const text = body.trim();
    if (!text) return;
    setBody('');
    const ok = await onSend(text, caseId);
    if (!ok) setBody((current) => current || text); // never lose what was typed
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  };
  const applyTemplate = (id: string) => {
    const template = templates.data?.find((t) => t.id === id);
    if (!template) return;
    setBody(
      renderTemplate(template.body, {
        client_name: clientName?.split(' ')[0],
        case_reference: selectedCase?.reference,
        case_title: selectedCase?.title,
        firm_name: settings.data?.firmName,
        firm_phone: settings.data?.firmPhone,
      }),
    );
  };

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
        <label className="compact-field">
          <span>Wording</span>
          <select value="" onChange={(e) => applyTemplate(e.target.value)} aria-label="Insert a template">
            <option value="">Insert a template…</option>
            {templates.data?.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        )}
        {windowOpen && mode === 'text' && (
          <button type="button" className="link-button" onClick={() => onModeChange('template')}>
            Approved template…
          </button>
        )}
        {clientId !== null && (
          <label className="compact-field">
            <span>Case</span>
            <select
              value={caseId ?? ''}
              onChange={(e) => setCaseId(e.target.value ? Number(e.target.value) : undefined)}
              aria-label="File on case"
            >
              <option value="">No case</option>
              {cases.data?.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.reference}
                </option>
              ))}
            </select>
          </label>
        )}
        {mode === 'text' && (
          <FilePicker
            file={file}
            onChoose={chooseFile}
            onClear={() => chooseFile(null)}
            progress={progress}
            error={fileError}
          />
        )}
      </div>
  );

  if (mode === 'template') {
    return (
      <div className="composer">
        {tools}
        <TemplateComposer
          windowOpen={windowOpen}
          context={{ firstName: clientName?.split(' ')[0] ?? null, caseReference: selectedCase?.reference ?? null, firmName: settings.data?.firmName ?? null }}
          onSend={(choice) => onSendTemplate(choice, caseId)}
          onWriteFreeText={() => onModeChange('text')}
        />
      </div>
    );
  }

  return (
    <form
      className="composer"
      onSubmit={submit}
      aria-label="Write a message"
    >
      {tools}
      {!windowOpen && (
        <p className="composer-note" role="note">
          Outside the 24-hour window: the provider will most likely refuse free text.{' '}
          <button type="button" className="link-button" onClick={() => onModeChange('template')}>
            Send an approved template
          </button>
        </p>
      )}
      <div className="composer-row">
        <label className="visually-hidden" htmlFor="composer-text">
          {file ? 'Caption' : 'Message'}
        </label>
        <textarea
          id="composer-text"
          rows={2}
          placeholder={file ? 'Caption (optional) — Enter to send the file' : 'Write a message — Enter to send, Shift+Enter for a new line'}
          value={body}
          onChange={(e) => setBody(e.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          maxLength={file ? 1024 : 4096}
        />
        <button type="submit" className="button primary" disabled={(!body.trim() && !file) || progress !== null || tooLarge !== null}>
          {progress !== null ? 'Sending…' : file ? 'Send file' : 'Send'}
        </button>
      </div>
    </form>
  );
}
