import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { renderTemplate } from '../../../shared/templates';
import { usePhoneFormatter } from '../lib/format';
import { trpc, type TThreadRef } from '../lib/trpc';
import { TemplateComposer, type TTemplateChoice } from './template-composer';

/** The number a message goes to: always shown, a choice when the conversation has several. */
type TRecipient = { value: string; options: string[]; onChange: (digits: string) => void; note?: string | null };

type TProps = {
  threadRef: TThreadRef;
  clientName: string | null;
  onSend: (body: string, caseId: number | undefined) => Promise<boolean>;
  onSendTemplate: (choice: TTemplateChoice, caseId: number | undefined) => Promise<boolean>;
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
export function Composer({ threadRef, clientName, onSend, onSendTemplate, recipient, windowOpen, mode, onModeChange }: TProps) {
  const formatNumber = usePhoneFormatter();
  const [body, setBody] = useState('');
  const [caseId, setCaseId] = useState<number | undefined>(undefined);
  const clientId = 'clientId' in threadRef ? threadRef.clientId : null;
  const templates = trpc.chat.templates.useQuery(undefined, { staleTime: Infinity });
  const settings = trpc.settings.chat.useQuery(undefined, { staleTime: Infinity });
  const cases = trpc.cases.listForClient.useQuery({ clientId: clientId ?? 0 }, { enabled: clientId !== null });
  const selectedCase = cases.data?.find((c) => c.id === caseId);

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
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
    <form className="composer" onSubmit={submit} aria-label="Write a message">
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
          Message
        </label>
        <textarea
          id="composer-text"
          rows={2}
          placeholder="Write a message — Enter to send, Shift+Enter for a new line"
          value={body}
          onChange={(e) => setBody(e.target.value)}
          onKeyDown={onKeyDown}
          maxLength={4096}
        />
        <button type="submit" className="button primary" disabled={!body.trim()}>
          Send
        </button>
      </div>
    </form>
  );
}
